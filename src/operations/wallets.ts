/** Identity wallets: generate, list, rename, delete (spec: Identity wallet). */
import { notFound, type ErrorBody } from '../errors.js'
import { normalizeDid } from '../did/ethr.js'
import { generatePrivateKey } from '../keys/secp256k1.js'
import { configureWallet as configureWalletSchema, deleteWallets as deleteWalletsSchema, generateWallet as generateWalletSchema, getWalletsQuery, parse, renameWallets as renameWalletsSchema } from '../schemas/index.js'
import type { Where } from '../storage/port.js'
import type { WalletRecord } from '../storage/collections.js'
import type { Caller } from '../auth/context.js'
import { collectionsOf, itemError, type OperationContext } from './context.js'
import { applyTxs, deleteDelegateKeys } from './did-updates.js'
import { checkWalletConfig, mergeWalletConfig, networkForNewWallet, registryForDid, walletConfigApplier } from './wallet-config.js'
import { buildWallet, presentWallet, withReport, type WalletView } from './wallet-records.js'
import { aliasTaken, withUniqueness } from './unique.js'

/** Generate Identity Wallet: a fresh key pair and DID, not in a vault. */
export async function generateWallet(ctx: OperationContext, caller: Caller, body: unknown): Promise<{ wallet: WalletView }> {
  const input = parse(generateWalletSchema, body)
  checkWalletConfig(input.walletConfig, ctx.config)
  const network = networkForNewWallet(ctx, input.walletConfig)
  const privateKey = generatePrivateKey()
  const record = buildWallet(ctx, { tenantId: caller.tenantId, privateKey, alias: input.wallet?.alias, walletConfig: input.walletConfig, network })
  privateKey.fill(0)
  const apply = walletConfigApplier(ctx, record.did, input.walletConfig)
  await withUniqueness(() => collectionsOf(ctx.storage, caller.tenantId).wallets.insert(record), aliasTaken)
  const { vaultId: _v, index: _i, isHDWallet: _h, ...view } = presentWallet(record)
  return { wallet: withReport(view as WalletView, await apply(record)) }
}

/**
 * Configure Identity Wallet: applies `walletConfig` to the DID document of a wallet the
 * caller controls. `didMethod` and `apiUrl` default to the wallet's vault's `walletConfig`;
 * the `txsInput` applied are the request's only (a vault template's were applied when the
 * wallet was made). The response is the wallet with the registry's report (`registry`).
 */
export async function configureWallet(ctx: OperationContext, caller: Caller, body: unknown): Promise<{ wallet: WalletView }> {
  const input = parse(configureWalletSchema, body)
  const { vaults, wallets } = collectionsOf(ctx.storage, caller.tenantId)
  const wallet = await findByDid(wallets, input.wallet.did)
  await ctx.policy.assertControlsWallet(caller, wallet, wallets)
  const template = wallet.vaultId === undefined ? undefined : (await vaults.get(wallet.vaultId))?.walletConfig
  const config = mergeWalletConfig(template && { didMethod: template.didMethod, apiUrl: template.apiUrl }, input.walletConfig)
  checkWalletConfig(config, ctx.config)
  const report = await applyTxs(ctx, wallet, registryForDid(ctx, wallet.did, config), config?.txsInput ?? [])
  return { wallet: withReport(presentWallet(wallet), report) }
}

/** Get Identity Wallets, filtered by `vaultId`, `did`, `alias` (all optional). */
export async function getWallets(ctx: OperationContext, caller: Caller, query: unknown): Promise<{ wallets: WalletView[] }> {
  const q = parse(getWalletsQuery, query)
  const filters: Where[] = []
  if (q.vaultId !== undefined) filters.push({ field: 'vaultId', op: 'eq', value: q.vaultId })
  if (q.did !== undefined) filters.push({ field: 'did', op: 'eq', value: normalizeDid(q.did) })
  if (q.alias !== undefined) filters.push({ field: 'alias', op: 'eq', value: q.alias })
  const found = await collectionsOf(ctx.storage, caller.tenantId).wallets.all({ and: filters })
  return { wallets: found.map((w) => presentWallet(w)) }
}

/** Rename Identity Wallet: each item is renamed or reported in `errors`. */
export async function renameWallets(
  ctx: OperationContext,
  caller: Caller,
  body: unknown,
): Promise<{ wallets: WalletView[]; errors: Array<{ wallet: { did: string; alias: string }; error: ErrorBody }> }> {
  const input = parse(renameWalletsSchema(ctx.config.limits.batch), body)
  const { wallets } = collectionsOf(ctx.storage, caller.tenantId)
  const renamed: WalletView[] = []
  const errors: Array<{ wallet: { did: string; alias: string }; error: ErrorBody }> = []
  for (const item of input.wallets) {
    try {
      const wallet = await findByDid(wallets, item.did)
      await ctx.policy.assertControlsWallet(caller, wallet, wallets)
      const updated = await withUniqueness(() => wallets.update(wallet.id, { alias: item.alias }), aliasTaken)
      if (!updated) throw notFound(`no wallet with DID ${item.did}`)
      renamed.push(presentWallet(updated))
    } catch (err) {
      errors.push({ wallet: { did: item.did, alias: item.alias }, error: itemError(ctx, err, 'rename wallet') })
    }
  }
  return { wallets: renamed, errors }
}

/** Delete Identity Wallet: `ids` are wallet ids or DIDs; removed DIDs are listed, failures reported in `errors`. */
export async function deleteWallets(
  ctx: OperationContext,
  caller: Caller,
  body: unknown,
): Promise<{ ids: string[]; errors: Array<{ did: string; error: ErrorBody }> }> {
  const input = parse(deleteWalletsSchema(ctx.config.limits.batch), body)
  const { wallets } = collectionsOf(ctx.storage, caller.tenantId)
  const ids: string[] = []
  const errors: Array<{ did: string; error: ErrorBody }> = []
  for (const ref of input.ids) {
    try {
      const wallet = ref.startsWith('did:') ? await findByDid(wallets, ref) : await wallets.get(ref)
      if (!wallet) throw notFound(`no wallet with id ${ref}`)
      await ctx.policy.assertControlsWallet(caller, wallet, wallets)
      if (!(await wallets.delete(wallet.id))) throw notFound(`no wallet with id ${ref}`)
      await deleteDelegateKeys(ctx.storage, wallet)
      ids.push(wallet.did)
    } catch (err) {
      errors.push({ did: ref, error: itemError(ctx, err, 'delete wallet') })
    }
  }
  return { ids, errors }
}

async function findByDid(wallets: ReturnType<typeof collectionsOf>['wallets'], did: string): Promise<WalletRecord> {
  const wallet = await wallets.findOne({ field: 'did', op: 'eq', value: normalizeDid(did) })
  if (!wallet) throw notFound(`no wallet with DID ${did}`)
  return wallet
}
