/**
 * The audit trail port the domains append through (`ctx.audit`): each act appends its record to
 * its tenant's trail inside the storage transaction of the act, so an act cannot commit without
 * its record. The act's transaction touches no row shared by the tenant's other acts: it inserts
 * the record with an append number (`append-numbers.ts`), and the sequencer (`sequencer.ts`)
 * hash-chains committed records shortly after.
 */
import { randomUUID } from 'node:crypto'
import type { CollectionWrite, StorageAdapter } from '../storage/port.js'
import { AppendNumbers, timeOfAppendNumber } from './append-numbers.js'
import { chainLag, type ChainLag } from './lag.js'
import { escapeText } from '../text/escape.js'
import { AUDIT_APPENDS, type AuditAppendRecord } from './records.js'
import type { AuditAction } from './schemas.js'
import { AuditSequencer, type AuditChainingOptions } from './sequencer.js'

/** Who acted: a request's caller (an authenticated `Caller` is one), the operator (system chain), or a part of the service. */
export interface AuditActor {
  /** The chain the act goes to: the caller's tenant, or `SYSTEM_CHAIN`. */
  tenantId: string
  apiKeyId?: string
  dids: readonly string[]
  /**
   * A part of the service acting on its own ({@link systemActor}): `publisher`, the status-list
   * publisher signing a changed list (for its timer or for an unauthenticated `GET /status/:listId`).
   */
  system?: AuditSystem
  /** The request's id (`x-request-id`); one is generated when absent. */
  requestId?: string
}

/** The parts of the service that sign on their own, without a caller. */
export type AuditSystem = 'publisher' | 'config'

/**
 * The actor of a signature the service makes on its own in `tenantId`'s name. The hook for
 * signatures no authenticated caller asks for — the status-list publisher's, and later those an
 * unauthenticated protocol endpoint (OID4VC) triggers: such a signature is appended through the
 * transaction that stores the signed protocol object, and only when that transaction stores a new
 * one (a list's new version, a new offer…). So it is recorded once per protocol object, never per
 * fetch: a fetch that finds the object stored signs nothing and records nothing.
 */
export const systemActor = (tenantId: string, system: AuditSystem): AuditActor => ({ tenantId, dids: [], system })

/** What was done, to what (an id or DID, never a secret), and how it ended. */
export interface AuditAct {
  action: AuditAction
  /**
   * `role`: the role DID of an assignment (whose `id` is the DID it is assigned to); `offer`, `holderKey`, `event`: an
   * OID4VCI issuance's offer and holder key thumbprint, a wallet's notification event.
   */
  target: { type: string; id: string; role?: string; offer?: string; holderKey?: string; event?: string }
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
  /**
   * The append records of `acts` (in order), for the caller to write with the acts' own writes — one
   * `storage.insertAll` — instead of {@link append}: `actor`'s chain is noted as appended to, so the records are chained
   * once the write commits, as `append`'s are (the storage tells of the commit). Writes nothing.
   */
  appends(actor: AuditActor, acts: readonly AuditAct[]): CollectionWrite
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
    const { collection, records } = this.appends(actor, acts)
    await tx.collection(collection).insertMany(records)
  }

  appends(actor: AuditActor, acts: readonly AuditAct[]): CollectionWrite {
    if (acts.length === 0) return { collection: AUDIT_APPENDS.name, records: [] }
    const chain = actor.tenantId
    const time = this.now()
    // Identifiers come from signed content and requests: stored escaped, so the record (and what its hash covers) is what the trail shows.
    const requestId = escapeText(actor.requestId ?? randomUUID())
    const actorDids = actor.dids.map(escapeText)
    const records = acts.map((act): AuditAppendRecord => {
      const append = this.#numbers.next()
      const record: AuditAppendRecord = {
        id: append,
        tenantId: chain,
        state: 'appended',
        time,
        actorDids: [...actorDids],
        action: act.action,
        targetType: escapeText(act.target.type),
        targetId: escapeText(act.target.id),
        outcome: act.outcome ?? 'ok',
        requestId,
        createdAt: timeOfAppendNumber(append),
      }
      if (actor.apiKeyId !== undefined) record.apiKeyId = escapeText(actor.apiKeyId)
      if (actor.system !== undefined) record.actorSystem = actor.system
      if (act.target.role !== undefined) record.targetRole = escapeText(act.target.role)
      if (act.target.offer !== undefined) record.targetOffer = escapeText(act.target.offer)
      if (act.target.holderKey !== undefined) record.targetHolderKey = escapeText(act.target.holderKey)
      if (act.target.event !== undefined) record.targetEvent = escapeText(act.target.event)
      if (act.error !== undefined) record.error = act.error
      if (act.approvals !== undefined) record.approvals = act.approvals.map(escapeText)
      return record
    })
    this.#sequencer.appended(chain)
    return { collection: AUDIT_APPENDS.name, records }
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
  appends: () => ({ collection: AUDIT_APPENDS.name, records: [] }),
  record: async () => {},
  chainPending: async () => {},
  lag: async () => undefined,
}
