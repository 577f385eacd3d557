/**
 * The service's own settings (`meta`): one record per setting, its id the setting's name — the
 * keyring's check record, the API-key hashing key. Declared with its collection (fields checked
 * against the record type by the compiler).
 */
import { declareCollection } from '../storage/declaration.js'
import type { StoredRecord } from '../storage/port.js'

export interface MetaRecord extends StoredRecord {
  tenantId: string
  createdAt: number
  /** `keyring`: the envelope of a known plaintext, opened at start-up to check the master key. */
  check?: string
  /** `apiKeyHashing`: the envelope of the API-key hashing key. */
  hmacKey?: string
  [field: string]: unknown
}

export const META = declareCollection<MetaRecord>({
  name: 'meta',
  fields: ['tenantId', 'createdAt'],
  indexes: [],
  secretFields: ['check', 'hmacKey'],
})
