/** Identity vaults: create, fetch, delete, and create a vault's next wallet (spec: Identity vault). */
import { randomUUID } from 'node:crypto'
import type { z } from 'zod'
import { conflict, invalid, notFound } from '../errors.js'
import { generateMnemonic, hdWalletPath, vaultAccountNodesOf } from '../keys/hd.js'
import { KEY_TYPES } from '../keys/key-types.js'
import type * as schemas from './schemas.js'
import type { VaultView } from './schemas.js'
import type { WalletView } from '../wallets/schemas.js'
import type { Where } from '../storage/port.js'
import type { VaultRecord } from './records.js'
import type { WalletRecord } from '../wallets/records.js'
import { deleteVaultWalletRecords, destroyKeyMaterial } from '../wallets/operations.js'
import type { TenantCollection } from '../storage/tenant-scope.js'
import { wherePredicate } from '../storage/where-predicate.js'
import type { Caller } from '../auth/context.js'
import {
  checkWalletConfig,
  hsmUnavailable,
  keyBackendOf,
  keyTypeOfConfig,
  mergeWalletConfig,
  networkForNewWallet,
  walletConfigApplier,
} from '../wallets/config.js'
import { buildWallet, presentWallet, withReport } from '../wallets/build.js'
import { createMpcVault, createMpcVaultWallet } from './mpc-operations.js'
import { keyEnvelopes, presentVault } from './views.js'
import { ACCOUNT_NODE_FIELDS, hdDerivation } from './hd-keys.js'
import { aliasConflict, uniqueOr } from '../operations/unique.js'
import { MAX_PAGE } from '../operations/schemas.js'
import { assertControlsVault } from './access.js'
import { WALLETS } from '../wallets/records.js'
import { VAULTS } from './records.js'
import { tenantCollections } from '../storage/declaration.js'
import type { VaultsContext } from './context.js'

