/**
 * Access policy: who may act on a wallet (DESIGN §4 "Wallet control"). A caller controls a
 * DID when it proved control of it, or of the DID-document owner of it.
 */
import type { Resolvable } from 'did-resolver'
import { forbidden } from '../errors.js'
import { parseEthrDid } from '../did/ethr.js'
import type { TenantCollection } from '../storage/tenant-scope.js'
import type { WalletRecord } from '../storage/collections.js'
import type { Caller } from './context.js'

export class AccessPolicy {
  constructor(private readonly resolver: Resolvable) {}

  /** Whether the caller controls `did`: proved it directly, or proved the DID of its document owner. */
  async controlsDid(caller: Caller, did: string): Promise<boolean> {
    if (caller.dids.includes(did)) return true
    const owner = await this.ownerAddress(did)
    if (!owner) return false
    return caller.dids.some((d) => parseEthrDid(d)?.address === owner)
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
    return wallet.vaultId !== undefined && this.controlsVault(caller, wallet.vaultId, wallets)
  }

  /** Whether the caller controls the DID of some wallet in the vault. */
  async controlsVault(caller: Caller, vaultId: string, wallets: TenantCollection<WalletRecord>): Promise<boolean> {
    if (caller.dids.length === 0) return false
    // The caller's wallets by DID (a unique index, a handful of rows), then their vault.
    const mine = await wallets.find({ field: 'did', op: 'in', value: caller.dids }, { limit: caller.dids.length })
    return mine.items.some((w) => w.vaultId === vaultId)
  }

  async assertControlsWallet(caller: Caller, wallet: WalletRecord, wallets: TenantCollection<WalletRecord>): Promise<void> {
    if (!(await this.controlsWallet(caller, wallet, wallets))) throw forbidden(`the DID-auth token does not prove control of ${wallet.did}`)
  }

  async assertControlsVault(caller: Caller, vaultId: string, wallets: TenantCollection<WalletRecord>): Promise<void> {
    if (!(await this.controlsVault(caller, vaultId, wallets))) throw forbidden('the DID-auth token does not prove control of a wallet of this vault')
  }
}
