/**
 * The keyed hash that names a one-time value in storage: HMAC-SHA-256 under a 32-byte key held
 * as the API-key hashing key is (`auth/api-keys.ts`): random, sealed by the keyring under the
 * master key in `meta/oneTimeHashing` (field `hmacKey`, a declared secret field, so master-key
 * rotation reseals it). No second master secret; a copy of the database without the master key
 * cannot test guesses of a code or nonce offline. The same key, through HKDF, seals the values the
 * service hands out instead of storing (`sealing.ts`).
 */
import { createHmac } from 'node:crypto'
import { sealedHashingKey } from '../custody/hashing-key.js'
import type { Keyring } from '../keys/keyring.js'
import type { StorageAdapter } from '../storage/port.js'
import { sealerOf, type OneTimeSealer } from './sealing.js'

const HASHING_RECORD_ID = 'oneTimeHashing'

/** Hashes (tenant, kind, value) to a record id: base64url, 43 characters. */
export type OneTimeHasher = (tenantId: string, kind: string, value: string) => string

/** The hasher of a 32-byte key. */
export function hasherOf(key: Uint8Array): OneTimeHasher {
  // A JSON array, not a joined string: no tenant, kind or value containing a separator makes two inputs one.
  return (tenantId, kind, value) =>
    createHmac('sha256', key)
      .update(JSON.stringify([tenantId, kind, value]), 'utf8')
      .digest('base64url')
}

/** The hasher and the sealer of the service's storage (one key); the first process to start on a database creates it. */
export async function oneTimeKeys(storage: StorageAdapter, keyring: Keyring): Promise<{ hash: OneTimeHasher; sealer: OneTimeSealer }> {
  const key = await sealedHashingKey(storage, keyring, HASHING_RECORD_ID)
  return { hash: hasherOf(key), sealer: sealerOf(key) }
}
