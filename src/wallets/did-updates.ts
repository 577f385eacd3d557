/**
 * Applying a `walletConfig`'s `txsInput` to a wallet's DID document through its network's
 * {@link DidRegistry} (DESIGN §4): in order; `validity` ms → ERC-1056 seconds (rounded up);
 * `service` → attribute `did/svc/<name>` = the URL; `delegate.address` → a `veriKey`
 * delegate; `delegate` with only `validity` → a new key of the key port, linked to the wallet
 * in `delegateKeys` and added as a `veriKey` delegate; `newOwner` → an owner change to the DID's
 * address (the address of its key, for a public-key DID).
 *
 * Each change is signed by the identity's current owner, which must be a wallet of the same
 * tenant (the wallet itself, or the wallet a previous `newOwner` named); otherwise the item
 * fails. The first failure stops the list: later items depend on the order, so they are not
 * applied, and the report says which item failed and why. What the report lists as applied is
 * recorded in the registry.
 */
import { randomUUID } from 'node:crypto'
import { hexlify, toUtf8Bytes } from 'ethers'
import { forbidden, invalid } from '../errors.js'
import { eip55Address, parseEthrDid } from '../did/methods/ethr/index.js'
import { RegistryError, validitySeconds, type AppliedChange, type DidRegistry, type RegistryChange } from '../did/methods/ethr/index.js'
import { addressOf, bytesToHex } from '../keys/secp256k1.js'
import { ecPoint } from '../keys/types/curve.js'
import type { z } from 'zod'
import type { TxInput, registryReport } from './config-schemas.js'
import type { DelegateKeyRecord, WalletRecord } from './records.js'
import type { ApprovalEvidence } from '../mpc/approvals.js'
import { DELEGATE_KEYS, WALLETS } from './records.js'
import { tenantCollections } from '../storage/declaration.js'
import type { WalletsContext } from './context.js'
import { itemError } from '../operations/batch.js'
import type { Caller } from '../auth/context.js'

/** What the registry did for a `walletConfig`; shown as the wallet's `registry` in responses. */
export type RegistryReport = z.infer<typeof registryReport>
/** One applied `txsInput` element. */
export type TransactionView = RegistryReport['transactions'][number]
/** A delegate key the service generated for a wallet (never its private key). */
export type DelegateView = NonNullable<TransactionView['delegate']>

/**
 * Applies `txs` in order to `wallet`'s DID document through `registry`. The caller's verified
 * DIDs count as member approvals when the owner is an MPC wallet. Each applied change is
 * recorded in the audit trail (`did.update`) once the registry has it: an on-chain change
 * cannot share a transaction with the storage, so the record is a transaction of its own.
 */
export async function applyTxs(
  ctx: Pick<WalletsContext, 'audit' | 'keyManager' | 'now' | 'onError' | 'onItemFailure' | 'signers' | 'storage'>,
  wallet: WalletRecord,
  registry: DidRegistry,
  txs: TxInput[],
  caller: Caller,
): Promise<RegistryReport> {
  const report: RegistryReport = { apiUrl: registry.endpoint, transactions: [], errors: [] }
  for (const [index, tx] of txs.entries()) {
    try {
      const applied = await applyOne(ctx, wallet, registry, tx, caller)
      await ctx.audit.record(caller, [{ action: 'did.update', target: { type: 'did', id: wallet.did } }])
      report.transactions.push({ index, ...applied })
    } catch (err) {
      const error = err instanceof RegistryError ? invalid(err.message) : err
      report.errors.push({ index, error: itemError(ctx, caller, error, 'apply walletConfig') })
      break
    }
  }
  return report
}

