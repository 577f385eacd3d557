/** Identity wallets: generate, list, configure, rename, delete (spec: Identity wallet). */
import type { z } from 'zod'
import { conflict, notFound } from '../errors.js'
import { principalOf } from '../did/methods/ethr/index.js'
import { MAX_PAGE } from '../operations/schemas.js'
import type * as schemas from './schemas.js'
import type { WalletView } from './schemas.js'
import type { StorageAdapter, Where } from '../storage/port.js'
import type { WalletRecord } from './records.js'
import type { KeyManager } from '../keys/port.js'
import type { ErrorBody } from '../errors.js'
import type { Caller } from '../auth/context.js'
import { forEachItem } from '../operations/batch.js'
import { applyTxs, ownerWallet } from './did-updates.js'
import { checkConfigOfWallet, checkWalletConfig, mergeWalletConfig, registryForDid, walletConfigApplier } from './config.js'
import { presentWallet, withReport } from './build.js'
import { stageStandaloneWallet } from './standalone.js'
import { aliasConflict, uniqueOr } from '../operations/unique.js'
import { assertControlsWallet } from './access.js'
import { DELEGATE_KEYS, WALLETS } from './records.js'
import { tenantCollections } from '../storage/declaration.js'
import type { TenantCollection } from '../storage/tenant-scope.js'
import type { WalletsContext } from './context.js'
import { checkDidWebTxs, deactivateDidWeb } from '../did/methods/index.js'
import { applyDidWebConfig } from './did-web-updates.js'
import { didWebWalletOf } from './did-web-wallets.js'

type Wallets = TenantCollection<WalletRecord>

/** Generate Identity Wallet: a fresh key pair and DID, not in a vault. */
export async function generateWallet(
  ctx: Pick<WalletsContext, 'audit' | 'config' | 'keyManager' | 'now' | 'onError' | 'onItemFailure' | 'registries' | 'signers' | 'storage'>,
  caller: Caller,
  input: z.output<typeof schemas.generateWallet>,
): Promise<z.output<typeof schemas.generatedWalletResponse>> {
  checkWalletConfig(input.walletConfig, ctx.config, { makesBbsKey: true, choosesKeyManagement: true })
  const { record, key } = await stageStandaloneWallet(ctx, {
    tenantId: caller.tenantId,
    alias: input.wallet?.alias,
    walletConfig: input.walletConfig,
  })
  const apply = walletConfigApplier(ctx, record, input.walletConfig, caller)
  // Made last, once everything else is checked; the key port stores it at once, so a wallet that is not stored destroys it.
  if (input.walletConfig?.bbsKey === true) {
    const bbs = await ctx.keyManager.createBbsKey({ tenantId: caller.tenantId })
    record.bbsKey = { keyRef: bbs.keyRef, publicKeyJwk: bbs.publicJwk }
  }
  try {
    await uniqueOr(
      () =>
        ctx.storage.transaction(async (tx) => {
          await tenantCollections(tx, caller.tenantId, { wallets: WALLETS }).wallets.insert(record)
          await key.store(tx)
          await ctx.audit.append(tx, caller, [{ action: 'wallet.create', target: { type: 'wallet', id: record.did } }])
        }),
      aliasConflict,
    )
  } catch (err) {
    const bbsKeyRef = record.bbsKey?.keyRef
    if (bbsKeyRef !== undefined) await ctx.storage.transaction((tx) => ctx.keyManager.destroyKeys(tx, caller.tenantId, [bbsKeyRef]))
    throw err
  }
  const { vaultId: _v, index: _i, isHDWallet: _h, ...view } = presentWallet(record)
  return { wallet: withReport(view, await apply(record)) }
}

