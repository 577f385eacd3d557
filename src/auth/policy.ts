/**
 * Access policy for wallets and vaults (DESIGN §4 "Wallet control"). Two kinds of control,
 * never confused:
 *
 * - **DID control**: the caller holds the key of the DID document's current **owner** (one of
 *   its DID-auth tokens was signed by that key). It reaches that one DID: rename or delete its
 *   wallet record, change its document. A delegate's token authenticates its DID but confers
 *   no owner rights (ERC-1056 gives delegates none either).
 * - **Vault control**: the caller holds the **own key of one of the vault's wallets** (the key
 *   the wallet was made with, its root wallet's included). It governs the vault and all its
 *   wallets. Owning the DID of a wallet whose ownership moved to an outside key gives no right
 *   over the vault or its other wallets: that key is not one the vault holds.
 *
 * Control always follows the address of the key that signed a token, never an address
 * spelled in a DID the token names.
 */
import type { Resolvable } from 'did-resolver'
import { forbidden } from '../errors.js'
import { parseEthrDid } from '../did/ethr.js'
import type { TenantCollection } from '../storage/tenant-scope.js'
import type { WalletRecord } from '../storage/collections.js'
import type { Caller } from './context.js'

/** What the policy needs of a vault. */
export interface VaultRef {
  id: string
  /** DID of the wallet the vault was created with: its key governs the vault even once that wallet is gone. */
  rootDid?: string
}

/** Wallets looked at per vault-control check (a caller proves at most 10 keys; each key is one wallet's). */
const MAX_KEYS_CHECKED = 100

export class AccessPolicy {
  constructor(private readonly resolver: Resolvable) {}

  /** DID control: the caller holds the key of the current owner of `did`'s document. */
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
   * Vault control: one of the caller's signing keys is the own key of a wallet of the vault,
   * or of the vault's root wallet. One indexed query: the tenant's wallets whose address is a
   * caller address (a handful: keys are unique), then whether one is in this vault.
   */
  async controlsVault(caller: Caller, vault: VaultRef, wallets: TenantCollection<WalletRecord>): Promise<boolean> {
    if (caller.addresses.length === 0) return false
    const root = vault.rootDid === undefined ? undefined : parseEthrDid(vault.rootDid)?.address
    if (root !== undefined && caller.addresses.includes(root)) return true
    const held = await wallets.find({ field: 'ethereumAddress', op: 'in', value: caller.addresses }, { orderBy: { field: 'ethereumAddress' }, limit: MAX_KEYS_CHECKED })
    return held.items.some((w) => w.vaultId === vault.id)
  }

  /** Control of a wallet: DID control of its DID, or vault control of its vault. */
  async controlsWallet(caller: Caller, wallet: WalletRecord, wallets: TenantCollection<WalletRecord>): Promise<boolean> {
    if (wallet.vaultId !== undefined && (await this.controlsVault(caller, { id: wallet.vaultId }, wallets))) return true
    return this.controlsDid(caller, wallet.did)
  }

  async assertControlsWallet(caller: Caller, wallet: WalletRecord, wallets: TenantCollection<WalletRecord>): Promise<void> {
    if (!(await this.controlsWallet(caller, wallet, wallets))) {
      throw forbidden(`the DID-auth tokens prove neither control of ${wallet.did} (its owner key) nor of its vault (the own key of one of its wallets)`)
    }
  }

  async assertControlsVault(caller: Caller, vault: VaultRef, wallets: TenantCollection<WalletRecord>): Promise<void> {
    if (!(await this.controlsVault(caller, vault, wallets))) {
      throw forbidden('the DID-auth tokens prove no control of this vault: none was signed by the own key of one of its wallets')
    }
  }
}
