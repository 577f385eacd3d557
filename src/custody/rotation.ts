/**
 * Master-key rotation: every envelope not sealed under the current key is resealed under
 * it, record by record. Interrupted, it resumes where it stopped when run again (start the
 * service with the new key as `masterKey` and the old one in `previousMasterKeys`).
 */
import type { CollectionSpec, StorageAdapter, StoredRecord } from '../storage/port.js'
import { secretContext } from '../keys/secret-context.js'
import { Keyring, type MasterKey } from '../keys/keyring.js'
import { KEYRING_RECORD, type KeyringMeta } from './keyring-store.js'

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

/**
 * Rotates to `newKey`: marks the rotation in `meta/keyring` first (so a restart without the
 * new key refuses to start instead of failing later on resealed secrets), reseals every
 * envelope, the check envelope last, then clears the mark and forgets the old keys. `journal`
 * runs in the transaction that clears the mark (the service records the rotation there).
 */
export async function rotateMasterKey(
  storage: StorageAdapter,
  keyring: Keyring,
  specs: readonly CollectionSpec[],
  newKey: MasterKey,
  onProgress?: (p: RotationProgress) => void,
  journal: (tx: StorageAdapter, keyId: string) => Promise<void> = async () => {},
): Promise<{ resealed: number }> {
  const meta = storage.collection<KeyringMeta>('meta')
  await meta.update(KEYRING_RECORD.id, { rotatingTo: Keyring.idOf(newKey) })
  keyring.useKey(newKey)
  const ordered = [...specs.filter((c) => c.name !== 'meta'), ...specs.filter((c) => c.name === 'meta')]
  const result = await resealAll(storage, keyring, ordered, onProgress)
  const record = await meta.get(KEYRING_RECORD.id)
  if (record && Keyring.keyIdOf(record.check) === keyring.currentKeyId) {
    await storage.transaction(async (tx) => {
      await tx.collection<KeyringMeta>('meta').update(KEYRING_RECORD.id, { rotatingTo: undefined })
      await journal(tx, keyring.currentKeyId)
    })
    keyring.dropOldKeys()
  }
  return result
}
