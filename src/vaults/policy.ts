/** The vaults' slice of the access policy: vault control. Pure: see `auth/policy-engine.ts`. */
import { decide, type VaultKeyFacts } from '../auth/policy-engine.js'
import { vaultControl, type VaultFacts } from '../wallets/policy.js'

export const VAULT_RULES = {
  controlVault: [vaultControl],
}

/** Vault control: create wallets in it, delete it, govern its wallets. */
export const controlsVault = (caller: VaultKeyFacts, vault: VaultFacts) => decide(VAULT_RULES.controlVault, caller, vault).allowed
