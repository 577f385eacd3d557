/** The vault shape the spec's responses show. */
import type { VaultView } from './schemas.js'
import type { VaultRecord } from './records.js'
import type { WalletRecord } from '../wallets/records.js'
import { presentWallet } from '../wallets/build.js'

/** The response shape of a vault with its wallets (`mnemonic` only in an ECS + BIP44 vault's create response). */
export function presentVault(v: VaultRecord, wallets: WalletRecord[], mnemonic?: string): VaultView {
  const view: VaultView = {
    id: v.id,
    name: v.name,
    description: v.description,
    hierarchy: v.hierarchy,
    keyManagement: v.keyManagement,
    status: v.status,
    wallets: wallets.map((w) => presentWallet(w, { sealedKey: true })),
  }
  if (v.parentID !== undefined) view.parentID = v.parentID
  if (mnemonic !== undefined) view.mnemonic = mnemonic
  if (v.walletConfig !== undefined) view.walletConfig = v.walletConfig
  if (v.mpcAccountID !== undefined) view.mpcAccountID = v.mpcAccountID
  if (v.mpcVaultID !== undefined) view.mpcVault = { id: v.mpcVaultID }
  return view
}
