/**
 * The status lists' slice of the access policy: changing an entry of a list is for whoever
 * controls the list's issuer DID (its owner key) or the vault holding the issuer's wallet —
 * nobody else: not another wallet, a role holder or a delegate of the issuer. Pure: see `auth/policy-engine.ts`.
 */
import { decide, type VaultKeyFacts } from '../auth/policy-engine.js'
import { WALLET_RULES, type WalletFacts } from '../wallets/policy.js'

export const STATUS_RULES = {
  /** The grounds of wallet control, over the issuer's wallet. */
  changeStatus: WALLET_RULES.controlWallet,
}

/** Whether the caller may change entries of lists issued by the wallet `issuer`. */
export const changesStatus = (caller: VaultKeyFacts, issuer: WalletFacts) => decide(STATUS_RULES.changeStatus, caller, issuer)
