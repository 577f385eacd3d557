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
 * the mark, then reads the records. One of the two sees the other's write. A process that finds
 * a rotation to a key it does not hold refuses to start, or, running, refuses to seal until
 * restarted with that key ({@link Keyring.fence}).
 */
import { hostname } from 'node:os'
import { randomBytes } from 'node:crypto'
import type { Collection, StorageAdapter } from '../storage/port.js'
import { KeyringError, type Keyring } from '../keys/keyring.js'
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
  /** Whether it refuses to seal (it found a rotation to a key it lacks). */
  fenced: boolean
}

/** The refusal of a process that lacks the key a rotation goes to. */
export const missingRotationKey = (keyId: string) =>
  `a master-key rotation to key ${keyId} is under way or unfinished and this process does not hold that key: restart it with ` +
  'the new key as master key and the current one among the previous master keys'

const metaOf = (storage: StorageAdapter) => storage.collection<MetaRecord>('meta')

/** The rotation under way, when one is: the id of the key it goes to. */
export async function rotationTarget(storage: StorageAdapter): Promise<string | undefined> {
  return (await storage.collection<KeyringMeta>('meta').get(KEYRING_RECORD.id))?.rotatingTo
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
   * Writes the record, then checks the rotation mark: a rotation to a key `keyring` lacks refuses
   * the start (the record is removed). `onFence` hears when the process stops sealing (a reason)
   * or seals again (`undefined`, the rotation mark gone).
   */
  static async start(
    storage: StorageAdapter,
    keyring: Keyring,
    options: { now?: () => number; onFence?: (reason: string | undefined) => void } = {},
  ): Promise<InstanceHeartbeat> {
    const heartbeat = new InstanceHeartbeat(storage, keyring, options.now ?? Date.now, options.onFence ?? (() => {}))
    await heartbeat.#meta.insert(heartbeat.#record())
    const target = await rotationTarget(storage)
    if (target !== undefined && !keyring.hasKey(target)) {
      await heartbeat.#meta.delete(heartbeat.id).catch(() => false)
      throw new KeyringError(missingRotationKey(target))
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
   * Refreshes the record (writes it again if it was taken for gone), then follows the rotation
   * mark. A storage error waits for the next beat.
   */
  #beat(): Promise<void> {
    this.#beating ??= (async () => {
      try {
        const { id: _id, ...fields } = this.#record()
        if ((await this.#meta.update(this.id, fields)) === undefined) await this.#meta.insert(this.#record())
        const target = await rotationTarget(this.#storage)
        const reason = target !== undefined && !this.#keyring.hasKey(target) ? missingRotationKey(target) : undefined
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
