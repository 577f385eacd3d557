/**
 * One-time values: the record and its collection declaration (fields and indexes checked against
 * the record type by the compiler). A record never holds its value: its id is the value's keyed
 * hash (see `hashing.ts`).
 */
import { declareCollection } from '../storage/declaration.js'
import type { StoredRecord } from '../storage/port.js'

/** What a one-time value is (part of its hash: a value of one kind never answers for another). */
export type OneTimeKind =
  | 'pre-auth-code'
  | 'auth-code'
  | 'par'
  | 'access-token'
  | 'c-nonce'
  | 'dpop-jti'
  | 'offer'
  | 'tx-code'
  | 'login-jti'
  | 'login-request'
  | 'notification'
  | 'issuer-state'
  | 'refresh-token'
  | 'oid4vp-answer'
  | 'oid4vp-response-code'
  | 'oid4vp-wallet-nonce'

/** JSON a value carries for its consumer: never a secret (the value itself is the secret). */
export type OneTimeData = Record<string, unknown>

export interface OneTimeRecord extends StoredRecord {
  /** base64url of HMAC-SHA-256 over (tenant, kind, value) under the service's one-time hashing key. */
  id: string
  tenantId: string
  kind: OneTimeKind
  /** UNIX ms; at or after it the value is absent for every operation, and the sweep deletes it. */
  expiresAt: number
  /** Failed tries counted by `attempt`. */
  attempts: number
  data?: OneTimeData
  createdAt: number
}

export const ONE_TIME = declareCollection<OneTimeRecord>({
  name: 'one_time',
  fields: ['tenantId', 'expiresAt', 'createdAt'],
  indexes: [
    // The sweep: the values expired first, of every tenant.
    { fields: ['expiresAt'] },
    // Clearing one tenant's expired value before its hash is taken again.
    { fields: ['tenantId', 'expiresAt'] },
    { fields: ['tenantId', 'createdAt'] },
  ],
})