/** Create Identity Vault. ECS vaults get their first wallet (index 0 for BIP44) at once; MPC vaults none (see mpc-vaults). */
export async function createVault(
  ctx: Pick<
    VaultsContext,
    'audit' | 'config' | 'custody' | 'keyManager' | 'mpc' | 'now' | 'onError' | 'onItemFailure' | 'registries' | 'signers' | 'storage'
  >,
  caller: Caller,
  input: z.output<typeof schemas.createVault>,
): Promise<{ vault: VaultView }> {
  if (input.keyManagement === 'MPC') return createMpcVault(ctx, caller, input)
  checkWalletConfig(input.walletConfig, ctx.config)
  // HSM (hierarchy NONE, the schema checked): the one wallet's key is generated in the token by the `hsm` key backend.
  const hsm = input.keyManagement === 'HSM'
  if (hsm && ctx.config.hsm !== true) throw hsmUnavailable('keyManagement')
  const network = networkForNewWallet(ctx, input.walletConfig)
  const { vaults } = tenantCollections(ctx.storage, caller.tenantId, { vaults: VAULTS })
  if (input.parentID !== undefined && !(await vaults.get(input.parentID))) throw notFound('parentID: no such vault')

  const id = randomUUID()
  const sealedFor = { tenantId: caller.tenantId, id }
  const vault: VaultRecord = {
    id,
    tenantId: caller.tenantId,
    name: input.name,
    description: input.description,
    hierarchy: input.hierarchy,
    keyManagement: input.keyManagement,
    status: 'INITIALIZED',
    createdAt: ctx.now(),
  }
  if (input.parentID !== undefined) vault.parentID = input.parentID
  if (input.walletConfig !== undefined) vault.walletConfig = input.walletConfig

  let mnemonic: string | undefined
  if (input.hierarchy === 'BIP44') {
    mnemonic = generateMnemonic()
    vault.mnemonic = ctx.custody.seal('vaults', sealedFor, 'mnemonic', new TextEncoder().encode(mnemonic))
    // One account node per key type, from one BIP39 seed: a wallet then derives in one step, never rerunning PBKDF2.
    const nodes = vaultAccountNodesOf(mnemonic)
    for (const type of KEY_TYPES) {
      vault[ACCOUNT_NODE_FIELDS[type]] = ctx.custody.seal('vaults', sealedFor, ACCOUNT_NODE_FIELDS[type], nodes[type])
      nodes[type].fill(0)
    }
    vault.hdIndex = 0
  }
  // NONE: a fresh key; BIP44: wallet 0, derived by the key backend from the vault's sealed secrets.
  const type = keyTypeOfConfig(input.walletConfig)
  const derive = vault.hdIndex === undefined ? undefined : hdDerivation(vault, type, vault.hdIndex)
  const key = await ctx.keyManager.stageKey({ tenantId: caller.tenantId, type, derive, ...keyBackendOf(input.keyManagement) })
  const wallet = await buildWallet(ctx, {
    tenantId: caller.tenantId,
    key,
    vaultId: id,
    index: vault.hdIndex,
    path: vault.hdIndex === undefined ? undefined : hdWalletPath(type, vault.hdIndex),
    walletConfig: input.walletConfig,
    network,
    ...(hsm && { keyManagement: 'HSM' as const }),
  })
  vault.rootDid = wallet.did
  vault.rootKeyId = wallet.keyId
  const apply = walletConfigApplier(ctx, wallet, input.walletConfig, caller)

  await ctx.storage.transaction(async (tx) => {
    const c = tenantCollections(tx, caller.tenantId, { vaults: VAULTS, wallets: WALLETS })
    await c.vaults.insert(vault)
    await key.store(tx)
    await c.wallets.insert(wallet)
    await ctx.audit.append(tx, caller, [
      { action: 'vault.create', target: { type: 'vault', id } },
      { action: 'wallet.create', target: { type: 'wallet', id: wallet.did } },
    ])
  })
  const view = presentVault(vault, [wallet], await keyEnvelopes(ctx.storage, caller.tenantId, [wallet]), mnemonic)
  view.wallets[0] = withReport(view.wallets[0], await apply(wallet))
  return { vault: view }
}

type VaultsQuery = z.output<typeof schemas.getVaultsQuery>
type VaultsPage = { vaults: VaultView[]; nextCursor?: string }

/**
 * The filters of a Get Identity Vaults query other than `id`, as one storage filter. By
 * `parentID`: the ECS children, and the MPC ones only when the MPC account is named too (DESIGN
 * §4 "parentID"); `mpcAccountID`/`mpcVaultID` then narrow the MPC ones only.
 */
function vaultFilter(q: VaultsQuery): Where {
  const mpc: Where[] = []
  if (q.mpcAccountID !== undefined) mpc.push({ field: 'mpcAccountID', op: 'eq', value: q.mpcAccountID })
  if (q.mpcVaultID !== undefined) mpc.push({ field: 'mpcVaultID', op: 'eq', value: q.mpcVaultID })
  if (q.parentID === undefined) return { and: mpc }
  // HSM vaults are listed with the ECS ones: only MPC vaults need their account named.
  const ecs: Where = { field: 'keyManagement', op: 'in', value: ['ECS', 'HSM'] }
  return { and: [{ field: 'parentID', op: 'eq', value: q.parentID }, q.mpcAccountID === undefined ? ecs : { or: [ecs, { and: mpc }] }] }
}

/**
 * The vault `id` if it passes the query's other filters. The primary key is not a field a query
 * may name, so the record is read by id and held to the same filter in memory (one record).
 */
async function vaultById(vaults: TenantCollection<VaultRecord>, q: VaultsQuery & { id: string }): Promise<VaultRecord[]> {
  // A listing by id is one page: no cursor was ever issued for it.
  if (q.cursor !== undefined) throw invalid('cursor: a listing by id has a single page, so no cursor applies to it')
  const vault = await vaults.get(q.id)
  return vault && wherePredicate(VAULTS, vaultFilter(q))(vault) ? [vault] : []
}

