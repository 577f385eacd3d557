/**
 * Refinements of role inputs (see `OperationImplementation.refine`): DIDs in their
 * canonical spelling (did:ethr addresses checksummed, public keys as given: `normalizeDid`), and
 * batches checked for duplicates by principal (`principalOf`: an address DID and the public-key
 * DIDs of its key are one), so one DID given twice in two spellings is one item twice (422,
 * nothing written). Checksums and key addresses need code the browser-safe contracts leave out.
 */
import { z } from 'zod'
import { normalizeDid, principalOf } from '../did/methods/ethr/index.js'
import { DUPLICATE, noDuplicates } from '../operations/no-duplicates.js'
import type { ParsedInput } from '../operations/contract.js'
import type { ROLE_CONTRACTS } from './contracts.js'

type Parsed<K extends keyof typeof ROLE_CONTRACTS> = ParsedInput<(typeof ROLE_CONTRACTS)[K]>

/** Update Roles: role DIDs canonical, each role (principal) once. */
export const updateRoles = z
  .custom<Parsed<'updateRoles'>>()
  .transform((v) => ({ roles: v.roles.map((u) => ({ ...u, did: normalizeDid(u.did) })) }))
  .superRefine((v, ctx) =>
    noDuplicates(
      ctx,
      v.roles,
      (u) => principalOf(u.did),
      (i) => ['roles', i],
      DUPLICATE,
    ),
  )

/** Delete Roles: role DIDs canonical (record ids unchanged), each (principal) once. */
export const deleteRoles = z
  .custom<Parsed<'deleteRoles'>>()
  .transform((v) => ({ dids: v.dids.map(normalizeDid) }))
  .superRefine((v, ctx) => noDuplicates(ctx, v.dids, principalOf, (i) => ['dids', i], DUPLICATE))

/** Create and Delete Role Assignments: both DIDs of each assignment canonical, each pair of principals once. */
export const roleAssignments = z
  .custom<Parsed<'createRoleAssignments'>>()
  .transform((v) => ({ assignments: v.assignments.map((a) => ({ role: normalizeDid(a.role), did: normalizeDid(a.did) })) }))
  .superRefine((v, ctx) => {
    noDuplicates(
      ctx,
      v.assignments,
      (a) => `${principalOf(a.role)} ${principalOf(a.did)}`,
      (i) => ['assignments', i],
      DUPLICATE,
    )
  })

/** Get Role Assignments: the `role` and `did` filters canonical. */
export const roleAssignmentsQuery = z.custom<Parsed<'getRoleAssignments'>>().transform((q) => ({
  ...q,
  ...(q.role !== undefined && { role: normalizeDid(q.role) }),
  ...(q.did !== undefined && { did: normalizeDid(q.did) }),
}))
