/**
 * The contracts of the operations on roles and role assignments (see `operations/contract.ts`): summary,
 * auth, tag, errors, routes, schemas, batch field, example. Browser-safe: schemas and types only.
 */
import { BODY_ERRORS, QUERY_ERRORS, defineContract } from '../operations/contract.js'
import {
  createRole,
  deleteRoles,
  deleteRolesResponse,
  getRoleAssignmentsQuery,
  getRolesQuery,
  roleAssignments,
  roleAssignmentsPage,
  roleAssignmentsResponse,
  roleResponse,
  rolesPage,
  updateRoles,
  updateRolesResponse,
} from './schemas.js'

const TAG = 'Roles'

export const ROLE_CONTRACTS = {
  /** Get Roles (`GET /roles`): the roles the caller created, owns or holds, filtered by `permissions`, paged. */
  getRoles: defineContract({
    summary: 'Get Roles',
    description:
      'The tenant’s roles the caller created, whose role DID it acts through, or that are assigned to a DID it acts ' +
      'through (a DID named by one of its `x-did-auth` tokens and signed by its owner key, not a wallet of another ' +
      'tenant): first the roles it created, oldest first, then the others in DID order. `permissions=Read,Write` keeps ' +
      'the roles whose permissions contain every listed type (case-insensitive; `Write` implies `Read`); unknown names ' +
      'are 422. At most `limit` per page; `nextCursor` when more follow.',
    auth: 'tenant+did',
    tag: TAG,
    errors: QUERY_ERRORS,
    routes: [{ method: 'get', path: '/roles' }],
    input: getRolesQuery,
    response: rolesPage,
  }),
  /** Create Role (`POST /roles`): a role backed by a new wallet of the tenant (its DID is the role DID). */
  createRole: defineContract({
    summary: 'Create Role',
    description:
      'Creates a wallet of the tenant (no vault; `wallet.alias` names it, listed by Get Identity Wallets with `role: ' +
      'true`) whose DID is the role DID, and the role: `creator` is the first DID the caller acts through (named by an ' +
      '`x-did-auth` token signed by its owner key; a delegate’s token is not enough). `permissions` are `Read`/`Write`, ' +
      'case-insensitive, an array. `walletConfig` applies to the role DID’s document as for Generate Identity Wallet ' +
      '(`registry` reports it).',
    auth: 'tenant+did',
    tag: TAG,
    audit: { action: 'role.create', target: 'role' },
    errors: BODY_ERRORS,
    routes: [{ method: 'post', path: '/roles' }],
    input: createRole,
    response: roleResponse,
    example: { description: 'Auditors', permissions: ['Read'], wallet: { alias: 'auditors' } },
  }),
  /** Update Roles (`PUT /roles`): description and permissions, by the creator or the role DID's owner; failures in `errors`. */
  updateRoles: defineContract({
    summary: 'Update Roles',
    description:
      'Body `{ roles: [{ did, description?, permissions? }] }`, or one `{ did, description?, permissions? }`. Only the ' +
      'role’s creator or the holder of the role DID’s owner key may update it; each failure is an element of `errors` ' +
      '(`roleDid`, `message`, `error`), the other items are updated.',
    auth: 'tenant+did',
    tag: TAG,
    audit: { action: 'role.update', target: 'role' },
    errors: BODY_ERRORS,
    routes: [{ method: 'put', path: '/roles' }],
    input: updateRoles,
    batch: 'roles',
    response: updateRolesResponse,
    example: { roles: [{ did: 'did:ethr:dev:0x4B20993Bc481177ec7E8f571ceCaE8A9e22C02db', permissions: ['Read', 'Write'] }] },
  }),
  /** Delete Roles (`DELETE /roles`): each role with its assignments and its wallet; failures in `errors`. */
  deleteRoles: defineContract({
    summary: 'Delete Roles',
    description:
      'Role DIDs (or role `_id`s) in `dids` — an array or one comma-separated string — or in `ids` (the spec’s example), ' +
      'not both. Each role goes with its assignments and its wallet, by its creator or the holder of its owner key; ' +
      'failures are elements of `errors`.',
    auth: 'tenant+did',
    tag: TAG,
    audit: { action: 'role.delete', target: 'role' },
    errors: BODY_ERRORS,
    routes: [{ method: 'delete', path: '/roles' }],
    input: deleteRoles,
    batch: 'dids',
    response: deleteRolesResponse,
    example: { dids: ['did:ethr:dev:0x4B20993Bc481177ec7E8f571ceCaE8A9e22C02db'] },
  }),
  /** Create Role Assignments (`POST /roles/assignmnets`, alias `/roles/assignments`): idempotent; failures in `errors`. */
  createRoleAssignments: defineContract({
    summary: 'Create Role Assignments',
    description:
      'Assigns each `role` (a role DID of the tenant) to `did` (a wallet DID of the tenant, or the DID of a credential ' +
      'it stores; anything else is a NOT_FOUND item). Only the role’s creator or the holder of its owner key may assign ' +
      'it. Assigning twice returns the existing assignment. The path is spelled as in the spec; `/roles/assignments` is ' +
      'an alias.',
    auth: 'tenant+did',
    tag: TAG,
    audit: { action: 'assignment.grant', target: 'assignment' },
    errors: BODY_ERRORS,
    routes: [
      { method: 'post', path: '/roles/assignmnets' },
      { method: 'post', path: '/roles/assignments' },
    ],
    input: roleAssignments,
    batch: 'assignments',
    response: roleAssignmentsResponse,
    example: {
      assignments: [
        { role: 'did:ethr:dev:0x4B20993Bc481177ec7E8f571ceCaE8A9e22C02db', did: 'did:ethr:dev:0x8ba1f109551bD432803012645Ac136ddd64DBA72' },
      ],
    },
  }),
  /** Delete Role Assignments (`DELETE /roles/assignmnets`, alias `/roles/assignments`): with the Access Token JWT. */
  deleteRoleAssignments: defineContract({
    summary: 'Delete Role Assignments',
    description:
      'Takes the Access Token JWT (`Authorization: Bearer <DID-auth JWT>`, no `x-did-auth`): its `iss` wallet decides ' +
      'the tenant. Only the role’s creator or the holder of its owner key may unassign it; an assignment that is not ' +
      'there is a NOT_FOUND element of `errors`.',
    auth: 'access',
    tag: TAG,
    audit: { action: 'assignment.revoke', target: 'assignment' },
    errors: BODY_ERRORS,
    routes: [
      { method: 'delete', path: '/roles/assignmnets' },
      { method: 'delete', path: '/roles/assignments' },
    ],
    input: roleAssignments,
    batch: 'assignments',
    response: roleAssignmentsResponse,
    example: {
      assignments: [
        { role: 'did:ethr:dev:0x4B20993Bc481177ec7E8f571ceCaE8A9e22C02db', did: 'did:ethr:dev:0x8ba1f109551bD432803012645Ac136ddd64DBA72' },
      ],
    },
  }),
  /** List role assignments (extension; `GET /roles/assignmnets`, alias `/roles/assignments`): by `role` and/or `did`, paged. */
  getRoleAssignments: defineContract({
    summary: 'Get Role Assignments',
    description:
      'Extension (DESIGN §4): the assignments `{ role, did, createdAt }` of `role` and/or `did` that the caller may see ' +
      '— all of a role it may manage; otherwise those to DIDs it acts through, or, by `did`, those of roles it created ' +
      'or acts through. By `role`: in DID order; by `did` alone: in role order. At most `limit` per page; `nextCursor` ' +
      'when more follow.',
    auth: 'tenant+did',
    tag: TAG,
    errors: QUERY_ERRORS,
    routes: [
      { method: 'get', path: '/roles/assignmnets' },
      { method: 'get', path: '/roles/assignments' },
    ],
    input: getRoleAssignmentsQuery,
    response: roleAssignmentsPage,
  }),
}
