/** Roles: get, create, update, delete (spec: Role; DESIGN §4 "Role records", "Get Roles", "Update Roles", "Delete Roles"). */
import { randomUUID } from 'node:crypto'
import type { z } from 'zod'
import { forbidden, notFound, type ErrorBody } from '../errors.js'
import type { Caller } from '../auth/context.js'
import { canSeeRole } from './policy.js'
import { MAX_PAGE } from '../operations/schemas.js'
import type * as schemas from './schemas.js'
import { accessOf } from './schemas.js'
import type { RoleAccess, RoleView } from './schemas.js'
import type { RoleRecord } from './records.js'
import type { OrderBy, Where } from '../storage/port.js'
import { forEachItem } from '../operations/batch.js'
import { concatPage, type PageSource } from '../operations/concat-pages.js'
import { findRole, presentRole } from './views.js'
import { aliasConflict, uniqueOr } from '../operations/unique.js'
import { checkWalletConfig, walletConfigApplier } from '../wallets/config.js'
import { stageStandaloneWallet } from '../wallets/standalone.js'
import { assertManagesRole } from './access.js'
import { WALLETS } from '../wallets/records.js'
import { deleteWalletRecord, destroyKeyMaterial } from '../wallets/operations.js'
import { ROLES, ROLE_ASSIGNMENTS } from './records.js'
import { tenantCollections } from '../storage/declaration.js'
import type { RolesContext } from './context.js'

type RoleError = { roleDid: string; message: string; error: ErrorBody }
const roleError = (roleDid: string, error: ErrorBody): RoleError => ({ roleDid, message: error.errorMessage, error })

/**
 * Create Role: a new wallet of the tenant (no vault; `wallet.alias` names it) whose DID is the
 * role DID, and the role record, written together. `creator` is the first DID the caller acts
 * through (named by one of its tokens and signed by its owner key); `walletConfig` applies to
 * the role DID's document as for Generate Identity Wallet.
 */
export async function createRole(
  ctx: Pick<
    RolesContext,
    'audit' | 'callers' | 'config' | 'custody' | 'keyManager' | 'now' | 'onError' | 'onItemFailure' | 'registries' | 'signers' | 'storage'
  >,
  caller: Caller,
  input: z.output<typeof schemas.createRole>,
): Promise<{ role: RoleView }> {
  const facts = await ctx.callers.acting(caller)
  const creator = caller.dids.find((did) => facts.dids.has(did))
  if (creator === undefined)
    throw forbidden('a role needs a creator: none of the DID-auth tokens was signed by the owner key of the DID it names')
  checkWalletConfig(input.walletConfig, ctx.config, { choosesKeyManagement: true })
  const { record: wallet, key } = await stageStandaloneWallet(ctx, {
    tenantId: caller.tenantId,
    alias: input.wallet?.alias,
    walletConfig: input.walletConfig,
    role: true,
  })
  const apply = walletConfigApplier(ctx, wallet, input.walletConfig, caller)
  const role: RoleRecord = {
    id: randomUUID(),
    tenantId: caller.tenantId,
    did: wallet.did,
    walletId: wallet.id,
    creator,
    permissions: input.permissions,
    access: accessOf(input.permissions),
    description: input.description,
    createdAt: wallet.createdAt,
    updatedAt: wallet.createdAt,
  }
  await uniqueOr(
    () =>
      ctx.storage.transaction(async (tx) => {
        const c = tenantCollections(tx, caller.tenantId, { roles: ROLES, wallets: WALLETS })
        await c.wallets.insert(wallet)
        await key.store(tx)
        await c.roles.insert(role)
        await ctx.audit.append(tx, caller, [{ action: 'role.create', target: { type: 'role', id: role.did } }])
      }),
    aliasConflict,
  )
  return { role: presentRole(role, await apply(wallet)) }
}

/**
 * Get Roles: the tenant's roles the caller created (oldest first), then the others whose role
 * DID it acts through or that are assigned to a DID it acts through (in DID order), one page at
 * a time. Each part is one indexed query: the roles of each creator DID, then the roles with
 * these DIDs. With `permissions`, the roles whose permissions contain every listed type
 * (`Write` implies `Read`).
 */
