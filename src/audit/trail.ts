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

/** The trail kept in the service's storage: `auditRecords`, and one `auditHeads` record (the last seq) per chain. */
export class StoredAuditTrail implements AuditTrail {
  /** Chains whose head this process has seen committed (heads are never deleted). */
  readonly #known = new Set<string>()

  constructor(
    private readonly storage: StorageAdapter,
    private readonly now: () => number,
  ) {}

  async append(tx: StorageAdapter, actor: AuditActor, acts: readonly AuditAct[]): Promise<void> {
    if (acts.length === 0) return
    const chain = actor.tenantId
    const time = this.now()
    // The head first, with one atomic increment: concurrent appends of the chain wait on it (on
    // PostgreSQL the later one gets a serialization failure and its transaction is run again), so
    // seqs are handed out once, in commit order. Then the record before them, for its hash.
    const last = await this.#nextSeq(tx, chain, acts.length, time)
    let seq = last - acts.length
    let prevHash = seq === 0 ? GENESIS_HASH : await hashOfRecord(tx, chain, seq)
    const requestId = actor.requestId ?? randomUUID()
    const records = acts.map((act): AuditRecord => {
      seq += 1
      const record: AuditRecord = {
        id: recordId(chain, seq),
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
    await collectionOf(tx, AUDIT_RECORDS).insertMany(records)
  }

  /**
   * Adds `count` to the chain head's `seq` — creating the head at the chain's first append —
   * and returns the new last seq. A head is looked for only until this process has seen it.
   */
  async #nextSeq(tx: StorageAdapter, chain: string, count: number, time: number): Promise<number> {
    const heads = collectionOf(tx, AUDIT_HEADS)
    if (!this.#known.has(chain)) {
      if (!(await heads.get(chain))) {
        await heads.insert({ id: chain, tenantId: chain, seq: count, createdAt: time })
        return count
      }
      this.#known.add(chain)
    }
    return heads.increment(chain, 'seq', count)
  }

  record(actor: AuditActor, acts: readonly AuditAct[]): Promise<void> {
    return this.storage.transaction((tx) => this.append(tx, actor, acts))
  }
}

/** The id of record `seq` of `chain`. */
export const recordId = (chain: string, seq: number) => `${chain}:${seq}`

/** Most waits for the record before an append (see {@link hashOfRecord}). */
const PREVIOUS_RECORD_WAITS = 100

/**
 * The hash of record `seq` of `chain`. With real transactions it is committed before the next
 * seq can be handed out; on a storage whose transactions are atomic within one process only (a
 * standalone MongoDB's fallback mode), another process may still be writing it: it is waited for.
 */
async function hashOfRecord(tx: StorageAdapter, chain: string, seq: number): Promise<string> {
  const records = collectionOf(tx, AUDIT_RECORDS)
  for (let wait = 0; ; wait++) {
    const record = await records.get(recordId(chain, seq))
    if (record) return record.hash
    if (wait === PREVIOUS_RECORD_WAITS) throw new Error(`audit chain ${chain}: record ${seq} is missing`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/** The trail of a service started with `audit: false` (benches measuring its cost): records nothing. */
export const NO_AUDIT_TRAIL: AuditTrail = {
  append: async () => {},
  record: async () => {},
}
