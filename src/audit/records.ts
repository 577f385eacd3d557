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

/** What an act's record says, appended or chained: the fields a query names are flat (`actorDids`, `targetId`). */
export interface AuditActFields {
  /** The chain: the tenant's id, or {@link SYSTEM_CHAIN}. */
  tenantId: string
  /** When, ms since the epoch (the service's clock). */
  time: number
  /** The id of the API key that authenticated the request (never the key). */
  apiKeyId?: string
  /** The DIDs the request's DID-auth tokens proved. */
  actorDids: string[]
  /** A part of the service that acted on its own (`publisher`); absent for a caller's or the operator's act. */
  actorSystem?: string
  action: string
  targetType: string
  /** An id or DID, never a secret; escaped like every identifier of a record (`text/escape.ts`). */
  targetId: string
  /** The role DID of an assignment (`assignment.grant`, `assignment.revoke`). */
  targetRole?: string
  /** OID4VCI: the offer a credential was issued by (`credential.issue`). */
  targetOffer?: string
  /** OID4VCI: RFC 7638 thumbprint of the holder key a credential is bound to (`credential.issue`). */
  targetHolderKey?: string
  /** OID4VCI: a wallet's notification event (`credential.notification`). */
  targetEvent?: string
  outcome: 'ok' | 'refused'
  /** The error type of a refused act. */
  error?: string
  /** The members whose approvals met an MPC quorum (`mpc.sign`, `mpc.initialize`). */
  approvals?: string[]
  requestId: string
}

/** One act in one chain, as stored. */
export interface AuditRecord extends StoredRecord, AuditActFields {
  /** 1, 2, 3… without gaps in its chain, in the order the sequencer chained the records. */
  seq: number
  prevHash: string
  /** sha256 (hex) of the canonical serialization of the record's entry without `hash` (see `hash.ts`). */
  hash: string
  createdAt: number
}

/**
 * One index: the chain in order (unique, so two sequencers giving the same seq cannot both commit).
 * Every act writes a record, so each index more is paid on every write (an SQLite adapter keeps one
 * per declared field besides): `GET /audit` filters a bounded scan of the chain instead.
 */
export const AUDIT_RECORDS = declareCollection<AuditRecord>({
  name: 'auditRecords',
  fields: ['tenantId', 'seq', 'createdAt'],
  indexes: [{ fields: ['tenantId', 'seq'], unique: true }],
})

/**
 * An act's record as the act's transaction appends it: committed with the act, not yet in the
 * chain. The sequencer (`sequencer.ts`) moves it into {@link AUDIT_RECORDS} shortly after, giving it
 * its seq and hashes; until then `audit verify` and `GET /audit` count it as lag.
 */
export interface AuditAppendRecord extends StoredRecord, AuditActFields {
  /**
   * The append number: unique and roughly ordered, from no shared row — the time, a nonce of the
   * process, a counter (`append-numbers.ts`). With `createdAt` (its time part) it orders the
   * records one sequencer run chains; it is not the seq.
   */
  id: string
  /** Always `appended`: the index the sweep finds every chain's waiting records by. */
  state: 'appended'
  /** The wall-clock time the append number was drawn at: ordered by it, then by id, records are in append-number order. */
  createdAt: number
}

/**
 * Appended records by chain in append order (what a sequencer run takes, how lag is counted), and
 * of all chains (what a sweep finds left behind).
 */
export const AUDIT_APPENDS = declareCollection<AuditAppendRecord>({
  name: 'auditAppends',
  fields: ['tenantId', 'state', 'createdAt'],
  indexes: [{ fields: ['tenantId', 'createdAt'] }, { fields: ['state', 'createdAt'] }],
})

/**
 * The last record of a chain: advanced only by a sequencer, in the transaction that chains records,
 * and only from the value that sequencer read (so two sequencers never fork a chain). No act's
 * transaction touches it.
 */
export interface AuditHeadRecord extends StoredRecord {
  /** = the chain (`tenantId`). */
  id: string
  tenantId: string
  /** The last chained seq. */
  seq: number
  /** The hash of record `seq` (heads written before chaining moved to the sequencer lack it). */
  hash?: string
  createdAt: number
}

export const AUDIT_HEADS = declareCollection<AuditHeadRecord>({
  name: 'auditHeads',
  fields: ['tenantId', 'createdAt'],
  indexes: [],
})