export async function getRoles(
  ctx: Pick<RolesContext, 'callers' | 'storage'>,
  caller: Caller,
  q: z.output<typeof schemas.getRolesQuery>,
): Promise<{ roles: RoleView[]; nextCursor?: string }> {
  const facts = await ctx.callers.holding(caller)
  const { roles } = tenantCollections(ctx.storage, caller.tenantId, { roles: ROLES })
  const creators = [...facts.dids]
  const others = [...new Set([...creators, ...facts.roles.keys()])]
  // Write implies Read: a role with Write has every permission there is.
  const permitted: Where[] =
    q.permissions === undefined
      ? []
      : [{ field: 'access', op: 'in', value: q.permissions.includes('Write') ? ['Write'] : ['Read', 'Write'] }]
  const source = (key: string, where: Where[], orderBy?: OrderBy): PageSource<RoleRecord> => ({
    key,
    read: (limit, cursor) => roles.find({ and: [...where, ...permitted] }, { orderBy, limit, cursor }),
  })
  const sources = [
    // Index (tenantId, creator, createdAt): filter and order.
    ...creators.map((creator) => source(creator, [{ field: 'creator', op: 'eq', value: creator }])),
    // Index (tenantId, did): filter and order (ordered by createdAt, the database would walk every role of the tenant).
    source(
      '*',
      [{ field: 'did', op: 'in', value: others }, ...creators.map((creator): Where => ({ field: 'creator', op: 'ne', value: creator }))],
      { field: 'did' },
    ),
  ]
  const page = others.length === 0 ? { items: [] } : await concatPage(sources, q.limit ?? MAX_PAGE, q.cursor)
  // The queries select by the grounds of the policy's seeRole; asking it keeps the two from drifting apart.
  const result: { roles: RoleView[]; nextCursor?: string } = {
    roles: page.items.filter((r) => canSeeRole(facts, r)).map((r) => presentRole(r)),
  }
  if (page.nextCursor !== undefined) result.nextCursor = page.nextCursor
  return result
}

const RANK: Record<RoleAccess, number> = { none: 0, Read: 1, Write: 2 }

/**
 * Update Roles: each role's description and/or permissions, by its creator or the holder of its
 * owner key; raising the permissions also needs rights over what the role reaches
 * (`RoleResources.assertMayRaise`). Failures in `errors`.
 */
export async function updateRoles(
  ctx: Pick<RolesContext, 'audit' | 'callers' | 'now' | 'onError' | 'onItemFailure' | 'roleResources' | 'storage'>,
  caller: Caller,
  input: z.output<typeof schemas.updateRoles>,
): Promise<{ roles: RoleView[]; errors: RoleError[] }> {
  const { roles } = tenantCollections(ctx.storage, caller.tenantId, { roles: ROLES })
  const { results, errors } = await forEachItem(
    ctx,
    caller,
    'update role',
    input.roles,
    async (item) => {
      const role = await findRole(roles, item.did)
      await assertManagesRole(ctx, caller, role)
      const patch: Partial<RoleRecord> = { updatedAt: ctx.now() }
      if (item.description !== undefined) patch.description = item.description
      if (item.permissions !== undefined) {
        const access = accessOf(item.permissions)
        if (RANK[access] > RANK[role.access]) await ctx.roleResources.assertMayRaise(caller, role)
        Object.assign(patch, { permissions: item.permissions, access })
      }
      const updated = await ctx.storage.transaction(async (tx) => {
        const done = await tenantCollections(tx, caller.tenantId, { roles: ROLES }).roles.update(role.id, patch)
        if (done) await ctx.audit.append(tx, caller, [{ action: 'role.update', target: { type: 'role', id: role.did } }])
        return done
      })
      if (!updated) throw notFound(`no role ${item.did}`)
      return presentRole(updated)
    },
    (item, error) => roleError(item.did, error),
  )
  return { roles: results, errors }
}

/**
 * Delete Roles: each role with its assignments and its wallet (and that wallet's generated
 * delegate keys), in one transaction per role; by its creator or the holder of its owner key.
 */
export async function deleteRoles(
  ctx: Pick<RolesContext, 'audit' | 'callers' | 'keyManager' | 'onError' | 'onItemFailure' | 'storage'>,
  caller: Caller,
  input: z.output<typeof schemas.deleteRoles>,
): Promise<{ roles: RoleView[]; errors: RoleError[] }> {
  const { roles } = tenantCollections(ctx.storage, caller.tenantId, { roles: ROLES })
  const { results, errors } = await forEachItem(
    ctx,
    caller,
    'delete role',
    input.dids,
    async (ref) => {
      const role = await findRole(roles, ref)
      await assertManagesRole(ctx, caller, role)
      const destroyed = await ctx.storage.transaction(async (tx) => {
        const c = tenantCollections(tx, caller.tenantId, { roleAssignments: ROLE_ASSIGNMENTS, roles: ROLES })
        if (!(await c.roles.delete(role.id))) return undefined
        await c.roleAssignments.deleteMany({ field: 'role', op: 'eq', value: role.did })
        const keyRefs = (await deleteWalletRecord(tx, ctx.keyManager, caller.tenantId, role.walletId)) ?? []
        await ctx.audit.append(tx, caller, [{ action: 'role.delete', target: { type: 'role', id: role.did } }])
        return keyRefs
      })
      if (destroyed === undefined) throw notFound(`no role ${ref}`)
      // The role's wallet's key in the token (an HSM role), once its records are gone.
      await destroyKeyMaterial(ctx, caller, destroyed)
      return presentRole(role)
    },
    roleError,
  )
  return { roles: results, errors }
}
