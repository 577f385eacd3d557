/**
 * Role assignments: create, delete, list (DESIGN §4 "Role assignments", "Listing assignments").
 * Only a role's creator or the holder of its owner key assigns and unassigns it; assigning
 * twice is idempotent; removing what is not assigned is a per-item NOT_FOUND.
 *
 * A grant reaches only what its grantor may already write. Assigning a role to the DID of
 * stored credentials grants it over them, which also needs rights over that DID as it stands
 * before the grant (`canGovernCredentialDid`: its owner key, or a `Write` role already
 * governing it); otherwise the item is refused (403). Assigning a role to a wallet DID that no
 * stored credential carries makes the wallet a holder of the role; it governs credentials
 * later stored with that DID only when the grantor had rights over the DID.
 *
 * DIDs are stored and compared as principals (a did:ethr public-key DID in its address form):
 * both spellings of a key name the same assignment. Answers to a request echo its spelling.
 */
import { randomUUID } from 'node:crypto'
import type { z } from 'zod'
import { forbidden, notFound, type ErrorBody } from '../errors.js'
import { principalOf } from '../did/methods/ethr/index.js'
import type { Caller } from '../auth/context.js'
import { canManageRole } from './policy.js'
import { MAX_PAGE } from '../operations/schemas.js'
import type * as schemas from './schemas.js'
import type { AssignmentView } from './schemas.js'
import type { RoleAssignmentRecord, RoleRecord } from './records.js'
import { UniqueConstraintError, type OrderBy, type Where } from '../storage/port.js'
import { forEachItem } from '../operations/batch.js'
import { findRole, presentAssignment } from './views.js'
import { assignmentTarget } from './targets.js'
import { assertManagesRole, roleFacts } from './access.js'
import { ROLES, ROLE_ASSIGNMENTS } from './records.js'
import { tenantCollections } from '../storage/declaration.js'
import type { RolesContext } from './context.js'

type Item = { role: string; did: string }
type AssignmentsResult = { assignments: AssignmentView[]; errors: Array<{ assignment: Item; error: ErrorBody }> }

/** The roles of a batch, each looked up and checked once per request (a batch often names one role many times). */
function managedRoles(ctx: Pick<RolesContext, 'callers' | 'storage'>, caller: Caller): (did: string) => Promise<RoleRecord> {
  const { roles } = tenantCollections(ctx.storage, caller.tenantId, { roles: ROLES })
  const checked = new Map<string, Promise<RoleRecord>>()
  return (did) => {
    let role = checked.get(did)
    if (role === undefined) {
      role = findRole(roles, did).then(async (r) => {
        await assertManagesRole(ctx, caller, r)
        return r
      })
      checked.set(did, role)
    }
    return role
  }
}

const byPair = (role: string, did: string): Where => ({
  and: [
    { field: 'role', op: 'eq', value: role },
    { field: 'did', op: 'eq', value: did },
  ],
})

/** An assignment as the answer to `item` shows it: in the DIDs' spelling the request gave. */
const echoed = (record: RoleAssignmentRecord, item: Item): AssignmentView => ({
  ...presentAssignment(record),
  role: item.role,
  did: item.did,
})

/** Create Role Assignments: each `{ role, did }` assigned, or already assigned (idempotent), or reported in `errors`. */
export async function createRoleAssignments(
  ctx: Pick<RolesContext, 'audit' | 'callers' | 'now' | 'onError' | 'onItemFailure' | 'roleResources' | 'storage'>,
  caller: Caller,
  input: z.output<typeof schemas.roleAssignments>,
): Promise<AssignmentsResult> {
  const { roleAssignments } = tenantCollections(ctx.storage, caller.tenantId, { roleAssignments: ROLE_ASSIGNMENTS })
  const managed = managedRoles(ctx, caller)
  const { results, errors } = await forEachItem(
    ctx,
    caller,
    'assign role',
    input.assignments,
    async (item) => {
      const role = await managed(item.role)
      const did = principalOf(item.did)
      // Rights over the target DID as it stands before the grant (resolved outside the write).
      const governs = await ctx.roleResources.mayGovern(caller, did)
      const record: RoleAssignmentRecord = {
        id: randomUUID(),
        tenantId: caller.tenantId,
        role: role.did,
        did,
        roleCreator: role.creator,
        governsCredentials: governs,
        createdAt: ctx.now(),
      }
      try {
        // The role and the target are checked where the assignment is written: deleting either
        // (each one transaction, with its assignments) cannot leave an assignment behind.
        const stored = await ctx.storage.transaction(async (tx) => {
          const c = tenantCollections(tx, caller.tenantId, { roleAssignments: ROLE_ASSIGNMENTS, roles: ROLES })
          if (!(await c.roles.get(role.id))) throw notFound(`no role ${item.role}`)
          const target = await assignmentTarget(ctx.roleResources, tx, caller.tenantId, did)
          if (target === 'credential' && !governs) throw forbidden(refusedOverCredentials(item.did))
          const existing = await c.roleAssignments.findOne(byPair(role.did, did))
          if (existing && (existing.governsCredentials === true || !governs)) return existing
          const granted = [{ action: 'assignment.grant' as const, target: { type: 'assignment', id: did, role: role.did } }]
          await ctx.audit.append(tx, caller, granted)
          if (!existing) {
            await c.roleAssignments.insert(record)
            return record
          }
          // Assigned before as a holder's role; granted now by someone with rights over the DID.
          await c.roleAssignments.update(existing.id, { governsCredentials: true })
          return { ...existing, governsCredentials: true }
        })
        return echoed(stored, item)
      } catch (err) {
        // Assigned by a concurrent request in the meantime: the same outcome.
        const raced = err instanceof UniqueConstraintError ? await roleAssignments.findOne(byPair(role.did, did)) : undefined
        if (!raced) throw err
        return echoed(raced, item)
      }
    },
    (assignment, error) => ({ assignment, error }),
  )
  return { assignments: results, errors }
}