/**
 * Configure Identity Wallet: applies `walletConfig` to the DID document of a wallet the
 * caller controls (DID control, or vault control of its vault). `didMethod` and `apiUrl`
 * default to the wallet's vault's `walletConfig`; the `txsInput` applied are the request's only
 * (a vault template's were applied when the wallet was made). The change is signed with the
 * DID owner's key, which the service must hold (403 naming the owner otherwise). The response
 * is the wallet with the registry's report (`registry`).
 */
export async function configureWallet(
  ctx: Pick<
    WalletsContext,
    | 'audit'
    | 'callers'
    | 'config'
    | 'keyManager'
    | 'now'
    | 'onError'
    | 'onItemFailure'
    | 'registries'
    | 'signers'
    | 'storage'
    | 'walletVaults'
  >,
  caller: Caller,
  input: z.output<typeof schemas.configureWallet>,
): Promise<{ wallet: WalletView }> {
  const { wallets } = tenantCollections(ctx.storage, caller.tenantId, { wallets: WALLETS })
  const wallet = await findByDid(wallets, input.wallet.did)
  await assertControlsWallet(ctx, caller, wallet)
  const template = wallet.vaultId === undefined ? undefined : await ctx.walletVaults.walletConfigOf(caller.tenantId, wallet.vaultId)
  const config = mergeWalletConfig(template && { didMethod: template.didMethod, apiUrl: template.apiUrl }, input.walletConfig)
  checkConfigOfWallet(wallet, input.walletConfig, config, ctx.config)
  if (wallet.didMethod === 'web') {
    const report = await applyDidWebConfig(ctx, wallet, checkDidWebTxs(config?.txsInput ?? []), caller)
    return { wallet: withReport(presentWallet(wallet), report) }
  }
  const registry = registryForDid(ctx, wallet.did, config)
  // Refused before anything is applied when the service cannot sign as the current owner.
  await ownerWallet(ctx, wallet, registry)
  const report = await applyTxs(ctx, wallet, registry, config?.txsInput ?? [], caller)
  return { wallet: withReport(presentWallet(wallet), report) }
}

/** Get Identity Wallets, filtered by `vaultId`, `did`, `alias` (all optional), one page at a time. */
export async function getWallets(
  ctx: Pick<WalletsContext, 'storage'>,
  caller: Caller,
  q: z.output<typeof schemas.getWalletsQuery>,
): Promise<{ wallets: WalletView[]; nextCursor?: string }> {
  const filters: Where[] = []
  if (q.vaultId !== undefined) filters.push({ field: 'vaultId', op: 'eq', value: q.vaultId })
  if (q.did !== undefined) filters.push({ field: 'did', op: 'eq', value: principalOf(q.did) })
  if (q.alias !== undefined) filters.push({ field: 'alias', op: 'eq', value: q.alias })
  const page = await tenantCollections(ctx.storage, caller.tenantId, { wallets: WALLETS }).wallets.find(
    { and: filters },
    { limit: q.limit ?? MAX_PAGE, cursor: q.cursor },
  )
  const result: { wallets: WalletView[]; nextCursor?: string } = { wallets: page.items.map((w) => presentWallet(w)) }
  if (page.nextCursor !== undefined) result.nextCursor = page.nextCursor
  return result
}

/** Rename Identity Wallet: each item is renamed or reported in `errors`. */
export async function renameWallets(
  ctx: Pick<WalletsContext, 'audit' | 'callers' | 'onError' | 'onItemFailure' | 'storage'>,
  caller: Caller,
  input: z.output<typeof schemas.renameWallets>,
): Promise<{ wallets: WalletView[]; errors: Array<{ wallet: { did: string; alias: string }; error: ErrorBody }> }> {
  const { wallets } = tenantCollections(ctx.storage, caller.tenantId, { wallets: WALLETS })
  const { results, errors } = await forEachItem(
    ctx,
    caller,
    'rename wallet',
    input.wallets,
    async (item) => {
      const wallet = await findByDid(wallets, item.did)
      await assertControlsWallet(ctx, caller, wallet)
      const updated = await uniqueOr(
        () =>
          ctx.storage.transaction(async (tx) => {
            const renamed = await tenantCollections(tx, caller.tenantId, { wallets: WALLETS }).wallets.update(wallet.id, {
              alias: item.alias,
            })
            if (renamed) await ctx.audit.append(tx, caller, [{ action: 'wallet.rename', target: { type: 'wallet', id: wallet.did } }])
            return renamed
          }),
        aliasConflict,
      )
      if (!updated) throw notFound(`no wallet with DID ${item.did}`)
      return presentWallet(updated)
    },
    (item, error) => ({ wallet: { did: item.did, alias: item.alias }, error }),
  )
  return { wallets: results, errors }
}

