/**
 * A service-wide HMAC key kept in `meta` (field `hmacKey`, a declared secret field: master-key rotation reseals it):
 * 32 random bytes sealed by the keyring under the master key, created by the first process to start on a database.
 * The API-key hashes (`meta/apiKeyHashing`) and the one-time values' ids (`meta/oneTimeHashing`) each have one.
 */
import { randomBytes } from 'node:crypto'
import type { Keyring } from '../keys/keyring.js'
import { secretContext } from '../keys/secret-context.js'
import { UniqueConstraintError, type StorageAdapter } from '../storage/port.js'
import type { MetaRecord } from './records.js'

interface HashingMeta extends MetaRecord {
  /** Envelope of the HMAC key. */
  hmacKey: string
}

/** The HMAC key of `meta/<id>`, made and sealed when missing (another process making it at the same moment: theirs). */
export async function sealedHashingKey(storage: StorageAdapter, keyring: Keyring, id: string): Promise<Buffer> {
  const meta = storage.collection<HashingMeta>('meta')
  const at = { tenantId: '_system', id }
  const context = secretContext('meta', at, 'hmacKey')
  let record = await meta.get(id)
  if (!record) {
    const key = randomBytes(32)
    try {
      await meta.insert({ ...at, createdAt: Date.now(), hmacKey: keyring.seal(key, context) })
      return key
    } catch (err) {
      if (!(err instanceof UniqueConstraintError)) throw err
      record = await meta.get(id)
      if (!record) throw err
    }
  }
  return Buffer.from(keyring.open(record.hmacKey, context))
}
