/**
 * Request and response schemas of the role and role-assignment operations. DIDs are put in their
 * canonical spelling, and batches checked for duplicates by principal, by the operations
 * (src/operations/canonical-dids.ts): checksums and key addresses need code these browser-safe
 * schemas leave out.
 */
import * as z from 'zod'
import { PERMISSIONS, type Permission } from '../auth/policy-engine.js'
import { anyCase, did, errorBody, id, nextCursor, page, text } from '../operations/schemas.js'
import { registryReport, walletConfig } from '../wallets/config-schemas.js'
import { walletInput } from '../wallets/schemas.js'

export { PERMISSIONS, type Permission }

const canonical = (name: string) => PERMISSIONS.find((p) => p.toLowerCase() === name.toLowerCase()) as Permission

/** The strongest permission of a role, `none` without any. */
export type RoleAccess = Permission | 'none'

/** The strongest of `permissions` (`Write` implies `Read`). */
export const accessOf = (permissions: readonly Permission[]): RoleAccess =>
  permissions.includes('Write') ? 'Write' : permissions.includes('Read') ? 'Read' : 'none'

/** One permission type, case-insensitive in, canonical out. */
const permission = z.string().regex(anyCase('read', 'write'), 'must be Read or Write (case-insensitive)').transform(canonical)

/** Distinct permission types in canonical order, whatever order and case they came in. */
const sortPermissions = (list: Permission[]): Permission[] => PERMISSIONS.filter((p) => list.includes(p))

/** `permissions` of a role: an array (a bare string is refused: "Read,Write" would be ambiguous). */
export const permissions = z.array(permission).max(10).transform(sortPermissions).meta({
  description: 'Permission types: `Read`, `Write` (case-insensitive; `Write` implies `Read`). A bare string is refused: send an array.',
})

export const createRole = z.strictObject({
  description: text().default(''),
  permissions: permissions.default([]),
  wallet: walletInput.optional(),
  walletConfig: walletConfig.optional(),
})

export const getRolesQuery = z.strictObject({
  permissions: z
    .string()
    .max(100)
    .transform((s) => s.split(',').map((p) => p.trim()))
    .pipe(z.array(permission).transform(sortPermissions))
    .optional()
    .meta({
      description:
        'Comma-separated permission types (case-insensitive): keeps the roles whose permissions contain every one ' +
        '(`Write` implies `Read`).',
    }),
  ...page,
})

const roleUpdate = z
  .strictObject({ did, description: text().optional(), permissions: permissions.optional() })
  .refine((u) => u.description !== undefined || u.permissions !== undefined, { message: 'give description, permissions or both' })

const roleUpdates = z.array(roleUpdate).min(1)

/** Update Roles: `{ roles: [...] }`, or one update as the whole body. */
export const updateRoles = z.union([z.strictObject({ roles: roleUpdates }), roleUpdate.transform((u) => ({ roles: [u] }))])

/** Role DIDs (or record ids): an array, or one comma-separated string. */
const roleRefs = z
  .union([
    z
      .string()
      .max(100_000)
      .transform((s) => s.split(',').map((r) => r.trim())),
    z.array(z.string()),
  ])
  .pipe(z.array(z.union([did, id])).min(1))

/** Delete Roles: role DIDs (or `_id`s) in `dids`, or in `ids` (the spec's example), never both. */
export const deleteRoles = z
  .strictObject({ dids: roleRefs.optional(), ids: roleRefs.optional() })
  .superRefine((v, ctx) => {
    if ((v.dids === undefined) === (v.ids === undefined))
      ctx.addIssue({ code: 'custom', path: ['dids'], message: 'give the role DIDs in dids (or ids), not both' })
  })
  .transform((v) => ({ dids: (v.dids ?? v.ids) as string[] }))

const assignment = z.strictObject({
  role: did.meta({ description: 'A role DID of the tenant.' }),
  did: did.meta({ description: 'A wallet DID of the tenant, or the DID of a credential the tenant stores.' }),
})

/** Create and Delete Role Assignments: `{ assignments: [{ role, did }] }`. */
export const roleAssignments = z.strictObject({ assignments: z.array(assignment).min(1) })

export const getRoleAssignmentsQuery = z
  .strictObject({ role: did.optional(), did: did.optional(), ...page })
  .refine((q) => q.role !== undefined || q.did !== undefined, { message: 'give role, did or both' })

/** A role as responses show it (the spec's `crteator` is spelled `creator`). */
export const roleView = z
  .strictObject({
    _id: z.string(),
    did: z.string(),
    creator: z.string(),
    permissions: z.array(z.enum(PERMISSIONS)),
    description: z.string(),
    createdAt: z.number().int().meta({ description: 'UNIX time, ms.' }),
    updatedAt: z.number().int().meta({ description: 'UNIX time, ms.' }),
    registry: registryReport
      .optional()
      .meta({ description: 'Create Role only: what the registry did with `walletConfig.txsInput` on the role DID’s document.' }),
  })
  .meta({ id: 'Role' })

export type RoleView = z.infer<typeof roleView>

const roleError = z.strictObject({ roleDid: z.string(), message: z.string(), error: errorBody })

export const roleResponse = z.strictObject({ role: roleView })
export const rolesPage = z.strictObject({ roles: z.array(roleView), nextCursor })
export const updateRolesResponse = z.strictObject({ roles: z.array(roleView), errors: z.array(roleError) })
export const deleteRolesResponse = z.strictObject({
  roles: z.array(roleView).meta({ description: 'The deleted roles.' }),
  errors: z.array(roleError),
})

export const assignmentView = z
  .strictObject({
    role: z.string(),
    did: z.string(),
    governsCredentials: z.boolean().meta({
      description:
        'Whether the role also governs the stored credentials whose DID is `did` (granted by someone with rights over that DID); ' +
        'otherwise `did` only holds the role.',
    }),
    createdAt: z.number().int().meta({ description: 'UNIX time, ms.' }),
  })
  .meta({ id: 'RoleAssignment' })

export type AssignmentView = z.infer<typeof assignmentView>

export const roleAssignmentsResponse = z.strictObject({
  assignments: z.array(assignmentView),
  errors: z.array(z.strictObject({ assignment: z.strictObject({ role: z.string(), did: z.string() }), error: errorBody })),
})
export const roleAssignmentsPage = z.strictObject({ assignments: z.array(assignmentView), nextCursor })
