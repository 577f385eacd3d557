/**
 * {@link OneTimeStore}: single-use, expiring values shared by every process and worker on one
 * database — pre-authorized and authorization codes, PAR request URIs, access tokens, c_nonces,
 * DPoP `jti`s, offers, tx_code attempts (issue 33 §3). Single use rests on the storage port's
 * atomic primitives, never on memory: a unique insert (`issue`, `remember`, `rememberAll`), a delete that says
 * whether it deleted (`consume`), an increment (`attempt`). An expired value is absent for every
 * operation, whether or not a sweep has deleted it yet.
 *
 * The store keeps no value: a record's id is the value's keyed hash (`hashing.ts`), over the
 * tenant, the kind and the value, and every read checks the record's tenant and kind again.
 */
import { UniqueConstraintError, type Collection, type StorageAdapter, type Where } from '../storage/port.js'
import { collectionOf } from '../storage/declaration.js'
import type { OneTimeHasher } from './hashing.js'
import { sealerOf, type OneTimeSealer } from './sealing.js'
import { ONE_TIME, type OneTimeData, type OneTimeKind, type OneTimeRecord } from './records.js'

/** Failed tries of a value (a tx_code) after which `attempt` burns it, unless the caller says otherwise. */
export const DEFAULT_MAX_ATTEMPTS = 5
/** Every this many `issue`/`remember` calls, a process sweeps. */
const SWEEP_EVERY = 64
/** Rounds of `issue`/`remember` against an expired record holding the same hash (another process clears it meanwhile). */
const INSERT_ROUNDS = 3

/** {@link OneTimeStore.issue} of a value that is live already (values are random: a caller's mistake). */
export class OneTimeConflictError extends Error {
  constructor(readonly kind: OneTimeKind) {
    super(`a ${kind} with this value is live already`)
    this.name = 'OneTimeConflictError'
  }
}

const SEEN = Symbol('one-time record')

/** A live value as {@link OneTimeStore.look} found it: its data, and its record for {@link OneTimeStore.consume}. */
export interface OneTimeSeen {
  data: OneTimeData
  readonly [SEEN]: OneTimeRecord
}

/** What {@link OneTimeStore.attempt} counted. */
export interface AttemptResult {
  /** The value is gone: this try reached the maximum (and deleted it), or it was absent or expired. */
  burned: boolean
  /** Failed tries counted so far, this one included (0 when the value was absent). */
  attempts: number
}

export interface OneTimeStoreOptions {
  now?: () => number
  /** Receives a failed opportunistic sweep (the call that ran it still succeeds). */
  onError?: (what: string, err: unknown) => void
  /** Sweep every this many `issue`/`remember` calls (default 64; 0: never, the embedder calls {@link OneTimeStore.sweep}). */
  sweepEvery?: number
  /** Seals the values handed out instead of stored ({@link OneTimeStore.seal}); default: one keyed by the hasher. */
  sealer?: OneTimeSealer
}

/**
 * Whether `err` is the unique conflict of a one-time record written with other writes (`storage.insertAll` of
 * {@link OneTimeStore.rememberedUntil}'s records): a value used already — the write is refused whole.
 */
export function isOneTimeTaken(err: unknown): boolean {
  return err instanceof UniqueConstraintError && err.collection === ONE_TIME.name
}

export class OneTimeStore {
  readonly #records: Collection<OneTimeRecord>
  readonly #hash: OneTimeHasher
  readonly #now: () => number
  readonly #onError: (what: string, err: unknown) => void
  readonly #sweepEvery: number
  readonly #sealer: OneTimeSealer
  #writes = 0

  /** Whether this store runs inside a caller's transaction ({@link within}). */
  #inTransaction = false

