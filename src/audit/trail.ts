/**
 * The audit trail port the domains append through (`ctx.audit`): each act is appended to its
 * tenant's hash-chained trail inside the storage transaction of the act, so an act cannot commit
 * without its record, and concurrent acts of a tenant serialize on the chain's head.
 */
import { randomUUID } from 'node:crypto'
import type { StorageAdapter } from '../storage/port.js'
import { collectionOf } from '../storage/declaration.js'
import { hashOf } from './hash.js'
import { AUDIT_HEADS, AUDIT_RECORDS, GENESIS_HASH, type AuditRecord } from './records.js'
import type { AuditAction } from './schemas.js'

/** Who acted: a request's caller (an authenticated `Caller` is one), or the operator (system chain). */
export interface AuditActor {
  /** The chain the act goes to: the caller's tenant, or `SYSTEM_CHAIN`. */
  tenantId: string
  apiKeyId?: string
  dids: readonly string[]
  /** The request's id (`x-request-id`); one is generated when absent. */
  requestId?: string
}

/** What was done, to what (an id or DID, never a secret), and how it ended. */
export interface AuditAct {
  action: AuditAction
  /** `role`: the role DID of an assignment (whose `id` is the DID it is assigned to). */
  target: { type: string; id: string; role?: string }
  /** Default `ok`. */
  outcome?: 'ok' | 'refused'
  /** The error type of a refused act. */
  error?: string
  /** The members whose approvals met an MPC quorum. */
  approvals?: readonly string[]
}

/** Appends acts to the audit trail. */
export interface AuditTrail {
  /** Appends `acts` (in order) to `actor`'s chain through `tx`, the transaction of the acts. */
  append(tx: StorageAdapter, actor: AuditActor, acts: readonly AuditAct[]): Promise<void>
  /** Appends `acts` in a transaction of their own (refusals, and acts whose writes are not in the storage). */
  record(actor: AuditActor, acts: readonly AuditAct[]): Promise<void>
}

/** The trail kept in the service's storage: `auditRecords`, and one `auditHeads` record per chain. */
export class StoredAuditTrail implements AuditTrail {
  constructor(
    private readonly storage: StorageAdapter,
    private readonly now: () => number,
  ) {}

  async append(tx: StorageAdapter, actor: AuditActor, acts: readonly AuditAct[]): Promise<void> {
    if (acts.length === 0) return
    const chain = actor.tenantId
    const heads = collectionOf(tx, AUDIT_HEADS)
    const head = await heads.get(chain)
    const time = this.now()
    const requestId = actor.requestId ?? randomUUID()
    let seq = head?.seq ?? 0
    let prevHash = head?.hash ?? GENESIS_HASH
    const records = acts.map((act): AuditRecord => {
      seq += 1
      const record: AuditRecord = {
        id: `${chain}:${seq}`,
        tenantId: chain,
        seq,
        time,
        actorDids: [...actor.dids],
        action: act.action,
        targetType: act.target.type,
        targetId: act.target.id,
        outcome: act.outcome ?? 'ok',
        requestId,
        prevHash,
        hash: '',
        createdAt: time,
      }
      if (actor.apiKeyId !== undefined) record.apiKeyId = actor.apiKeyId
      if (act.target.role !== undefined) record.targetRole = act.target.role
      if (act.error !== undefined) record.error = act.error
      if (act.approvals !== undefined) record.approvals = [...act.approvals]
      record.hash = prevHash = hashOf(record)
      return record
    })
    // The head is written before the records: a concurrent append of the chain then waits on the
    // head (and PostgreSQL reports a serialization failure, retried) instead of colliding on a record's seq.
    if (head) await heads.update(chain, { seq, hash: prevHash })
    else await heads.insert({ id: chain, tenantId: chain, seq, hash: prevHash, createdAt: time })
    await collectionOf(tx, AUDIT_RECORDS).insertMany(records)
  }

  record(actor: AuditActor, acts: readonly AuditAct[]): Promise<void> {
    return this.storage.transaction((tx) => this.append(tx, actor, acts))
  }
}

/** The trail of a service started with `audit: false` (benches measuring its cost): records nothing. */
export const NO_AUDIT_TRAIL: AuditTrail = {
  append: async () => {},
  record: async () => {},
}
