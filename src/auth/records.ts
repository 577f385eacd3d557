/**
 * API keys (Base Auth Tokens), stored as keyed hashes only: the records and their collection
 * declarations (fields and indexes checked against the record types by the compiler).
 */
import { declareCollection } from '../storage/declaration.js'
import type { StoredRecord } from '../storage/port.js'

export interface ApiKeyRecord extends StoredRecord {
  tenantId: string
  /** HMAC-SHA-256 of the key's SHA-256 under the sealed hashing key, hex (see auth/api-keys). The key itself is never stored. */
  hash: string
  /** `hmac-sha256`; absent on rows of earlier releases (plain SHA-256), which are migrated on start. */
  scheme?: string
  label?: string
  createdAt: number
  /** Last authentication with the key, ms (written at most once a minute). */
  lastUsedAt?: number
}

export const API_KEYS = declareCollection<ApiKeyRecord>({
  name: 'apiKeys',
  fields: ['tenantId', 'createdAt', 'hash', 'scheme'],
  indexes: [{ fields: ['hash'], unique: true }, { fields: ['tenantId', 'createdAt'] }, { fields: ['scheme', 'createdAt'] }],
})