  constructor(storage: StorageAdapter, hash: OneTimeHasher, options: OneTimeStoreOptions = {}) {
    this.#records = collectionOf(storage, ONE_TIME)
    this.#hash = hash
    this.#now = options.now ?? Date.now
    this.#onError = options.onError ?? (() => undefined)
    this.#sweepEvery = options.sweepEvery ?? SWEEP_EVERY
    // The hasher's output under a label no (tenant, kind, value) of a stored value has: a 32-byte key of its own.
    this.#sealer = options.sealer ?? sealerOf(Buffer.from(hash('_system', 'derive:sealing-key', ''), 'base64url'))
  }

  /**
   * The same store inside the caller's transaction `tx` (same key and clock, same guarantees): its writes commit or
   * roll back with the caller's — a request's consume, marks and inserts in one commit, a refusal writing nothing.
   * Inside a transaction it never sweeps; `remember` reads before it inserts (a statement failing on a unique index
   * may abort the whole transaction): a live holder makes it false, an expired one is cleared first. `issue` inserts
   * (its values are fresh random ones): a taken id throws {@link OneTimeConflictError}, and the transaction must not go
   * on. Two transactions racing for one value never both commit (the adapters' transactions are serializable).
   */
  within(tx: StorageAdapter): OneTimeStore {
    const view = new OneTimeStore(tx, this.#hash, { now: this.#now, onError: this.#onError, sweepEvery: 0, sealer: this.#sealer })
    view.#inTransaction = true
    return view
  }

  /**
   * Stores `value` for `ttlMs`, with `data` for its consumer (default `{}`).
   *
   * @throws {OneTimeConflictError} when the same value of the same kind is live in the tenant.
   */
  async issue(tenantId: string, kind: OneTimeKind, value: string, options: { ttlMs: number; data?: OneTimeData }): Promise<void> {
    if (!(await this.#insert(tenantId, kind, value, options.ttlMs, options.data ?? {}))) throw new OneTimeConflictError(kind)
  }

  /**
   * Takes `value` out: its data to exactly one caller across every process, however many ask at
   * once; undefined to the others, and when the value is unknown, expired, burned or another tenant's.
   */
  async consume(tenantId: string, kind: OneTimeKind, value: string, seen?: OneTimeSeen): Promise<OneTimeData | undefined> {
    const id = this.#hash(tenantId, kind, value)
    // What `look` saw of this value saves reading it again: the id names (tenant, kind, value) and a record's expiry and
    // data never change; only its expiry is checked again, now.
    const record = seen ? this.#live(seen[SEEN], tenantId, kind) : this.#live(await this.#records.get(id), tenantId, kind)
    // The delete decides: the adapters say whether this call deleted the record, to one caller only.
    if (!record || !(await this.#records.delete(id))) return undefined
    return record.data ?? {}
  }

  /**
   * `value`'s record while it is live, leaving it in place (its data, and what {@link consume} may be given instead of
   * reading it again); undefined like {@link consume}.
   */
  async look(tenantId: string, kind: OneTimeKind, value: string): Promise<OneTimeSeen | undefined> {
    const record = this.#live(await this.#records.get(this.#hash(tenantId, kind, value)), tenantId, kind)
    return record ? { data: record.data ?? {}, [SEEN]: record } : undefined
  }

  /** The data of `value` while it is live, leaving it in place; undefined like {@link consume}. */
  async peek(tenantId: string, kind: OneTimeKind, value: string): Promise<OneTimeData | undefined> {
    const record = this.#live(await this.#records.get(this.#hash(tenantId, kind, value)), tenantId, kind)
    return record ? (record.data ?? {}) : undefined
  }

  /**
   * Counts a failed try of `value` (a wrong tx_code). The try that reaches `maxAttempts` deletes
   * the value: it never consumes again. Concurrent tries are each counted once.
   */
  async attempt(tenantId: string, kind: OneTimeKind, value: string, maxAttempts = DEFAULT_MAX_ATTEMPTS): Promise<AttemptResult> {
    if (!Number.isInteger(maxAttempts) || maxAttempts < 1) throw new RangeError('maxAttempts must be a positive integer')
    const id = this.#hash(tenantId, kind, value)
    if (!this.#live(await this.#records.get(id), tenantId, kind)) return { burned: true, attempts: 0 }
    let attempts: number
    try {
      attempts = await this.#records.increment(id, 'attempts')
    } catch (err) {
      // Consumed, burned or swept since it was read: gone.
      if ((await this.#records.get(id)) === undefined) return { burned: true, attempts: 0 }
      throw err
    }
    if (attempts < maxAttempts) return { burned: false, attempts }
    await this.#records.delete(id)
    return { burned: true, attempts }
  }

  /**
   * Records `value` as seen for `ttlMs` (a DPoP `jti`, a nonce): true the first time, false for
   * every later call while it is live — across processes (one unique insert wins).
   */
  async remember(tenantId: string, kind: OneTimeKind, value: string, ttlMs: number): Promise<boolean> {
    return this.#insert(tenantId, kind, value, ttlMs, undefined)
  }

  /**
   * Records `value` as seen until `expiresAt` (UNIX ms), for a value that carries its own expiry (a `c_nonce`): true the
   * first time, false for every later call, across processes. The record expires with the value, so a record of the
   * same value is never an expired holder to clear: the unique insert alone decides — no read (inside a transaction,
   * false means the transaction is not to go on, as with {@link issue}). False too when `expiresAt` has passed.
   */
  async rememberUntil(tenantId: string, kind: OneTimeKind, value: string, expiresAt: number): Promise<boolean> {
    const record = this.rememberedUntil(tenantId, kind, value, expiresAt)
    return record !== undefined && this.rememberAll([record])
  }

  /**
   * The record {@link rememberUntil} inserts, for the caller to insert with its own writes (one `storage.insertAll`,
   * all or nothing): its unique insert is the use — a {@link UniqueConstraintError} on the one-time collection
   * ({@link isOneTimeTaken}) means the value was used before, and nothing of the write is stored. Undefined when
   * `expiresAt` has passed (not usable). Writes nothing.
   */
  rememberedUntil(tenantId: string, kind: OneTimeKind, value: string, expiresAt: number): OneTimeRecord | undefined {
    if (!Number.isFinite(expiresAt)) throw new RangeError('expiresAt must be a UNIX time in milliseconds')
    const now = this.#now()
    if (expiresAt <= now) return undefined
    return { id: this.#hash(tenantId, kind, value), tenantId, kind, expiresAt, attempts: 0, createdAt: now }
  }

  /**
   * Records several values as seen at once, given their {@link rememberedUntil} records (each value once): true when
   * every record is inserted, false — and none is — when one of the values was remembered before, or when a record's
   * expiry has passed. One `insertMany`, all or none; like {@link rememberUntil}, the unique inserts alone decide (no
   * read), and inside a transaction false means the transaction is not to go on. No records: true, nothing written.
   */
  async rememberAll(records: readonly OneTimeRecord[]): Promise<boolean> {
    if (records.length === 0) return true
    const now = this.#now()
    if (records.some((record) => record.expiresAt <= now)) return false
    await this.#maybeSweep()
    return this.#insertOnce(...records)
  }

  /**
   * A keyed hash of `value` under the store's key for another `purpose` than naming a value (the OID4VCI offers'
   * storage ids, tx_code hashes, the pre-authorized code an offer serves): HMAC-SHA-256 over (tenant,
   * `derive:<purpose>`, value) — no one-time kind starts with `derive:`, so it never names a stored value. Base64url.
   */
  keyed(purpose: string, tenantId: string, value: string): string {
    return this.#hash(tenantId, `derive:${purpose}`, value)
  }

  /**
   * `data` sealed (AES-256-GCM, `sealing.ts`) for `purpose` and `binding` (the tenant first, then what else it is
   * bound to), good for `ttlMs`: a value handed out instead of stored — nothing is written.
   */
  seal(purpose: string, binding: readonly string[], data: OneTimeData, ttlMs: number): string {
    if (!Number.isFinite(ttlMs) || ttlMs <= 0) throw new RangeError('ttlMs must be a positive number of milliseconds')
    return this.#sealer.seal(purpose, binding, data, this.#now() + ttlMs)
  }

  /**
   * The data of a value {@link seal} made for `purpose` and `binding`, while it is live; undefined when it is forged,
   * altered, expired, or sealed for another purpose, tenant or binding. A computation: nothing is read.
   */
  unseal(purpose: string, binding: readonly string[], sealed: string): OneTimeData | undefined {
    return this.#sealer.open(purpose, binding, sealed, this.#now())
  }

  /**
   * Deletes the values expired at `now`, of every tenant; returns how many. One delete served by
   * the `expiresAt` index: run every {@link SWEEP_EVERY}th write of each process, it finds about
   * what was issued since the last one.
   */
  async sweep(now = this.#now()): Promise<number> {
    return this.#records.deleteMany({ field: 'expiresAt', op: 'lte', value: now })
  }

  /** Inserts the record; false when the value is live already. Clears an expired holder of the same hash first. */
  async #insert(tenantId: string, kind: OneTimeKind, value: string, ttlMs: number, data: OneTimeData | undefined): Promise<boolean> {
    if (!Number.isFinite(ttlMs) || ttlMs <= 0) throw new RangeError('ttlMs must be a positive number of milliseconds')
    await this.#maybeSweep()
    const id = this.#hash(tenantId, kind, value)
    if (this.#inTransaction) {
      const now = this.#now()
      // `issue`'s values are fresh random ones (never an expired holder's): the insert alone decides.
      if (data !== undefined) return this.#insertOnce({ id, tenantId, kind, expiresAt: now + ttlMs, attempts: 0, createdAt: now, data })
      const holder = await this.#records.get(id)
      if (holder && holder.expiresAt > now) return false
      if (holder) await this.#records.deleteMany(this.#expiredAt(holder))
      await this.#records.insert({ id, tenantId, kind, expiresAt: now + ttlMs, attempts: 0, createdAt: now })
      return true
    }
    for (let round = 1; ; round++) {
      const now = this.#now()
      const record: OneTimeRecord = { id, tenantId, kind, expiresAt: now + ttlMs, attempts: 0, createdAt: now, ...(data && { data }) }
      try {
        await this.#records.insert(record)
        return true
      } catch (err) {
        if (!(err instanceof UniqueConstraintError) || round >= INSERT_ROUNDS) throw err
      }
      const holder = await this.#records.get(id)
      if (holder && holder.expiresAt > now) return false
      // Expired (absent for everyone): delete it — by its expiry, never by id, so that a fresh
      // record another process inserted meanwhile (expiring later) is never deleted here.
      if (holder) await this.#records.deleteMany(this.#expiredAt(holder))
    }
  }

  /**
   * Inserts `records`, all or none; false when an id is taken (inside a transaction, the transaction is not to go on).
   */
  async #insertOnce(...records: OneTimeRecord[]): Promise<boolean> {
    try {
      await (records.length === 1 ? this.#records.insert(records[0]) : this.#records.insertMany(records))
      return true
    } catch (err) {
      if (err instanceof UniqueConstraintError) return false
      throw err
    }
  }

  /** The tenant's records expiring exactly when `holder` did: all expired, `holder` among them. */
  #expiredAt(holder: OneTimeRecord): Where {
    return {
      and: [
        { field: 'tenantId', op: 'eq', value: holder.tenantId },
        { field: 'expiresAt', op: 'eq', value: holder.expiresAt },
      ],
    }
  }

  /** `record` when it is `tenantId`'s, of `kind` and not expired. */
  #live(record: OneTimeRecord | undefined, tenantId: string, kind: OneTimeKind): OneTimeRecord | undefined {
    if (!record || record.tenantId !== tenantId || record.kind !== kind) return undefined
    return record.expiresAt > this.#now() ? record : undefined
  }

  async #maybeSweep(): Promise<void> {
    if (this.#sweepEvery <= 0 || ++this.#writes % this.#sweepEvery !== 0) return
    try {
      await this.sweep()
    } catch (err) {
      this.#onError('one-time values sweep', err)
    }
  }
}
