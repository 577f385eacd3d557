/** Identity vaults: create, fetch, delete, and create a vault's next wallet (spec: Identity vault). */
import { randomUUID } from 'node:crypto'
import { conflict, invalid, notFound, type ErrorBody } from '../errors.js'
import { accountNodeOf, deriveWalletKey, generateMnemonic } from '../keys/hd.js'
import { generatePrivateKey } from '../keys/secp256k1.js'
import { createVault as createVaultSchema, createVaultWallet as createVaultWalletSchema, deleteVault as deleteVaultSchema, getVaultsQuery, parse } from '../schemas/index.js'
import type { WalletConfig } from '../schemas/wallet-config.js'
import type { Where } from '../storage/port.js'
import type { VaultRecord, WalletRecord } from '../storage/collections.js'
import type { Caller } from '../auth/context.js'
import { collectionsOf, type OperationContext } from './context.js'
import { checkWalletConfig, mergeWalletConfig, networkForNewWallet, walletConfigApplier } from './wallet-config.js'
import { buildWallet, presentWallet, withReport, type WalletView } from './wallet-records.js'
import { aliasTaken, withUniqueness } from './unique.js'
import { deleteDelegateKeys } from './did-updates.js'

/** A vault as responses show it. */
export interface VaultView {
  id: string
  name: string
  description: string
  parentID?: string
  hierarchy: 'NONE' | 'BIP44'
  /** The plaintext mnemonic: only in the create response of an ECS + BIP44 vault, once. */
  mnemonic?: string
  keyManagement: 'ECS' | 'MPC'
  status: 'INITIALIZED' | 'NOT_INITIALIZED'
  walletConfig?: WalletConfig
  wallets: WalletView[]
  mpcAccountID?: string
  mpcVault?: { id: string }
}

function presentVault(v: VaultRecord, wallets: WalletRecord[], mnemonic?: string): VaultView {
  const view: VaultView = {
    id: v.id,
    name: v.name,
    description: v.description,
    hierarchy: v.hierarchy,
    keyManagement: v.keyManagement,
    status: v.status,
    wallets: wallets.map((w) => presentWallet(w, { privateKey: true })),
  }
  if (v.parentID !== undefined) view.parentID = v.parentID
  if (mnemonic !== undefined) view.mnemonic = mnemonic
  if (v.walletConfig !== undefined) view.walletConfig = v.walletConfig
  if (v.mpcAccountID !== undefined) view.mpcAccountID = v.mpcAccountID
  if (v.mpcVaultID !== undefined) view.mpcVault = { id: v.mpcVaultID }
  return view
}

/** Create Identity Vault. ECS vaults get their first wallet (index 0 for BIP44) at once. */
export async function createVault(ctx: OperationContext, caller: Caller, body: unknown): Promise<{ vault: VaultView }> {
  const input = parse(createVaultSchema, body)
  if (input.keyManagement === 'MPC') throw invalid('MPC vaults need an MPC provider; none is configured in this service')
  checkWalletConfig(input.walletConfig, ctx.config)
  const network = networkForNewWallet(ctx, input.walletConfig)
  const { vaults } = collectionsOf(ctx.storage, caller.tenantId)
  if (input.parentID !== undefined && !(await vaults.get(input.parentID))) throw notFound('parentID: no such vault')

  const id = randomUUID()
  const owner = { tenantId: caller.tenantId, id }
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
  let privateKey: Uint8Array
  if (input.hierarchy === 'BIP44') {
    mnemonic = generateMnemonic()
    const accountNode = accountNodeOf(mnemonic)
    vault.mnemonic = ctx.custody.seal('vaults', owner, 'mnemonic', new TextEncoder().encode(mnemonic))
    vault.accountNode = ctx.custody.seal('vaults', owner, 'accountNode', accountNode)
    vault.hdIndex = 0
    privateKey = deriveWalletKey(accountNode, 0)
    accountNode.fill(0)
  } else {
    privateKey = generatePrivateKey()
  }
  const wallet = buildWallet(ctx, {
    tenantId: caller.tenantId,
    privateKey,
    vaultId: id,
    index: vault.hdIndex,
    walletConfig: input.walletConfig,
    network,
  })
  privateKey.fill(0)
  vault.rootDid = wallet.did
  const apply = walletConfigApplier(ctx, wallet.did, input.walletConfig)

  await ctx.storage.transaction(async (tx) => {
    const c = collectionsOf(tx, caller.tenantId)
    await c.vaults.insert(vault)
    await c.wallets.insert(wallet)
  })
  const view = presentVault(vault, [wallet], mnemonic)
  view.wallets[0] = withReport(view.wallets[0], await apply(wallet))
  return { vault: view }
}

