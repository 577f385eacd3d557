/** Finding a tenant's roles and the shapes responses show them in. */
import { notFound } from '../errors.js'
import { principalOf } from '../did/methods/ethr/index.js'
import type { RegistryReport } from '../wallets/did-updates.js'
import type { AssignmentView, RoleView } from './schemas.js'
import type { RoleAssignmentRecord, RoleRecord } from './records.js'
import type { TenantCollection } from '../storage/tenant-scope.js'

/**
 * The tenant's role with DID (either spelling of its principal) or record id `ref`. A role of
 * another tenant is reported exactly like a missing one: 422 NOT_FOUND, same message.
 */
export async function findRole(roles: TenantCollection<RoleRecord>, ref: string): Promise<RoleRecord> {
  const role = ref.startsWith('did:') ? await roles.findOne({ field: 'did', op: 'eq', value: principalOf(ref) }) : await roles.get(ref)
  if (!role) throw notFound(`no role ${ref}`)
  return role
}

export function presentRole(r: RoleRecord, registry?: RegistryReport): RoleView {
  const view: RoleView = {
    _id: r.id,
    did: r.did,
    creator: r.creator,
    permissions: [...r.permissions],
    description: r.description,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  }
  if (registry !== undefined) view.registry = registry
  return view
}

export const presentAssignment = (a: RoleAssignmentRecord): AssignmentView => ({
  role: a.role,
  did: a.did,
  governsCredentials: a.governsCredentials === true,
  createdAt: a.createdAt,
})