/** Get Identity Vaults, with their wallets: one page of vaults, and their wallets in one query. */
export async function getVaults(ctx: Pick<VaultsContext, 'storage'>, caller: Caller, q: VaultsQuery): Promise<VaultsPage> {
  const { vaults, wallets } = tenantCollections(ctx.storage, caller.tenantId, { vaults: VAULTS, wallets: WALLETS })
  let found: VaultRecord[]
  let nextCursor: string | undefined
  if (q.id !== undefined) {
    found = await vaultById(vaults, { ...q, id: q.id })
  } else {
    const page = await vaults.find(vaultFilter(q), { limit: q.limit ?? MAX_PAGE, cursor: q.cursor })
    found = page.items
    nextCursor = page.nextCursor
  }
  const byVault = new Map<string, WalletRecord[]>(found.map((v) => [v.id, []]))
  if (found.length > 0) {
    // The page's wallets in one indexed query (tenantId, vaultId, …); each vault's oldest first.
    for (const w of await wallets.all({ field: 'vaultId', op: 'in', value: [...byVault.keys()] }, { orderBy: { field: 'vaultId' } }))
      byVault.get(w.vaultId!)?.push(w)
    for (const members of byVault.values()) members.sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1))
  }
  const envelopes = await keyEnvelopes(ctx.storage, caller.tenantId, [...byVault.values()].flat())
  const result: VaultsPage = { vaults: found.map((v) => presentVault(v, byVault.get(v.id) ?? [], envelopes)) }
  if (nextCursor !== undefined) result.nextCursor = nextCursor
  return result
}

/**
 * Create Identity Vault's Wallet: the next BIP44 wallet of an ECS + BIP44 vault the caller controls, or of an MPC vault (see
 * mpc-vaults).
 */
export async function createVaultWallet(
  ctx: Pick<
    VaultsContext,
    'audit' | 'callers' | 'config' | 'keyManager' | 'mpc' | 'now' | 'onError' | 'onItemFailure' | 'registries' | 'signers' | 'storage'
  >,
  caller: Caller,
  input: z.output<typeof schemas.createVaultWallet> & z.output<typeof schemas.createVaultWalletParams>,
): Promise<{ wallet: WalletView }> {
  const { vaults } = tenantCollections(ctx.storage, caller.tenantId, { vaults: VAULTS })
  const vault = await vaults.get(input.vaultID)
  if (!vault) throw notFound('vaultID: no such vault')
  if (vault.keyManagement === 'MPC') return createMpcVaultWallet(ctx, caller, vault, input)
  await assertControlsVault(ctx, caller, vault)
  if (vault.hierarchy !== 'BIP44') throw invalid('this vault has hierarchy NONE: it holds only the wallet made at its creation')
  const walletConfig = mergeWalletConfig(vault.walletConfig, input.walletConfig)
  checkWalletConfig(walletConfig, ctx.config)
  const network = networkForNewWallet(ctx, walletConfig)

  // Index allocation and insert commit together, so indexes stay unique and gap-free.
  const wallet = await uniqueOr(
    () =>
      ctx.storage.transaction(async (tx) => {
        const c = tenantCollections(tx, caller.tenantId, { vaults: VAULTS, wallets: WALLETS })
        // The vault may have been deleted since it was read (the delete is one transaction too).
        if (!(await c.vaults.get(vault.id))) throw notFound('vaultID: no such vault')
        const index = await c.vaults.increment(vault.id, 'hdIndex')
        // The key backend opens the vault's sealed account node of the key type, derives wallet `index` and seals its key.
        const type = keyTypeOfConfig(walletConfig)
        const key = await ctx.keyManager.stageKey({ tenantId: caller.tenantId, type, derive: hdDerivation(vault, type, index) })
        const record = await buildWallet(ctx, {
          tenantId: caller.tenantId,
          key,
          vaultId: vault.id,
          index,
          path: hdWalletPath(type, index),
          alias: input.wallet?.alias,
          walletConfig,
          network,
        })
        await key.store(tx)
        await c.wallets.insert(record)
        await ctx.audit.append(tx, caller, [{ action: 'wallet.create', target: { type: 'wallet', id: record.did } }])
        return record
      }),
    aliasConflict,
  )
  // The DID is known only once the index is: the network's registry was checked above (networkForNewWallet).
  const apply = walletConfigApplier(ctx, wallet, walletConfig, caller)
  return { wallet: withReport(presentWallet(wallet), await apply(wallet)) }
}

