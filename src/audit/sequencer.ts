/**
 * The audit sequencer: chains committed audit records. An act's transaction only appends its
 * records (`auditAppends`), touching no row every act of the tenant touches; the sequencer takes
 * the records it finds committed, in append-number order, gives them the next seqs of their
 * chain, their `prevHash` and `hash`, and in one transaction moves them into `auditRecords` and
 * advances the chain's head. That transaction goes on only if the head is still what the
 * sequencer read before it and every record it took is still unchained (the conditional update):
 * two sequencers — any process may run one — never fork a chain; the one that loses leaves the
 * records to the winner.
 *
 * When it runs (docs/operations.md *Audit trail*, the integration lag): `delayMs` after a commit
 * that appended (the appends of that time chained together), for the chains this process
 * appended to; every `sweepMs`, for records older than `sweepMs` whoever appended them (a process
 * that died, or one that stopped before chaining); on demand (`GET /audit` chains its tenant's
 * first; `IdentityService.close()` chains what is pending).
 */
import type { StorageAdapter, Where } from '../storage/port.js'
import { collectionOf } from '../storage/declaration.js'
import { hashOf } from './hash.js'
import { AUDIT_APPENDS, AUDIT_HEADS, AUDIT_RECORDS, GENESIS_HASH, type AuditAppendRecord, type AuditRecord } from './records.js'

/** When the sequencer runs (`IdentityServiceOptions.auditChaining`). */
export interface AuditChainingOptions {
  /** Records appended by this process are chained this long after their transaction commits (default 50 ms). */
  delayMs?: number
  /** How often records left unchained longer than this (by any process) are looked for and chained (default 1000 ms). */
  sweepMs?: number
}

export const DEFAULT_CHAIN_DELAY_MS = 50
export const DEFAULT_SWEEP_MS = 1_000

/** Records one chaining transaction takes at most. */
const BATCH = 500
/** Records one sweep round looks at (their chains are chained whole), and rounds per sweep. */
const SWEEP_RECORDS = 100
const SWEEP_ROUNDS = 10
/** Times a run that lost to another sequencer looks again before leaving the records to it. */
const RACE_RETRIES = 5

/** Another sequencer chained some of the records, or advanced the head, first. */
class LostRace extends Error {}

/** The record of an append, chained as record `seq` after `prevHash`. */
function chained(append: AuditAppendRecord, chain: string, seq: number, prevHash: string): AuditRecord {
  const { id: _append, state: _state, createdAt: _drawn, ...act } = append
  const record: AuditRecord = { ...act, id: recordId(chain, seq), tenantId: chain, seq, prevHash, hash: '', createdAt: append.time }
  record.hash = hashOf(record)
  return record
}

/** The id of record `seq` of `chain`. */
export const recordId = (chain: string, seq: number) => `${chain}:${seq}`

/** Chains committed audit records, per chain one run at a time in this process. */
export class AuditSequencer {
  readonly #delayMs: number
  readonly #sweepMs: number
  /** Chains appended to since the last scheduled run. */
  readonly #appended = new Set<string>()
  /** The run of each chain under way (the next waits for it). */
  readonly #runs = new Map<string, Promise<number>>()
  #timer: NodeJS.Timeout | undefined
  /** The timers' runs, one after the other. */
  #ticks: Promise<void> = Promise.resolve()
  readonly #sweeper: NodeJS.Timeout
  #closed = false

  /**
   * @param storage - the service's storage (its own transactions)
   * @param onError - receives a run that failed (its records stay appended: the next run or sweep chains them)
   */
  constructor(
    private readonly storage: StorageAdapter,
    private readonly onError: (operation: string, error: unknown) => void,
    options: AuditChainingOptions = {},
  ) {
    this.#delayMs = options.delayMs ?? DEFAULT_CHAIN_DELAY_MS
    this.#sweepMs = options.sweepMs ?? DEFAULT_SWEEP_MS
    this.#sweeper = setInterval(() => void this.#sweep(Date.now() - this.#sweepMs).catch(this.#failed), this.#sweepMs)
    this.#sweeper.unref()
  }

