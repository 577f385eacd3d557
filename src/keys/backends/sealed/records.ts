/** The sealed backend's records: one per key, its private key an envelope under the keyring. */
import { declareCollection } from '../../../storage/declaration.js'
import type { StoredRecord } from '../../../storage/port.js'
import type { KeyType, PublicJwk } from '../../key-types.js'

export interface SealedKeyRecord extends StoredRecord {
  /** {@link sealedKeyId} of the tenant and thumbprint: the same key held by two tenants is two records. */
  id: string
  tenantId: string
  /** The key's JWK thumbprint (RFC 7638): the id part of its reference `sealed:<thumbprint>`. */
  thumbprint: string
  type: KeyType
  publicJwk: PublicJwk
  /** The private key, sealed by the keyring and bound to this record (never plaintext). */
  privateKey: string
  createdAt: number
}

export const SEALED_KEYS = declareCollection<SealedKeyRecord>({
  name: 'keys',
  fields: ['tenantId', 'createdAt'],
  indexes: [],
  secretFields: ['privateKey'],
})

/** The record id of a tenant's key: base64url of the tenant id, a dot, the thumbprint (neither part can contain the other's separator). */
export function sealedKeyId(tenantId: string, thumbprint: string): string {
  return `${Buffer.from(tenantId, 'utf8').toString('base64url')}.${thumbprint}`
}