/** Delete Identity Wallet: `ids` are wallet ids or DIDs; removed DIDs are listed, failures reported in `errors`. */
export async function deleteWallets(
  ctx: Pick<WalletsContext, 'audit' | 'callers' | 'didReferences' | 'keyManager' | 'now' | 'onError' | 'onItemFailure' | 'storage'>,
  caller: Caller,
  input: z.output<typeof schemas.deleteWallets>,
): Promise<{ ids: string[]; errors: Array<{ did: string; error: ErrorBody }> }> {
  const { wallets } = tenantCollections(ctx.storage, caller.tenantId, { wallets: WALLETS })
  const { results, errors } = await forEachItem(
    ctx,
    caller,
    'delete wallet',
    input.ids,
    async (ref) => {
      const wallet = ref.startsWith('did:') ? await findByDid(wallets, ref) : await wallets.get(ref)
      if (!wallet) throw notFound(`no wallet with id ${ref}`)
      await assertControlsWallet(ctx, caller, wallet)
      if (wallet.role) throw conflict(`${wallet.did} is a role DID: delete the role (DELETE /roles), which deletes its wallet`)
      // The wallet, the delegate keys generated for it and the roles assigned to it go together.
      const destroyed = await ctx.storage.transaction(async (tx) => {
        const keyRefs = await deleteWalletRecord(tx, ctx.keyManager, caller.tenantId, wallet.id, ctx.now())
        if (keyRefs === undefined) return undefined
        await ctx.didReferences.forget(tx, caller.tenantId, [wallet.did])
        await ctx.audit.append(tx, caller, [{ action: 'wallet.delete', target: { type: 'wallet', id: wallet.did } }])
        return keyRefs
      })
      if (destroyed === undefined) throw notFound(`no wallet with id ${ref}`)
      // The records are gone (committed): now the key in the token, audited.
      await destroyKeyMaterial(ctx, caller, destroyed)
      return wallet.did
    },
    (ref, error) => ({ did: ref, error }),
  )
  return { ids: results, errors }
}

/** Where a deleted wallet's keys are destroyed: the key port, inside the deleting transaction. */
type KeyDestroyer = Pick<KeyManager, 'destroyKeys'>

/**
 * Deletes a wallet, the delegate keys generated for it and the keys the key port holds for both, inside `tx`; the
 * references of the keys destroyed, or undefined when the wallet was not there. Its DID's references elsewhere (role
 * assignments) are the caller's to forget; once `tx` committed, the keys' material outside the storage (an HSM wallet's
 * token object) is the caller's to destroy ({@link destroyKeyMaterial}).
 */
export async function deleteWalletRecord(
  tx: StorageAdapter,
  keys: KeyDestroyer,
  tenantId: string,
  walletId: string,
  now = Date.now(),
): Promise<string[] | undefined> {
  const c = tenantCollections(tx, tenantId, { delegateKeys: DELEGATE_KEYS, wallets: WALLETS })
  const wallet = await c.wallets.get(walletId)
  if (!wallet || !(await c.wallets.delete(walletId))) return undefined
  const delegates = await c.delegateKeys.all({ field: 'walletId', op: 'eq', value: walletId })
  await c.delegateKeys.deleteMany({ field: 'walletId', op: 'eq', value: walletId })
  const webKeys = await deactivateDidWebs(tx, [wallet], now)
  const keyRefs = [...keyRefsOf([wallet, ...delegates]), ...webKeys]
  await keys.destroyKeys(tx, tenantId, keyRefs)
  return keyRefs
}

