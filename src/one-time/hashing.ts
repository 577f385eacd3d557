/**
 * The keyed hash that names a one-time value in storage: HMAC-SHA-256 under a 32-byte key held
 * as the API-key hashing key is (`auth/api-keys.ts`): random, sealed by the keyring under the
 * master key in `meta/oneTimeHashing` (field `hmacKey`, a declared secret field, so master-key
 * rotation reseals it). No second master secret; a copy of the database without the master key
 * cannot test guesses of a code or nonce offline.
 */
import { createHmac, randomBytes } from 'node:crypto'
import type { Keyring } from '../keys/keyring.js'
import { secretContext } from '../keys/secret-context.js'
import type { MetaRecord } from '../custody/records.js'
import { UniqueConstraintError, type StorageAdapter } from '../storage/port.js'

const HASHING_RECORD = { tenantId: '_system', id: 'oneTimeHashing' }

interface HashingMeta extends MetaRecord {
  /** Envelope of the HMAC key. */
  hmacKey: string
}

/** Hashes (tenant, kind, value) to a record id: base64url, 43 characters. */
export type OneTimeHasher = (tenantId: string, kind: string, value: string) => string

/** The hasher of the service's storage; the first process to start on a database creates its key. */
export async function oneTimeHasher(storage: StorageAdapter, keyring: Keyring): Promise<OneTimeHasher> {
  const key = await hashingKey(storage, keyring)
  // A JSON array, not a joined string: no tenant, kind or value containing a separator makes two inputs one.
  return (tenantId, kind, value) =>
    createHmac('sha256', key)
      .update(JSON.stringify([tenantId, kind, value]), 'utf8')
      .digest('base64url')
}

async function hashingKey(storage: StorageAdapter, keyring: Keyring): Promise<Buffer> {
  const meta = storage.collection<HashingMeta>('meta')
  const context = secretContext('meta', HASHING_RECORD, 'hmacKey')
  let record = await meta.get(HASHING_RECORD.id)
  if (!record) {
    const key = randomBytes(32)
    try {
      await meta.insert({ ...HASHING_RECORD, createdAt: Date.now(), hmacKey: keyring.seal(key, context) })
      return key
    } catch (err) {
      // Another process created it at the same moment: use theirs.
      if (!(err instanceof UniqueConstraintError)) throw err
      record = await meta.get(HASHING_RECORD.id)
      if (!record) throw err
    }
  }
  return Buffer.from(keyring.open(record.hmacKey, context))
}
