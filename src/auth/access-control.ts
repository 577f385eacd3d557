/**
 * What operations call to enforce the access policy: gather the facts (`facts.ts`), ask the
 * pure policy (`policy.ts`), and refuse with 403 FORBIDDEN saying what was missing.
 */
import { forbidden } from '../errors.js'
import type { RoleRecord, WalletRecord } from '../storage/collections.js'
import type { Caller } from './context.js'
import type { AccessFacts } from '../roles/caller-facts.js'
import { canManageRole, controlsVault, controlsWallet } from './policy-engine.js'

/** The access checks operations make; each refuses with 403 FORBIDDEN. */
export class AccessControl {
  constructor(readonly facts: AccessFacts) {}

  /**
   * DID control of the wallet's DID, or vault control of its vault. The caller's vault keys (a
   * query) are looked up only when its keys alone do not decide: the rules only grant more
   * with more facts, so a grant on fewer facts stands.
   */
  async assertControlsWallet(caller: Caller, wallet: Pick<WalletRecord, 'did' | 'vaultId'>): Promise<void> {
    const target = await this.facts.wallet(wallet, caller)
    if (controlsWallet({ addresses: new Set(caller.addresses), vaultKeys: new Set() }, target)) return
    if (!controlsWallet(await this.facts.vaultKeys(caller), target)) {
      throw forbidden(`the DID-auth tokens prove neither control of ${wallet.did} (its owner key) nor of its vault (the own key of one of its wallets)`)
    }
  }

  /** Vault control: the own key of one of its wallets, its root wallet's included. */
  async assertControlsVault(caller: Caller, vault: { id: string; rootDid?: string }): Promise<void> {
    if (!controlsVault(await this.facts.vaultKeys(caller), this.facts.vault(vault))) {
      throw forbidden('the DID-auth tokens prove no control of this vault: none was signed by the own key of one of its wallets')
    }
  }

  /** The role's creator, or the holder of the role DID's owner key. */
  async assertManagesRole(caller: Caller, role: Pick<RoleRecord, 'did' | 'creator'>): Promise<void> {
    const [facts, target] = await Promise.all([this.facts.acting(caller), this.facts.role(role, caller)])
    if (!canManageRole(facts, target)) {
      throw forbidden(`only the creator of role ${role.did} or the holder of its owner key may change it or its assignments`)
    }
  }
}