/**
 * After the transaction that deleted keys' records committed: destroys their material outside the storage (the `hsm`
 * backend's token objects, C_DestroyObject) — records first, then the token, so no record ever names a key that is
 * gone while a request may still reach it — and appends `hsmKey.destroy` per key to the audit trail (refused, with the
 * error type, when the token could not destroy it: the object is then left in the token, unreachable, and the
 * operator is told through `onError`). Keys of other backends are passed over.
 */
export async function destroyKeyMaterial(
  ctx: Pick<WalletsContext, 'audit' | 'keyManager' | 'onError'>,
  caller: Caller,
  keyRefs: readonly string[],
): Promise<void> {
  const outcomes = await ctx.keyManager.destroyMaterial(caller.tenantId, keyRefs)
  if (outcomes.length === 0) return
  for (const o of outcomes)
    if (o.error) ctx.onError(caller.operation ?? 'destroy key', o.error, { requestId: caller.requestId, item: `HSM key ${o.keyRef}` })
  await ctx.audit.record(
    caller,
    outcomes.map((o) => ({
      action: 'hsmKey.destroy' as const,
      target: { type: 'hsmKey', id: o.keyRef },
      ...(o.error && { outcome: 'refused' as const, error: o.error.errorType }),
    })),
  )
}

/** Deactivates the DIDs of the did:web wallets among `wallets` (deleted in `tx`); the keys of their generated delegates. */
async function deactivateDidWebs(tx: StorageAdapter, wallets: readonly WalletRecord[], now: number): Promise<string[]> {
  const keyRefs: string[] = []
  for (const wallet of wallets) {
    const web = didWebWalletOf(wallet)
    if (web !== undefined) keyRefs.push(...(await deactivateDidWeb(tx, web, now)))
  }
  return keyRefs
}

/**
 * Deletes a vault's wallets (`wallets`, read in `tx`), their delegate keys and the keys the key port holds for them,
 * inside `tx`. Their DIDs' references elsewhere are the caller's to forget.
 */
export async function deleteVaultWalletRecords(
  tx: StorageAdapter,
  keys: KeyDestroyer,
  tenantId: string,
  vaultId: string,
  wallets: readonly WalletRecord[],
  now = Date.now(),
): Promise<string[]> {
  const c = tenantCollections(tx, tenantId, { delegateKeys: DELEGATE_KEYS, wallets: WALLETS })
  const where = { field: 'walletId', op: 'in', value: wallets.map((w) => w.id) } as const
  const delegates = await c.delegateKeys.all(where)
  await c.delegateKeys.deleteMany(where)
  await c.wallets.deleteMany({ field: 'vaultId', op: 'eq', value: vaultId })
  const webKeys = await deactivateDidWebs(tx, wallets, now)
  const keyRefs = [...keyRefsOf([...wallets, ...delegates]), ...webKeys]
  await keys.destroyKeys(tx, tenantId, keyRefs)
  return keyRefs
}

/** The key-port references of `records`' keys: a wallet's own key and its BBS assertion key, a delegate's key. */
const keyRefsOf = (records: ReadonlyArray<{ keyRef?: string; bbsKey?: { keyRef: string } }>): string[] =>
  records.flatMap((r) => [r.keyRef, r.bbsKey?.keyRef].filter((ref): ref is string => ref !== undefined && ref !== ''))

async function findByDid(wallets: Wallets, did: string): Promise<WalletRecord> {
  const wallet = await wallets.findOne({ field: 'did', op: 'eq', value: principalOf(did) })
  if (!wallet) throw notFound(`no wallet with DID ${did}`)
  return wallet
}
