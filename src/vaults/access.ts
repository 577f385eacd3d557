/** Enforcing the vaults' slice of the policy: vault control, or 403. */
import type { Caller } from '../auth/context.js'
import type { CallerFactSource } from '../auth/facts.js'
import { parseEthrDid } from '../did/methods/ethr/index.js'
import { forbidden } from '../errors.js'
import type { VaultFacts } from '../wallets/policy.js'
import { controlsVault } from './policy.js'

/**
 * A vault's facts: the key id of its root wallet's own key — recorded when the vault was made (`rootKeyId`), or for a
 * vault made before key ids, the address of its did:ethr root DID.
 */
export function vaultFacts(vault: { id: string; rootDid?: string; rootKeyId?: string }): VaultFacts {
  const facts: VaultFacts = { id: vault.id }
  const root = vault.rootKeyId ?? (vault.rootDid === undefined ? undefined : parseEthrDid(vault.rootDid)?.address)
  if (root !== undefined) facts.rootKey = root
  return facts
}

/** Vault control: the own key of one of its wallets, its root wallet's included; 403 FORBIDDEN otherwise. */
export async function assertControlsVault(
  ctx: { callers: CallerFactSource },
  caller: Caller,
  vault: { id: string; rootDid?: string; rootKeyId?: string },
): Promise<void> {
  if (!controlsVault(await ctx.callers.vaultKeys(caller), vaultFacts(vault))) {
    throw forbidden('the DID-auth tokens prove no control of this vault: none was signed by the own key of one of its wallets')
  }
}
