/**
 * The audit trail port the domains append through (`ctx.audit`): each act appends its record to
 * its tenant's trail inside the storage transaction of the act, so an act cannot commit without
 * its record. The act's transaction touches no row shared by the tenant's other acts: it inserts
 * the record with an append number (`append-numbers.ts`), and the sequencer (`sequencer.ts`)
 * hash-chains committed records shortly after.
 */
import { randomUUID } from 'node:crypto'
import type { StorageAdapter } from '../storage/port.js'
import { collectionOf } from '../storage/declaration.js'
import { AppendNumbers, timeOfAppendNumber } from './append-numbers.js'
import { chainLag, type ChainLag } from './lag.js'
import { AUDIT_APPENDS, type AuditAppendRecord } from './records.js'
import type { AuditAction } from './schemas.js'
import { AuditSequencer, type AuditChainingOptions } from './sequencer.js'

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
  /** Chains `chain`'s committed records now (about `max` at most; others left to another sequencer stay lag). */
  chainPending(chain: string, max: number): Promise<void>
  /** `chain`'s committed records not chained yet; undefined when there are none. */
  lag(chain: string): Promise<ChainLag | undefined>
}

/**
 * The trail kept in the service's storage: records appended to `auditAppends` by the acts'
 * transactions, chained into `auditRecords` (and the chain's `auditHeads` record) by its sequencer.
 * Tell it of each committed top-level transaction ({@link committed}): the service's storage does
 * (`afterCommits`).
 */
export class StoredAuditTrail implements AuditTrail {
  readonly #numbers = new AppendNumbers()
  readonly #sequencer: AuditSequencer

  constructor(
    private readonly storage: StorageAdapter,
    private readonly now: () => number,
    options: AuditChainingOptions & { onError?: (operation: string, error: unknown) => void } = {},
  ) {
    this.#sequencer = new AuditSequencer(storage, options.onError ?? (() => undefined), options)
  }

  async append(tx: StorageAdapter, actor: AuditActor, acts: readonly AuditAct[]): Promise<void> {
    if (acts.length === 0) return
    const chain = actor.tenantId
    const time = this.now()
    const requestId = actor.requestId ?? randomUUID()
    const records = acts.map((act): AuditAppendRecord => {
      const append = this.#numbers.next()
      const record: AuditAppendRecord = {
        id: append,
        tenantId: chain,
        state: 'appended',
        time,
        actorDids: [...actor.dids],
        action: act.action,
        targetType: act.target.type,
        targetId: act.target.id,
        outcome: act.outcome ?? 'ok',
        requestId,
        createdAt: timeOfAppendNumber(append),
      }
      if (actor.apiKeyId !== undefined) record.apiKeyId = actor.apiKeyId
      if (act.target.role !== undefined) record.targetRole = act.target.role
      if (act.error !== undefined) record.error = act.error
      if (act.approvals !== undefined) record.approvals = [...act.approvals]
      return record
    })
    this.#sequencer.appended(chain)
    await collectionOf(tx, AUDIT_APPENDS).insertMany(records)
  }

  async record(actor: AuditActor, acts: readonly AuditAct[]): Promise<void> {
    await this.storage.transaction((tx) => this.append(tx, actor, acts))
    this.committed()
  }

  /** A top-level transaction committed: what it appended is chained shortly (`delayMs`). */
  committed(): void {
    this.#sequencer.committed()
  }

  async chainPending(chain: string, max: number): Promise<void> {
    await this.#sequencer.chain(chain, max)
  }

  lag(chain: string): Promise<ChainLag | undefined> {
    return chainLag(this.storage, chain)
  }

  /** Chains now every record this process appended, and any other committed record left unchained. */
  flush(): Promise<void> {
    return this.#sequencer.flush()
  }

  /** Stops the sequencer's timers after chaining what is pending (a failure goes to `onError`). */
  close(): Promise<void> {
    return this.#sequencer.close()
  }
}

/** The trail of a service started with `audit: false` (benches measuring its cost): records nothing. */
export const NO_AUDIT_TRAIL: AuditTrail = {
  append: async () => {},
  record: async () => {},
  chainPending: async () => {},
  lag: async () => undefined,
}