/** Get Identity Vaults, with their wallets. */
export async function getVaults(ctx: OperationContext, caller: Caller, query: unknown): Promise<{ vaults: VaultView[] }> {
  const q = parse(getVaultsQuery, query)
  const filters: Where[] = []
  if (q.id !== undefined) filters.push({ field: 'id', op: 'eq', value: q.id })
  if (q.parentID !== undefined) {
    filters.push({ field: 'parentID', op: 'eq', value: q.parentID })
    // MPC vaults come with a parentID filter only when the MPC account is named too.
    if (q.mpcAccountID === undefined) filters.push({ field: 'keyManagement', op: 'eq', value: 'ECS' })
  }
  if (q.mpcAccountID !== undefined) filters.push({ field: 'mpcAccountID', op: 'eq', value: q.mpcAccountID })
  if (q.mpcVaultID !== undefined) filters.push({ field: 'mpcVaultID', op: 'eq', value: q.mpcVaultID })

  const { vaults, wallets } = collectionsOf(ctx.storage, caller.tenantId)
  const found = q.id !== undefined && filters.length === 1 ? [await vaults.get(q.id)].filter((v) => v !== undefined) : await vaults.all({ and: filters })
  // One indexed query per vault (tenantId, vaultId, createdAt): ordered, and never a scan of the tenant's wallets.
  const members = await Promise.all(found.map((v) => wallets.all({ field: 'vaultId', op: 'eq', value: v.id })))
  const byVault = new Map(found.map((v, i) => [v.id, members[i]]))
  return { vaults: found.map((v) => presentVault(v, byVault.get(v.id) ?? [])) }
}

/** Create Identity Vault's Wallet: the next BIP44 wallet of an ECS + BIP44 vault. */
export async function createVaultWallet(ctx: OperationContext, caller: Caller, vaultId: string, body: unknown): Promise<{ wallet: WalletView }> {
  const input = parse(createVaultWalletSchema, body)
  const { vaults, wallets } = collectionsOf(ctx.storage, caller.tenantId)
  const vault = await vaults.get(vaultId)
  if (!vault) throw notFound('vaultID: no such vault')
  await ctx.policy.assertControlsVault(caller, vault, wallets)
  if (vault.hierarchy !== 'BIP44') throw invalid('this vault has hierarchy NONE: it holds only the wallet made at its creation')
  const walletConfig = mergeWalletConfig(vault.walletConfig, input.walletConfig)
  checkWalletConfig(walletConfig, ctx.config)
  const network = networkForNewWallet(ctx, walletConfig)

  const accountNode = ctx.custody.open('vaults', vault, 'accountNode', vault.accountNode!)
  // Index allocation and insert commit together, so indexes stay unique and gap-free.
  const wallet = await withUniqueness(
    () =>
      ctx.storage.transaction(async (tx) => {
        const c = collectionsOf(tx, caller.tenantId)
        // The vault may have been deleted since it was read (the delete is one transaction too).
        if (!(await c.vaults.get(vault.id))) throw notFound('vaultID: no such vault')
        const index = await c.vaults.increment(vault.id, 'hdIndex')
        const privateKey = deriveWalletKey(accountNode, index)
        const record = buildWallet(ctx, { tenantId: caller.tenantId, privateKey, vaultId: vault.id, index, alias: input.wallet?.alias, walletConfig, network })
        privateKey.fill(0)
        await c.wallets.insert(record)
        return record
      }),
    aliasTaken,
  ).finally(() => accountNode.fill(0))
  // The DID is known only once the index is: the network's registry was checked above (networkForNewWallet).
  const apply = walletConfigApplier(ctx, wallet.did, walletConfig)
  return { wallet: withReport(presentWallet(wallet), await apply(wallet)) }
}

/**
 * Delete Identity Vault: removes its wallets (and their delegate keys) and the vault in one
 * transaction, so a wallet created concurrently is either deleted with it or refused.
 * Batch-shaped as the spec shows; `errors` stays empty because the removal is all or nothing.
 */
export async function deleteVault(
  ctx: OperationContext,
  caller: Caller,
  body: unknown,
): Promise<{ wallets: WalletView[]; errors: Array<{ wallets: WalletView[]; error: ErrorBody }> }> {
  const input = parse(deleteVaultSchema, body)
  const { vaults, wallets } = collectionsOf(ctx.storage, caller.tenantId)
  const vault = await vaults.get(input._id)
  if (!vault) throw notFound('_id: no such vault')
  await ctx.policy.assertControlsVault(caller, vault, wallets)
  const removed = await ctx.storage.transaction(async (tx) => {
    const c = collectionsOf(tx, caller.tenantId)
    if (!(await c.vaults.get(vault.id))) throw notFound('_id: no such vault')
    if ((await c.vaults.count({ field: 'parentID', op: 'eq', value: vault.id })) > 0) throw conflict('this vault has child vaults: delete them first')
    const members = await c.wallets.all({ field: 'vaultId', op: 'eq', value: vault.id })
    for (const w of members) {
      await c.wallets.delete(w.id)
      await deleteDelegateKeys(tx, w)
    }
    await c.vaults.delete(vault.id)
    return members
  })
  return { wallets: removed.map((w) => presentWallet(w, { privateKey: true })), errors: [] }
}
