/**
 * Processes that hold the keyring announce themselves in `meta`, one `instance:<id>` record each:
 * the master key they seal with, the keys they open, host and pid, when last seen. The record is
 * refreshed every {@link HEARTBEAT_MS}, removed when the process closes its service, and taken for
 * gone once older than {@link STALE_MS}. A master-key rotation refuses while a live process seals
 * with another key (`rotation.ts`), so no secret is sealed, after the rotation, under a key about
 * to be dropped.
 *
 * The order of writes and reads closes the race with a rotation that starts meanwhile: a process
 * writes its record, then reads the rotation mark (`meta/keyring.rotatingTo`); a rotation writes
 * the mark, then reads the records. One of the two sees the other's write. A process that does not
 * hold the key the database is on — the key of a rotation under way, else the key of the check
 * envelope — refuses to start, or, running (one cut off for longer than `STALE_MS` while a
 * rotation finished), refuses to seal until restarted with that key ({@link Keyring.fence}).
 */
import { hostname } from 'node:os'
import { randomBytes } from 'node:crypto'
import type { Collection, StorageAdapter } from '../storage/port.js'
import { Keyring, KeyringError } from '../keys/keyring.js'
import { KEYRING_RECORD, type KeyringMeta } from './keyring-store.js'
import type { MetaRecord } from './records.js'

/** How often a process refreshes its record. */
export const HEARTBEAT_MS = 5_000
/** A record not refreshed for this long is a process that is gone (killed, or cut off from the storage). */
export const STALE_MS = 30_000

const PREFIX = 'instance:'

/** What a process says of itself. */
export interface InstanceRecord extends MetaRecord {
  host: string
  pid: number
  /** Id of the master key it seals with. */
  sealsWith: string
  /** Ids of the master keys it opens envelopes with. */
  opens: string[]
  /** When it last refreshed this record (ms since the epoch, its clock). */
  seenAt: number
  /** Whether it refuses to seal (it lacks the key the database is on). */
  fenced: boolean
}

const metaOf = (storage: StorageAdapter) => storage.collection<MetaRecord>('meta')

/**
 * Why `keyring` must not seal on this storage, if it must not: it lacks the key the database is
 * on (the key a rotation under way goes to, else the key of the keyring's check envelope).
 */
async function sealingRefusal(storage: StorageAdapter, keyring: Keyring): Promise<string | undefined> {
  const record = await storage.collection<KeyringMeta>('meta').get(KEYRING_RECORD.id)
  if (record === undefined) return undefined
  const target = record.rotatingTo ?? Keyring.keyIdOf(record.check)
  if (keyring.hasKey(target)) return undefined
  return (
    `the database's master key is (or is being rotated to) key ${target}, which this process does not hold: restart it ` +
    'with that key as master key (and the current one among the previous master keys while a rotation runs)'
  )
}

/** One process's record, kept fresh until {@link stop}. */
export class InstanceHeartbeat {
  readonly id = `${PREFIX}${randomBytes(9).toString('base64url')}`
  readonly #meta: Collection<MetaRecord>
  readonly #storage: StorageAdapter
  readonly #keyring: Keyring
  readonly #now: () => number
  readonly #onFence: (reason: string | undefined) => void
  readonly #startedAt: number
  #timer: NodeJS.Timeout | undefined
  #beating: Promise<void> | undefined

  private constructor(storage: StorageAdapter, keyring: Keyring, now: () => number, onFence: (reason: string | undefined) => void) {
    this.#storage = storage
    this.#meta = metaOf(storage)
    this.#keyring = keyring
    this.#now = now
    this.#onFence = onFence
    this.#startedAt = now()
  }

  /**
   * Writes the record, then checks that `keyring` holds the key the database is on (or is being
   * rotated to); if not, the start is refused (the record removed). `onFence` hears when the
   * process stops sealing (a reason) or seals again (`undefined`: a rotation it lacked the key of was undone).
   */
  static async start(
    storage: StorageAdapter,
    keyring: Keyring,
    options: { now?: () => number; onFence?: (reason: string | undefined) => void } = {},
  ): Promise<InstanceHeartbeat> {
    const heartbeat = new InstanceHeartbeat(storage, keyring, options.now ?? Date.now, options.onFence ?? (() => {}))
    await heartbeat.#meta.insert(heartbeat.#record())
    const refusal = await sealingRefusal(storage, keyring)
    if (refusal !== undefined) {
      await heartbeat.#meta.delete(heartbeat.id).catch(() => false)
      throw new KeyringError(refusal)
    }
    heartbeat.#timer = setInterval(() => void heartbeat.#beat(), HEARTBEAT_MS)
    heartbeat.#timer.unref()
    return heartbeat
  }

  #record(): InstanceRecord {
    const now = this.#now()
    return {
      id: this.id,
      tenantId: KEYRING_RECORD.tenantId,
      createdAt: this.#startedAt,
      host: hostname(),
      pid: process.pid,
      sealsWith: this.#keyring.currentKeyId,
      opens: this.#keyring.keyIds,
      seenAt: now,
      fenced: this.#keyring.fenced !== undefined,
    }
  }

  /**
   * Refreshes the record (writes it again if it was taken for gone), then checks again that the
   * process holds the key the database is on. A storage error waits for the next beat.
   */
  #beat(): Promise<void> {
    this.#beating ??= (async () => {
      try {
        const { id: _id, ...fields } = this.#record()
        if ((await this.#meta.update(this.id, fields)) === undefined) await this.#meta.insert(this.#record())
        const reason = await sealingRefusal(this.#storage, this.#keyring)
        if (reason !== this.#keyring.fenced) {
          this.#keyring.fence(reason)
          this.#onFence(reason)
        }
      } catch {
        // Bookkeeping: a storage outage fails the requests, not this.
      } finally {
        this.#beating = undefined
      }
    })()
    return this.#beating
  }

  /** Stops refreshing and removes the record. */
  async stop(): Promise<void> {
    clearInterval(this.#timer)
    await this.#beating
    await this.#meta.delete(this.id).catch(() => false)
  }
}

/** The records of processes, split into live ones and those not seen for {@link STALE_MS} at `now`. */
export async function instancesOf(storage: StorageAdapter, now: number): Promise<{ live: InstanceRecord[]; stale: InstanceRecord[] }> {
  const meta = metaOf(storage)
  const all: InstanceRecord[] = []
  let cursor: string | undefined
  do {
    const page = await meta.find({ and: [] }, { limit: 500, cursor, orderBy: { field: 'createdAt' } })
    for (const record of page.items) if (record.id.startsWith(PREFIX)) all.push(record as InstanceRecord)
    cursor = page.nextCursor
  } while (cursor)
  return { live: all.filter((r) => now - r.seenAt < STALE_MS), stale: all.filter((r) => now - r.seenAt >= STALE_MS) }
}

/** One process as messages name it: `pid 123 on host-a (seals with key 0a1b…, last seen 2 s ago)`. */
export function describeInstance(record: InstanceRecord, now: number): string {
  const ago = Math.max(0, Math.round((now - record.seenAt) / 1000))
  const fenced = record.fenced ? ', refusing to seal' : ''
  return `pid ${record.pid} on ${record.host} (seals with key ${record.sealsWith}${fenced}, last seen ${ago} s ago)`
}
