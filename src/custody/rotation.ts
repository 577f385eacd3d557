/**
 * Master-key rotation: every envelope not sealed under the current key is resealed under
 * it, record by record, while the service runs. Interrupted, it resumes where it stopped when run
 * again (start the service with the new key as `masterKey` and the old one in `previousMasterKeys`).
 * docs/operations.md *Master-key rotation* gives the procedure.
 */
import type { CollectionSpec, StorageAdapter, StoredRecord } from '../storage/port.js'
import { secretContext } from '../keys/secret-context.js'
import { Keyring, KeyringError, type MasterKey } from '../keys/keyring.js'
import { KEYRING_RECORD, type KeyringMeta } from './keyring-store.js'
import { describeInstance, instancesOf, type InstanceRecord } from './instances.js'

/** Progress of a rotation, reported after each page. */
export interface RotationProgress {
  collection: string
  /** Records of this collection looked at so far. */
  processed: number
  /** Envelopes resealed so far (all collections). */
  resealed: number
  /** Records in this collection. */
  total: number
}

export async function resealAll(
  storage: StorageAdapter,
  keyring: Keyring,
  specs: readonly CollectionSpec[],
  onProgress?: (p: RotationProgress) => void,
): Promise<{ resealed: number }> {
  let resealed = 0
  for (const spec of specs) {
    const fields = spec.secretFields ?? []
    if (fields.length === 0) continue
    const collection = storage.collection<StoredRecord & { tenantId: string }>(spec.name)
    const total = await collection.count({ and: [] })
    let processed = 0
    let cursor: string | undefined
    do {
      const page = await collection.find({ and: [] }, { limit: 200, cursor, orderBy: { field: 'createdAt' } })
      for (const record of page.items) {
        const patch: Record<string, string> = {}
        for (const field of fields) {
          const envelope = record[field]
          if (typeof envelope === 'string' && Keyring.keyIdOf(envelope) !== keyring.currentKeyId) {
            patch[field] = keyring.reseal(envelope, secretContext(spec.name, record, field))
          }
        }
        if (Object.keys(patch).length > 0) {
          await collection.update(record.id, patch)
          resealed += Object.keys(patch).length
        }
      }
      processed += page.items.length
      cursor = page.nextCursor
      onProgress?.({ collection: spec.name, processed, resealed, total })
    } while (cursor)
  }
  return { resealed }
}

/** A rotation that cannot start, or finish, while live processes seal with another key: it names them. */
export class RotationBlockedError extends KeyringError {
  constructor(
    readonly keyId: string,
    readonly instances: readonly InstanceRecord[],
    now: number,
  ) {
    const listed = instances.map((record) => describeInstance(record, now)).join('; ')
    super(
      `master-key rotation to key ${keyId} refused: ${instances.length} running process${instances.length === 1 ? '' : 'es'} ` +
        `seal${instances.length === 1 ? 's' : ''} with another key: ${listed}. Restart each with the new key as master key and the ` +
        'current one among the previous master keys, then rotate again',
    )
    this.name = 'RotationBlockedError'
  }
}

/** How {@link rotateMasterKey} runs. */
export interface RotationOptions {
  onProgress?: (p: RotationProgress) => void
  /** Runs in the transaction that clears the rotation mark (the service records the rotation there). */
  journal?: (tx: StorageAdapter, keyId: string) => Promise<void>
  now?: () => number
  /** The id of this process's own heartbeat record, if it has one (it switches key itself). */
  self?: string
  /** Told of each record of a process not seen for `STALE_MS`: ignored, and removed. */
  onStale?: (described: string) => void
}

/** Refuses (naming them) while a live process other than `self` seals with another key than `keyId`; removes stale records. */
async function assertNoOtherSealers(storage: StorageAdapter, keyId: string, options: RotationOptions): Promise<void> {
  const now = (options.now ?? Date.now)()
  const { live, stale } = await instancesOf(storage, now)
  for (const record of stale) {
    options.onStale?.(describeInstance(record, now))
    await storage.collection('meta').delete(record.id)
  }
  const others = live.filter((record) => record.id !== options.self && record.sealsWith !== keyId)
  if (others.length > 0) throw new RotationBlockedError(keyId, others, now)
}

/**
 * Rotates to `newKey`. Refuses while another rotation is unfinished, or while a live process
 * (`instances.ts`) seals with another key. Marks the rotation in `meta/keyring` (so a process
 * without the new key refuses to start, and a running one stops sealing, instead of failing later
 * on resealed secrets), reseals every envelope, the check envelope last, checks again that no
 * process seals with another key, then clears the mark and forgets the old keys. Run again after
 * an interruption, it goes on where it stopped.
 */
export async function rotateMasterKey(
  storage: StorageAdapter,
  keyring: Keyring,
  specs: readonly CollectionSpec[],
  newKey: MasterKey,
  options: RotationOptions = {},
): Promise<{ resealed: number }> {
  const meta = storage.collection<KeyringMeta>('meta')
  const keyId = Keyring.idOf(newKey)
  const marked = (await meta.get(KEYRING_RECORD.id))?.rotatingTo
  if (marked !== undefined && marked !== keyId) {
    throw new KeyringError(`a master-key rotation to key ${marked} is unfinished: finish it (rotate to that key) before another`)
  }
  // Checked before the mark, so that a refusal leaves running processes alone; and after it, for a process starting meanwhile.
  await assertNoOtherSealers(storage, keyId, options)
  if (marked === undefined) {
    await meta.update(KEYRING_RECORD.id, { rotatingTo: keyId })
    try {
      await assertNoOtherSealers(storage, keyId, options)
    } catch (err) {
      await meta.update(KEYRING_RECORD.id, { rotatingTo: undefined })
      throw err
    }
  }
  keyring.useKey(newKey)
  // This process's own heartbeat may have seen the mark before it held the key.
  keyring.fence(undefined)
  const ordered = [...specs.filter((c) => c.name !== 'meta'), ...specs.filter((c) => c.name === 'meta')]
  const result = await resealAll(storage, keyring, ordered, options.onProgress)
  // A process cut off from the storage for longer than STALE_MS, come back: its secrets may be sealed under the old key.
  await assertNoOtherSealers(storage, keyId, options)
  const record = await meta.get(KEYRING_RECORD.id)
  if (record && Keyring.keyIdOf(record.check) === keyring.currentKeyId) {
    await storage.transaction(async (tx) => {
      // Data keys the HSM wraps that nothing is sealed with any more are forgotten (the token keys stay: see docs/keys.md).
      const kept = record.hsmWrapped?.filter((entry) => entry.keyId === keyring.currentKeyId)
      const hsmWrapped = record.hsmWrapped === undefined ? {} : { hsmWrapped: kept?.length ? kept : undefined }
      await tx.collection<KeyringMeta>('meta').update(KEYRING_RECORD.id, { rotatingTo: undefined, ...hsmWrapped })
      // A run that found everything under the new key already (a finished rotation run again) rotated nothing.
      if (marked !== undefined || result.resealed > 0) await options.journal?.(tx, keyring.currentKeyId)
    })
    keyring.dropOldKeys()
  }
  return result
}
