/**
 * Refusals by an operation's access policy (403 `FORBIDDEN`), as the audit acts the dispatcher
 * records for operations whose contract declares an `audit` action: the whole request's, or
 * the refused items of a batch (the `errors` of its 200). They change nothing else, so they
 * are recorded in a transaction of their own. Each names its target: the input's `targetField`,
 * or the item an error entry names (its id, or its position in the batch's items).
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

type Fields = Record<string, unknown>
/**
 * A batch item's error entry. By id: `did`, `_id`, `roleDid`, `wallet: { did }`, `assignment: { did, role }`. By
 * position in the batch's items (`index`, `claim`): the item there names its target.
 */
type ItemError = Fields & { error?: { errorType?: unknown }; assignment?: { did?: unknown; role?: unknown } }

/**
 * What an item (or error entry) names: a DID, a stored credential's `_id`, a role DID, a
 * credential `id`, or a status entry by list and index (`<statusListCredential>#<statusListIndex>`).
 */
function named(item: Fields): { id: unknown; role?: unknown } {
  if (item.assignment !== undefined && item.assignment !== null) {
    const { did, role } = item.assignment as Fields
    return { id: did, role }
  }
  if (item.wallet !== undefined && item.wallet !== null) return { id: (item.wallet as Fields).did }
  if (typeof item.statusListCredential === 'string') return { id: `${item.statusListCredential}#${String(item.statusListIndex)}` }
  const id = item.did ?? item._id ?? item.roleDid ?? item.id
  return { id: typeof id === 'string' ? id : undefined, ...(item.role !== undefined && { role: item.role }) }
}

/** The batch item an error entry points at by position (`index`, `claim`), in the first of the contract's batch fields. */
function itemAt(contract: Pick<OperationContract, 'batch'>, input: unknown, entry: ItemError): Fields | undefined {
  const position = entry.index ?? entry.claim
  const field = [contract.batch ?? []].flat()[0]
  if (typeof position !== 'number' || field === undefined) return undefined
  const items = (input as Fields | undefined)?.[field]
  const item = Array.isArray(items) ? (items[position] as unknown) : undefined
  return item !== null && typeof item === 'object' ? (item as Fields) : undefined
}

/** The refused items of a batch's result, each with the target its error entry names (directly, or by its position in `input`). */
export function itemRefusals(contract: Pick<OperationContract, 'audit' | 'batch'>, input: unknown, result: unknown): AuditAct[] {
  const { audit } = contract
  const errors = (result as { errors?: unknown } | undefined)?.errors
  if (!audit || !Array.isArray(errors)) return []
  return (errors as ItemError[])
    .filter((e) => e?.error?.errorType === 'FORBIDDEN')
    .map((e) => {
      const direct = named(e)
      const { id, role } = direct.id !== undefined ? direct : named(itemAt(contract, input, e) ?? {})
      return refused(audit, id, role)
    })
}
