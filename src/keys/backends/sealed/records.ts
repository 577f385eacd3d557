/** The sealed backend's records: one per key, its private key an envelope under the keyring. */
import { declareCollection, tenantCollectionOf } from '../../../storage/declaration.js'
import type { StorageAdapter, StoredRecord } from '../../../storage/port.js'
import type { BbsKeyType, BbsPublicJwk, KeyType, PublicJwk } from '../../key-types.js'

export interface SealedKeyRecord extends StoredRecord {
  /** {@link sealedKeyId} of the tenant and thumbprint: the same key held by two tenants is two records. */
  id: string
  tenantId: string
  /** The key's JWK thumbprint (RFC 7638): the id part of its reference `sealed:<thumbprint>`. */
  thumbprint: string
  type: KeyType | BbsKeyType
  publicJwk: PublicJwk | BbsPublicJwk
  /** The private key (for Bls12381G2, the 32-byte BBS secret key), sealed by the keyring and bound to this record (never plaintext). */
  privateKey: string
  /** The derivation path of a key derived from a BIP44 vault's secrets (`m/44'/60'/0'/0/3`); absent for generated keys. */
  path?: string
  createdAt: number
}

export const SEALED_KEYS = declareCollection<SealedKeyRecord>({
  name: 'keys',
  fields: ['tenantId', 'createdAt'],
  indexes: [],
  secretFields: ['privateKey'],
  // Read by every signature, written rarely: kept in memory where the adapter can (docs/storage.md *Read cache*).
  cached: true,
})

/** The record id of a tenant's key: base64url of the tenant id, a dot, the thumbprint (neither part can contain the other's separator). */
export function sealedKeyId(tenantId: string, thumbprint: string): string {
  return `${Buffer.from(tenantId, 'utf8').toString('base64url')}.${thumbprint}`
}

/**
 * The envelopes of the tenant's sealed keys among `keyRefs` (`sealed:<thumbprint>`), by
 * reference: what vault responses show as a wallet's `privateKeyHex` (never the plaintext).
 * References of other backends, and keys the tenant does not hold, are absent.
 */
export async function sealedEnvelopes(storage: StorageAdapter, tenantId: string, keyRefs: readonly string[]): Promise<Map<string, string>> {
  const keys = tenantCollectionOf(storage, SEALED_KEYS, tenantId)
  const sealed = [...new Set(keyRefs.filter((ref) => ref.startsWith('sealed:')))]
  const records = await Promise.all(sealed.map((ref) => keys.get(sealedKeyId(tenantId, ref.slice('sealed:'.length)))))
  return new Map(records.flatMap((r, i) => (r ? [[sealed[i], r.privateKey] as const] : [])))
}
