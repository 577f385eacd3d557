/**
 * The wallets' slice of the access policy: control of a wallet — DID control of its DID, or
 * vault control of its vault (DESIGN §4 "Wallet control"). Pure: see `auth/policy-engine.ts`.
 */
import { decide, holdsKey, type Rule, type VaultKeyFacts } from '../auth/policy-engine.js'

/** A vault, as far as control goes. */
export interface VaultFacts {
  id: string
  /** Key id (`keys/key-ids.ts`) of the wallet the vault was created with: its key governs the vault even once that wallet is gone. */
  rootKey?: string
}

/** A wallet, as far as control goes. */
export interface WalletFacts {
  did: string
  /** Key ids of the keys that control the wallet's DID now (`CallerFactSource.controllingKeys`). */
  controllingKeys?: readonly string[]
  vault?: VaultFacts
}

/** Vault control: the caller holds the own key of one of the vault's wallets, its root wallet's included. */
export const vaultControl: Rule<VaultKeyFacts, VaultFacts> = {
  ground: 'holds the own key of one of its wallets (vault control)',
  holds: (c, v) => c.vaultKeys.has(v.id) || holdsKey(c, v.rootKey === undefined ? undefined : [v.rootKey]),
}

export const WALLET_RULES = {
  controlWallet: [
    { ground: 'holds the owner key of its DID (DID control)', holds: (c, w) => holdsKey(c, w.controllingKeys) },
    { ground: 'controls its vault', holds: (c, w) => w.vault !== undefined && vaultControl.holds(c, w.vault) },
  ] satisfies Rule<VaultKeyFacts, WalletFacts>[],
}

/** Control of a wallet: DID control of its DID, or vault control of its vault. */
export const controlsWallet = (caller: VaultKeyFacts, wallet: WalletFacts) => decide(WALLET_RULES.controlWallet, caller, wallet).allowed
