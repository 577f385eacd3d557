/**
 * Refusals by an operation's access policy (403 `FORBIDDEN`), as the audit acts the dispatcher
 * records for operations whose contract declares an `audit` action: the whole request's, or
 * the refused items of a batch (the `errors` of its 200). They change nothing else, so they
 * are recorded in a transaction of their own.
 */
import type { AuditAct } from '../audit/trail.js'
import type { AuditAction } from '../audit/schemas.js'
import { IdentityError } from '../errors.js'
import type { OperationContract } from '../operations/contract.js'

type Audit = NonNullable<OperationContract['audit']>

const refused = (audit: Audit, id: unknown, role?: unknown): AuditAct => ({
  action: audit.action as AuditAction,
  target: { type: audit.target, id: typeof id === 'string' ? id : '', ...(typeof role === 'string' && { role }) },
  outcome: 'refused',
  error: 'FORBIDDEN',
})

/** The refusal of a whole request: its target is the input's `targetField` (possibly nested: `wallet.did`). */
export function requestRefusal(audit: Audit | undefined, input: unknown, err: unknown): AuditAct[] {
  if (!audit || !(err instanceof IdentityError) || err.errorType !== 'FORBIDDEN') return []
  const id = audit.targetField?.split('.').reduce<unknown>((v, key) => (v as Record<string, unknown> | undefined)?.[key], input)
  return [refused(audit, id)]
}

/** A batch item's error entry: `{ did | _id | assignment | wallet | claim | index, error }`. */
type ItemError = { error?: { errorType?: unknown }; did?: unknown; _id?: unknown; assignment?: { did?: unknown; role?: unknown } }

/** The refused items of a batch's result, each with the id its error entry names. */
export function itemRefusals(audit: Audit | undefined, result: unknown): AuditAct[] {
  const errors = (result as { errors?: unknown } | undefined)?.errors
  if (!audit || !Array.isArray(errors)) return []
  return (errors as ItemError[])
    .filter((e) => e?.error?.errorType === 'FORBIDDEN')
    .map((e) => refused(audit, e.did ?? e._id ?? e.assignment?.did, e.assignment?.role))
}