/**
 * Delete Identity Vault: removes its wallets (and their delegate keys) and the vault in one
 * transaction, so a wallet created concurrently is either deleted with it or refused. All or
 * nothing: there are no per-wallet failures to report. An MPC vault needs its quorum, and its
 * provider then destroys its key material (the shipped provider: its shares).
 */
export async function deleteVault(
  ctx: Pick<VaultsContext, 'audit' | 'callers' | 'didReferences' | 'keyManager' | 'mpc' | 'onError' | 'storage'>,
  caller: Caller,
  input: z.output<typeof schemas.deleteVault>,
): Promise<{ wallets: WalletView[] }> {
  const { vaults } = tenantCollections(ctx.storage, caller.tenantId, { vaults: VAULTS })
  const vault = await vaults.get(input._id)
  if (!vault) throw notFound('_id: no such vault')
  // An MPC vault is governed by its quorum; an ECS vault by vault control.
  if (vault.keyManagement === 'MPC') await ctx.mpc.approvalsFor(vault, 'deleteVault', caller)
  else await assertControlsVault(ctx, caller, vault)
  const { removed, envelopes, keyRefs } = await ctx.storage.transaction(async (tx) => {
    const c = tenantCollections(tx, caller.tenantId, { vaults: VAULTS, wallets: WALLETS })
    if (!(await c.vaults.get(vault.id))) throw notFound('_id: no such vault')
    if ((await c.vaults.count({ field: 'parentID', op: 'eq', value: vault.id })) > 0)
      throw conflict('this vault has child vaults: delete them first')
    const members = await c.wallets.all({ field: 'vaultId', op: 'eq', value: vault.id })
    // The response shows each removed wallet's sealed key: read before the keys are destroyed.
    const envelopes = await keyEnvelopes(tx, caller.tenantId, members)
    let keyRefs: string[] = []
    if (members.length > 0) {
      keyRefs = await deleteVaultWalletRecords(tx, ctx.keyManager, caller.tenantId, vault.id, members)
      await ctx.didReferences.forget(
        tx,
        caller.tenantId,
        members.map((w) => w.did),
      )
    }
    await c.vaults.delete(vault.id)
    await ctx.audit.append(tx, caller, [{ action: 'vault.delete', target: { type: 'vault', id: vault.id } }])
    return { removed: members, envelopes, keyRefs }
  })
  // An HSM vault's keys in the token: destroyed now that no record names them, and audited.
  await destroyKeyMaterial(ctx, caller, keyRefs)
  // Then the key material: the vault is gone, so no request can reach it any more. A provider
  // failure leaves unreachable shares behind; it is reported to the operator, not the caller.
  if (vault.keyManagement === 'MPC')
    await ctx.mpc.provider
      .deleteVault(ctx.mpc.refOf(vault))
      .catch((err) =>
        ctx.onError(caller.operation ?? 'deleteVault', err, { requestId: caller.requestId, item: 'MPC provider: delete vault' }),
      )
  return { wallets: removed.map((w) => presentWallet(w, { keyEnvelope: envelopes.get(w.id) })) }
}
