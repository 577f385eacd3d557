/**
 * `walletConfig.txsInput` on a did:web wallet (the did:web branch of {@link walletConfigApplier}): checked whole
 * before anything is written, applied by the did:web method's storage in one transaction with its audit acts (one
 * `did.update` per version), reported like a registry's changes: `apiUrl` the document's URL, each element's
 * `op` and `versionId`; a failure of that transaction (nothing applied) is the report's one error. A document whose
 * `controller` is a DID no wallet of the tenant holds is no longer the service's to change: 403 naming the controller.
 */
import { forbidden, invalid } from '../errors.js'
import { applyDidWebTxs, changesOfDidWeb, checkDidWebTxs, didWebUrl, type AppliedDidWebTx, type DidWebTx } from '../did/methods/index.js'
import type { Caller } from '../auth/context.js'
import { itemError } from '../operations/batch.js'
import { tenantCollections } from '../storage/declaration.js'
import type { TxInput } from './config-schemas.js'
import type { RegistryReport, TransactionView } from './did-updates.js'
import type { WalletsContext } from './context.js'
import { didWebWalletOf } from './did-web-wallets.js'
import { WALLETS, type WalletRecord } from './records.js'

type Context = Pick<WalletsContext, 'audit' | 'keyManager' | 'now' | 'onError' | 'onItemFailure' | 'storage'>

/** Checks `txs` for a did:web wallet (422 naming the element; nothing written) and returns what applies them. */
export function didWebApplier(
  ctx: Context,
  txs: readonly TxInput[],
  caller: Caller,
): (wallet: WalletRecord) => Promise<RegistryReport | undefined> {
  const checked = checkDidWebTxs(txs)
  return async (wallet) => (checked.length === 0 ? undefined : applyDidWebConfig(ctx, wallet, checked, caller))
}

/** Applies checked `txs` to `wallet`'s did:web document; 403 when its controller is not a wallet of the caller's tenant. */
export async function applyDidWebConfig(
  ctx: Context,
  wallet: WalletRecord,
  txs: readonly DidWebTx[],
  caller: Caller,
): Promise<RegistryReport> {
  const web = didWebWalletOf(wallet)
  if (web === undefined) throw invalid(`${wallet.did}: not a did:web wallet whose key this service holds`)
  await assertServiceControls(ctx, wallet)
  const url = didWebUrl(wallet.did)
  const report: RegistryReport = { apiUrl: url instanceof URL ? url.href : wallet.did, transactions: [], errors: [] }
  try {
    const applied = await applyDidWebTxs(ctx, web, txs, (tx, changes) =>
      ctx.audit.append(
        tx,
        caller,
        changes.map(() => ({ action: 'did.update' as const, target: { type: 'did' as const, id: wallet.did } })),
      ),
    )
    report.transactions = applied.map((a, index) => ({ index, ...transactionOf(wallet.did, a) }))
  } catch (err) {
    // One transaction: nothing was applied. Reported like a registry's failure (the wallet itself may already exist).
    report.errors.push({ index: 0, error: itemError(ctx, caller, err, 'apply walletConfig') })
  }
  return report
}

/** 403 when the document's `controller` is a DID that no wallet of the wallet's tenant holds. */
async function assertServiceControls(ctx: Pick<Context, 'storage'>, wallet: WalletRecord): Promise<void> {
  const controller = (await changesOfDidWeb(ctx.storage, wallet.did))
    .flatMap((r) => (r.change.kind === 'controller' ? [r.change.controller] : []))
    .at(-1)
  if (controller === undefined || controller === wallet.did) return
  const held = await tenantCollections(ctx.storage, wallet.tenantId, { wallets: WALLETS }).wallets.findOne({
    field: 'did',
    op: 'eq',
    value: controller,
  })
  if (held === undefined) throw forbidden(`${wallet.did} is controlled by ${controller}, whose key this service does not hold`)
}

function transactionOf(did: string, { version, change }: AppliedDidWebTx): Omit<TransactionView, 'index'> {
  const versionId = String(version)
  if (change.kind === 'service') return { op: 'addService', versionId, validTo: change.validTo }
  if (change.kind === 'controller') return { op: 'changeController', versionId }
  if (change.kind === 'delegate') {
    const delegate = {
      id: `${did}#key-${version}`,
      publicKeyJwk: change.publicKeyJwk,
      delegateType: 'assertionMethod',
      validTo: change.validTo,
    }
    return { op: 'addDelegate', versionId, validTo: change.validTo, delegate }
  }
  throw new TypeError('did:web: a deactivation is not a txsInput change')
}
