/**
 * The `hsm` backend's records (collection `hsm_keys`): one per key a tenant holds in the PKCS#11 token — the
 * token object's CKA_ID and CKA_LABEL, the key type and the public JWK read from the token. No private key
 * material: it never leaves the token. This module loads no PKCS#11 binding, so the service can declare the
 * collection without `pkcs11js`.
 */
import { createHash } from 'node:crypto'
import { declareCollection } from '../../../storage/declaration.js'
import type { StoredRecord } from '../../../storage/port.js'
import type { KeyType, PublicJwk } from '../../key-types.js'

export interface HsmKeyRecord extends StoredRecord {
  /** {@link hsmKeyRecordId} of the tenant and key id. */
  id: string
  tenantId: string
  /** The token objects' CKA_ID, hex (16 random bytes): the id part of the key's reference `hsm:<keyId>`. */
  keyId: string
  type: KeyType
  publicJwk: PublicJwk
  /** The token objects' CKA_LABEL: `didvault:<tenant hash>:<keyId>` ({@link hsmKeyLabel}). */
  label: string
  createdAt: number
}

export const HSM_KEYS = declareCollection<HsmKeyRecord>({
  name: 'hsm_keys',
  fields: ['tenantId', 'createdAt'],
  indexes: [],
})

/** The record id of a tenant's key: base64url of the tenant id, a dot, the CKA_ID hex. */
export function hsmKeyRecordId(tenantId: string, keyId: string): string {
  return `${Buffer.from(tenantId, 'utf8').toString('base64url')}.${keyId}`
}

/** The CKA_LABEL of a tenant's key: the tenant is named by a hash (16 hex of SHA-256), so the token's listing shows no tenant ids. */
export function hsmKeyLabel(tenantId: string, keyId: string): string {
  return `didvault:${createHash('sha256').update(tenantId, 'utf8').digest('hex').slice(0, 16)}:${keyId}`
}

/** A CKA_ID as the backend writes it: 32 lowercase hex characters. */
export const HSM_KEY_ID = /^[0-9a-f]{32}$/