  readonly #failed = (err: unknown) => {
    // A storage closed under a service never closed (an embedder's shutdown): nothing more to sweep.
    if (/storage is closed|after calling end on the pool/.test(String(err))) clearInterval(this.#sweeper)
    else if (!this.#closed) this.onError('Chain audit records', err)
  }

  /** Notes that a transaction appends to `chain` (chained once a transaction commits, see {@link committed}). */
  appended(chain: string): void {
    this.#appended.add(chain)
  }

  /** A transaction committed: the chains appended to are chained `delayMs` later (one timer for all). */
  committed(): void {
    if (this.#closed || this.#timer !== undefined || this.#appended.size === 0) return
    this.#timer = setTimeout(() => {
      this.#timer = undefined
      const chains = [...this.#appended]
      this.#appended.clear()
      this.#ticks = this.#ticks.then(() => this.#chainTogether(chains)).catch(this.#failed)
    }, this.#delayMs)
    this.#timer.unref()
  }

  /**
   * Chains `chain`'s committed records now (at most about `max`), after the run under way in this
   * process; resolves to how many this run chained. Records another sequencer is chaining are left to it.
   */
  chain(chain: string, max = Infinity): Promise<number> {
    const previous = this.#runs.get(chain) ?? Promise.resolve(0)
    const run = previous.catch(() => 0).then(() => this.#chainAll(chain, max))
    this.#runs.set(chain, run)
    const forget = () => {
      if (this.#runs.get(chain) === run) this.#runs.delete(chain)
    }
    run.then(forget, forget)
    return run
  }

  /** Chains the records of every chain this process appended to, and those a sweep finds (of any age). */
  async flush(): Promise<void> {
    if (this.#timer !== undefined) clearTimeout(this.#timer)
    this.#timer = undefined
    await this.#ticks
    const chains = [...this.#appended]
    this.#appended.clear()
    for (const chain of chains) await this.chain(chain)
    await this.#sweep(Infinity)
  }

  /** Stops the timers, then chains what is pending ({@link flush}); a failure goes to `onError`. */
  async close(): Promise<void> {
    this.#closed = true
    clearInterval(this.#sweeper)
    await this.flush().catch((err: unknown) => this.onError('Chain audit records', err))
  }

  /** Chains the chains holding records appended before `before` (wall-clock ms; Infinity: any), a bounded number of rounds. */
  async #sweep(before: number): Promise<void> {
    const appends = collectionOf(this.storage, AUDIT_APPENDS)
    const where: Where = {
      and: [
        { field: 'state', op: 'eq', value: 'appended' },
        ...(before === Infinity ? [] : [{ field: 'createdAt', op: 'lt', value: before } as const]),
      ],
    }
    for (let round = 0; round < SWEEP_ROUNDS; round++) {
      const { items } = await appends.find(where, { orderBy: { field: 'createdAt' }, limit: SWEEP_RECORDS })
      if (items.length === 0) return
      for (const chain of new Set(items.map((r) => r.tenantId))) await this.chain(chain)
    }
  }

  async #chainAll(chain: string, max: number): Promise<number> {
    let total = 0
    for (let lost = 0; total < max;) {
      try {
        const done = await this.#chainBatch(chain, Math.min(BATCH, max - total))
        total += done.chained
        if (!done.more) return total
      } catch (err) {
        if (!(err instanceof LostRace)) throw err
        // Another sequencer is chaining these records: look again shortly, then leave them to it.
        if (++lost > RACE_RETRIES) return total
        await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20))
      }
    }
    return total
  }

  /**
   * One transaction for the chains a timer found appended to (their records, a batch in all):
   * fewer transactions than one per chain, and no two of this process's conflicting. What is left
   * — more than the batch, or a race lost — is chained chain by chain.
   */
  async #chainTogether(chains: string[]): Promise<void> {
    const limit = Math.max(1, Math.floor(BATCH / chains.length))
    const work: Taken[] = []
    for (const chain of chains) {
      const taken = await this.#take(chain, limit)
      if (taken.records.length > 0) work.push(taken)
    }
    let lost = work.length === 0
    if (!lost) {
      try {
        await this.storage.transaction(async (tx) => {
          for (const taken of work) await this.#chainTaken(tx, taken)
        })
      } catch (err) {
        if (!(err instanceof LostRace)) throw err
        lost = true
      }
    }
    for (const taken of work) if (lost || taken.records.length === limit) await this.chain(taken.chain)
  }

  /** One transaction: up to `limit` records of `chain`, in append-number order, chained after its head. */
  async #chainBatch(chain: string, limit: number): Promise<{ chained: number; more: boolean }> {
    const taken = await this.#take(chain, limit)
    if (taken.records.length === 0) return { chained: 0, more: false }
    await this.storage.transaction((tx) => this.#chainTaken(tx, taken))
    return { chained: taken.records.length, more: taken.records.length === limit }
  }

  /**
   * Up to `limit` of `chain`'s committed records, in append-number order (by the number's time
   * part, then by the number: the id), and the head's seq, read before the chaining transaction:
   * that transaction reads only the head, so it conflicts with no act appending meanwhile, and it
   * proceeds only if nothing moved since.
   */
  async #take(chain: string, limit: number): Promise<Taken> {
    const { items: records } = await collectionOf(this.storage, AUDIT_APPENDS).find(
      { field: 'tenantId', op: 'eq', value: chain },
      { orderBy: { field: 'createdAt' }, limit },
    )
    const seen = records.length === 0 ? 0 : ((await collectionOf(this.storage, AUDIT_HEADS).get(chain))?.seq ?? 0)
    return { chain, records, seen }
  }

  /** In `tx`: the records taken, chained after the head — if the head is still at `seen` and each record still unchained. */
  async #chainTaken(tx: StorageAdapter, { chain, records: taken, seen }: Taken): Promise<void> {
    const heads = collectionOf(tx, AUDIT_HEADS)
    const records = collectionOf(tx, AUDIT_RECORDS)
    const head = await heads.get(chain)
    if ((head?.seq ?? 0) !== seen) throw new LostRace()
    const appends = collectionOf(tx, AUDIT_APPENDS)
    // One statement: every record taken must still be there (another sequencer chained none of them).
    if ((await appends.deleteIds(taken.map(({ id }) => id))) !== taken.length) throw new LostRace()
    let prevHash = GENESIS_HASH
    if (head !== undefined) {
      const last = head.hash ?? (await records.get(recordId(chain, head.seq)))?.hash
      if (last === undefined) throw new Error(`audit chain ${chain}: record ${head.seq}, its head, is missing`)
      prevHash = last
    }
    const made = taken.map((append, i) => {
      const record = chained(append, chain, seen + i + 1, prevHash)
      prevHash = record.hash
      return record
    })
    await records.insertMany(made)
    const last = made[made.length - 1]
    if (head === undefined) await heads.insert({ id: chain, tenantId: chain, seq: last.seq, hash: last.hash, createdAt: last.createdAt })
    else await heads.update(chain, { seq: last.seq, hash: last.hash })
  }
}

/** Records of a chain taken to be chained, and the head's seq when they were. */
interface Taken {
  chain: string
  records: AuditAppendRecord[]
  seen: number
}
