/**
 * Access policy: who may act on a wallet (DESIGN §4 "Wallet control"). Acting on a DID — changing
 * its document, renaming or deleting its wallet, signing with it — takes the key of the DID
 * document's current **owner**: a DID-auth token signed by a delegate authenticates the DID but
 * confers no owner rights (ERC-1056 gives delegates none either).
 */
import type { Resolvable } from 'did-resolver'
import { forbidden } from '../errors.js'
import { parseEthrDid } from '../did/ethr.js'
import type { TenantCollection } from '../storage/tenant-scope.js'
import type { WalletRecord } from '../storage/collections.js'
import type { Caller } from './context.js'

export class AccessPolicy {
  constructor(private readonly resolver: Resolvable) {}

  /**
   * Whether the caller controls `did`: it holds the key of the DID document's current owner
   * (one of its DID-auth tokens was signed by that key, whatever DID the token named).
   */
  async controlsDid(caller: Caller, did: string): Promise<boolean> {
    if (caller.addresses.length === 0) return false
    const owner = await this.ownerAddress(did)
    return owner !== undefined && caller.addresses.includes(owner)
  }

  /** The address of the current owner of a did:ethr document (its `#controller`). */
  async ownerAddress(did: string): Promise<string | undefined> {
    const { didDocument } = await this.resolver.resolve(did)
    const controller = didDocument?.verificationMethod?.find((vm) => vm.id === `${did}#controller`)
    const account = controller?.blockchainAccountId?.split(':').pop()
    return account ? parseEthrDid(`did:ethr:${account}`)?.address : undefined
  }

  /**
   * Whether the caller may act on `wallet`: it controls the wallet's DID, or the DID of a
   * wallet in the same vault.
   */
  async controlsWallet(caller: Caller, wallet: WalletRecord, wallets: TenantCollection<WalletRecord>): Promise<boolean> {
    if (await this.controlsDid(caller, wallet.did)) return true
    return wallet.vaultId !== undefined && this.controlsVault(caller, { id: wallet.vaultId }, wallets)
  }

  /**
   * Whether the caller controls the vault: the DID of one of its wallets, or its root DID (the
   * DID of the wallet it was created with, which keeps the vault governable once emptied).
   */
  async controlsVault(caller: Caller, vault: { id: string; rootDid?: string }, wallets: TenantCollection<WalletRecord>): Promise<boolean> {
    if (caller.dids.length === 0) return false
    // The wallets of this vault among the caller's DIDs (a unique index, a handful of rows), each counting only if the caller holds its owner key.
    const mine = await wallets.find({ field: 'did', op: 'in', value: caller.dids }, { limit: caller.dids.length })
    for (const w of mine.items) if (w.vaultId === vault.id && (await this.controlsDid(caller, w.did))) return true
    return vault.rootDid !== undefined && this.controlsDid(caller, vault.rootDid)
  }

  async assertControlsWallet(caller: Caller, wallet: WalletRecord, wallets: TenantCollection<WalletRecord>): Promise<void> {
    if (!(await this.controlsWallet(caller, wallet, wallets))) throw forbidden(`the DID-auth token does not prove control of ${wallet.did}`)
  }

  async assertControlsVault(caller: Caller, vault: { id: string; rootDid?: string }, wallets: TenantCollection<WalletRecord>): Promise<void> {
    if (!(await this.controlsVault(caller, vault, wallets))) throw forbidden('the DID-auth token does not prove control of a wallet of this vault')
  }
}