const refusedOverCredentials = (did: string) =>
  `${did} is the DID of stored credentials: granting a role over them needs write access to them as they stand ` +
  '(the owner key of that DID, or a role with Write already assigned to it and held by the caller)'

/** Delete Role Assignments (Access Token JWT): each assignment removed, or reported in `errors` (also when it was not there). */
export async function deleteRoleAssignments(
  ctx: Pick<RolesContext, 'audit' | 'callers' | 'onError' | 'onItemFailure' | 'storage'>,
  caller: Caller,
  input: z.output<typeof schemas.roleAssignments>,
): Promise<AssignmentsResult> {
  const { roleAssignments } = tenantCollections(ctx.storage, caller.tenantId, { roleAssignments: ROLE_ASSIGNMENTS })
  const managed = managedRoles(ctx, caller)
  const { results, errors } = await forEachItem(
    ctx,
    caller,
    'unassign role',
    input.assignments,
    async (item) => {
      const role = await managed(item.role)
      const existing = await roleAssignments.findOne(byPair(role.did, principalOf(item.did)))
      const revoked = [{ action: 'assignment.revoke' as const, target: { type: 'assignment', id: existing?.did ?? '', role: role.did } }]
      const deleted =
        existing !== undefined &&
        (await ctx.storage.transaction(async (tx) => {
          if (!(await tenantCollections(tx, caller.tenantId, { roleAssignments: ROLE_ASSIGNMENTS }).roleAssignments.delete(existing.id)))
            return false
          await ctx.audit.append(tx, caller, revoked)
          return true
        }))
      if (!deleted) throw notFound(`role ${item.role} is not assigned to ${item.did}`)
      return echoed(existing, item)
    },
    (assignment, error) => ({ assignment, error }),
  )
  return { assignments: results, errors }
}

/**
 * List role assignments (extension) by `role`, `did` or both, one page at a time. A caller
 * who may manage the role sees all of its assignments; otherwise only those to DIDs it acts
 * through, or — listing by `did` — those of roles it created or acts through. The DIDs the query
 * names are shown in its spelling; the others as stored (principals).
 */
export async function getRoleAssignments(
  ctx: Pick<RolesContext, 'callers' | 'storage'>,
  caller: Caller,
  q: z.output<typeof schemas.getRoleAssignmentsQuery>,
): Promise<{ assignments: AssignmentView[]; nextCursor?: string }> {
  const c = tenantCollections(ctx.storage, caller.tenantId, { roleAssignments: ROLE_ASSIGNMENTS, roles: ROLES })
  const facts = await ctx.callers.acting(caller)
  const dids = [...facts.dids]
  const filters: Where[] = []
  let orderBy: OrderBy
  if (q.role !== undefined) {
    const role = await findRole(c.roles, q.role)
    filters.push({ field: 'role', op: 'eq', value: role.did })
    if (!canManageRole(facts, await roleFacts(ctx.callers, role))) filters.push({ field: 'did', op: 'in', value: dids })
    // The unique index (tenantId, role, did) serves the filter and the order.
    orderBy = { field: 'did' }
  } else {
    orderBy = { field: 'role' }
  }
  if (q.did !== undefined) {
    const did = principalOf(q.did)
    filters.push({ field: 'did', op: 'eq', value: did })
    if (q.role === undefined && !facts.dids.has(did)) {
      filters.push({
        or: [
          { field: 'roleCreator', op: 'in', value: dids },
          { field: 'role', op: 'in', value: dids },
        ],
      })
    }
  }
  const page = await c.roleAssignments.find({ and: filters }, { orderBy, limit: q.limit ?? MAX_PAGE, cursor: q.cursor })
  const shown = (a: RoleAssignmentRecord): AssignmentView => ({
    ...presentAssignment(a),
    ...(q.role !== undefined && { role: q.role }),
    ...(q.did !== undefined && { did: q.did }),
  })
  const result: { assignments: AssignmentView[]; nextCursor?: string } = { assignments: page.items.map(shown) }
  if (page.nextCursor !== undefined) result.nextCursor = page.nextCursor
  return result
}
