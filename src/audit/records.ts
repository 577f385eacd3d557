/**
 * The audit trail: its records and chain heads, and their collection declarations (fields and
 * indexes checked against the record types by the compiler). docs/operations.md *Audit trail*.
 */
import { declareCollection } from '../storage/declaration.js'
import type { StoredRecord } from '../storage/port.js'
import { SYSTEM_TENANT } from '../auth/tenants.js'

/**
 * The chain of acts of no tenant (master-key rotation, API keys): a tenant id no tenant can
 * have (tenant ids never start with `@`; the authenticator refuses a resolver naming it).
 */
export const SYSTEM_CHAIN = SYSTEM_TENANT

/** `prevHash` of a chain's first record. */
export const GENESIS_HASH = '0'.repeat(64)

/** One act in one chain, as stored: the fields a query names are flat (`actorDids`, `targetId`). */
export interface AuditRecord extends StoredRecord {
  /** The chain: the tenant's id, or {@link SYSTEM_CHAIN}. */
  tenantId: string
  /** 1, 2, 3… without gaps in its chain. */
  seq: number
  /** When, ms since the epoch. */
  time: number
  /** The id of the API key that authenticated the request (never the key). */
  apiKeyId?: string
  /** The DIDs the request's DID-auth tokens proved. */
  actorDids: string[]
  action: string
  targetType: string
  /** An id or DID, never a secret. */
  targetId: string
  /** The role DID of an assignment (`assignment.grant`, `assignment.revoke`). */
  targetRole?: string
  outcome: 'ok' | 'refused'
  /** The error type of a refused act. */
  error?: string
  /** The members whose approvals met an MPC quorum (`mpc.sign`, `mpc.initialize`). */
  approvals?: string[]
  requestId: string
  prevHash: string
  /** sha256 (hex) of the canonical serialization of the record's entry without `hash` (see `hash.ts`). */
  hash: string
  createdAt: number
}

/**
 * One index: the chain in order (unique, so two appends given the same seq cannot both commit).
 * Every act writes a record, so each index more is paid on every write (an SQLite adapter keeps one
 * per declared field besides): `GET /audit` filters a bounded scan of the chain instead.
 */
export const AUDIT_RECORDS = declareCollection<AuditRecord>({
  name: 'auditRecords',
  fields: ['tenantId', 'seq', 'createdAt'],
  indexes: [{ fields: ['tenantId', 'seq'], unique: true }],
})

/** The last seq of a chain: incremented first in the transaction of every append, so appends of a chain serialize on it. */
export interface AuditHeadRecord extends StoredRecord {
  /** = the chain (`tenantId`). */
  id: string
  tenantId: string
  seq: number
  createdAt: number
}

export const AUDIT_HEADS = declareCollection<AuditHeadRecord>({
  name: 'auditHeads',
  fields: ['tenantId', 'createdAt'],
  indexes: [],
})
