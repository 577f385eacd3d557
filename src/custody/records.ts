/**
 * The service's own records (`meta`): one record per setting, its id the setting's name — the
 * keyring's check record, the API-key hashing key, the one-time values' hashing key
 * (`oneTimeHashing`) —, and a few small records of the service's bookkeeping, named by a prefix:
 * `instance:<id>` (a serving process, `instances.ts`) and `apiKeyRevoked:<keyed hash>` (a revoked
 * API key, `auth/api-keys.ts`). Declared with its collection (fields checked against the record
 * type by the compiler).
 */
import { declareCollection } from '../storage/declaration.js'
import type { StoredRecord } from '../storage/port.js'

export interface MetaRecord extends StoredRecord {
  tenantId: string
  createdAt: number
  /** `keyring`: the envelope of a known plaintext, opened at start-up to check the master key. */
  check?: string
  /** `apiKeyHashing`, `oneTimeHashing`: the envelope of the API-key (one-time values') hashing key. */
  hmacKey?: string
  [field: string]: unknown
}

export const META = declareCollection<MetaRecord>({
  name: 'meta',
  fields: ['tenantId', 'createdAt'],
  indexes: [],
  secretFields: ['check', 'hmacKey'],
})