async function applyOne(
  ctx: Pick<WalletsContext, 'keyManager' | 'now' | 'signers' | 'storage'>,
  wallet: WalletRecord,
  registry: DidRegistry,
  tx: TxInput,
  approvals?: ApprovalEvidence,
): Promise<Omit<TransactionView, 'index'>> {
  const identity = ethrAddressOf(wallet)
  const owner = await ownerWallet(ctx, wallet, registry)
  // An MPC owner's quorum is checked here for every registry: the embedded one records changes without a signature.
  await ctx.signers.authorize(owner, 'changeDidDocument', approvals)
  // The did:ethr registries sign ERC-1056 digests: a secp256k1 owner key's digest signer.
  const signer = ctx.signers.signerFor(owner, approvals).digest
  if (!signer) throw invalid(`the owner of ${wallet.did} has no secp256k1 key: the did:ethr registries sign with secp256k1 keys only`)
  const sign = (change: RegistryChange) => registry.apply(identity, change, signer)
  if (tx.newOwner !== undefined) {
    // Either form of a key's DID: the owner is its address.
    const newOwner = parseEthrDid(tx.newOwner)
    if (!newOwner) throw invalid('newOwner: must be a did:ethr DID (an address, or a secp256k1 public key)')
    return sign({ op: 'changeOwner', newOwner: newOwner.address })
  }
  if (tx.service !== undefined) {
    const { name, value, validity } = tx.service
    return sign({ op: 'setAttribute', name: `did/svc/${name}`, value: hexlify(toUtf8Bytes(value)), validity: validitySeconds(validity) })
  }
  const { address, validity } = tx.delegate!
  if (address !== undefined) {
    const delegate = eip55Address(address)
    if (delegate === undefined) throw invalid('delegate.address: not an Ethereum address (its mixed case is not a valid EIP-55 checksum)')
    return sign({ op: 'addDelegate', delegateType: 'veriKey', delegate, validity: validitySeconds(validity) })
  }
  return addGeneratedDelegate(ctx, wallet, validitySeconds(validity), sign)
}

/**
 * A new key of the key port, added as the wallet's `veriKey` delegate, then stored with its
 * delegate record (which names it by `keyRef`) in one transaction. Nothing is written when the
 * registry refuses; should the write fail after the registry took the change, the DID document
 * names a delegate whose key no one holds, which signs nothing.
 */
async function addGeneratedDelegate(
  ctx: Pick<WalletsContext, 'keyManager' | 'now' | 'storage'>,
  wallet: WalletRecord,
  validity: number,
  sign: (change: RegistryChange) => Promise<AppliedChange>,
): Promise<Omit<TransactionView, 'index'>> {
  const key = await ctx.keyManager.stageKey({ tenantId: wallet.tenantId, type: 'secp256k1' })
  const publicKey = ecPoint(key.publicJwk)
  const ethereumAddress = addressOf(publicKey)
  const applied = await sign({ op: 'addDelegate', delegateType: 'veriKey', delegate: ethereumAddress, validity })
  const validTo = applied.validTo ?? Math.floor(ctx.now() / 1000) + validity
  const record: DelegateKeyRecord = {
    id: randomUUID(),
    tenantId: wallet.tenantId,
    walletId: wallet.id,
    did: wallet.did,
    delegateType: 'veriKey',
    ethereumAddress,
    publicKeyHex: bytesToHex(publicKey),
    keyRef: key.keyRef,
    validTo,
    createdAt: ctx.now(),
  }
  await ctx.storage.transaction(async (tx) => {
    await key.store(tx)
    await tenantCollections(tx, wallet.tenantId, { delegateKeys: DELEGATE_KEYS }).delegateKeys.insert(record)
  })
  return { ...applied, delegate: { address: ethereumAddress, publicKeyHex: record.publicKeyHex, delegateType: 'veriKey', validTo } }
}

/**
 * The wallet of the same tenant whose key is the identity's current owner (the wallet itself,
 * or the wallet a previous `newOwner` named). 403 naming the owner when the service holds no
 * such key: the change must then be signed by whoever holds it. `knownOwner`: the owner as this
 * request already established it (a token its `#controller` key signed), instead of asking the
 * registry again.
 */
export async function ownerWallet(
  ctx: Pick<WalletsContext, 'signers' | 'storage'>,
  wallet: WalletRecord,
  registry: DidRegistry,
  knownOwner?: string,
): Promise<WalletRecord> {
  const owner = knownOwner ?? (await registry.identityOwner(ethrAddressOf(wallet)))
  const found =
    owner === wallet.ethereumAddress
      ? wallet
      : await tenantCollections(ctx.storage, wallet.tenantId, { wallets: WALLETS }).wallets.findOne({
          field: 'ethereumAddress',
          op: 'eq',
          value: owner,
        })
  if (!found || !ctx.signers.canSign(found))
    throw forbidden(`the owner ${owner} of ${wallet.did} is not a key this service holds for the tenant: it cannot sign the change`)
  return found
}

/** The ERC-1056 identity of a did:ethr wallet: its key's address (422 for a wallet of another method). */
function ethrAddressOf(wallet: WalletRecord): string {
  if (wallet.didMethod !== 'ethr' || wallet.ethereumAddress === undefined)
    throw invalid(`${wallet.did}: not a did:ethr wallet; its DID document is not kept in a did:ethr registry`)
  return wallet.ethereumAddress
}
