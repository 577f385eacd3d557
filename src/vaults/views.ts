/** The vault shape the spec's responses show. */
import type { VaultView } from './schemas.js'
import type { VaultRecord } from './records.js'
import type { WalletRecord } from '../wallets/records.js'
import { presentWallet } from '../wallets/build.js'
import { sealedEnvelopes } from '../keys/backends/sealed/index.js'
import type { StorageAdapter } from '../storage/port.js'

/** A wallet's key envelope, by wallet id: what vault responses show as `privateKeyHex`. */
export type KeyEnvelopes = ReadonlyMap<string, string>

/**
 * The sealed envelopes of `wallets`' keys (never plaintext), by wallet id: the envelope in the
 * wallet record for wallets made before the key port, the `sealed` backend's record for the
 * others (one read per key). MPC wallets have none.
 */
export async function keyEnvelopes(storage: StorageAdapter, tenantId: string, wallets: readonly WalletRecord[]): Promise<KeyEnvelopes> {
  const byRef = await sealedEnvelopes(
    storage,
    tenantId,
    wallets.flatMap((w) => (w.keyRef === undefined ? [] : [w.keyRef])),
  )
  const envelopes = new Map<string, string>()
  for (const w of wallets) {
    const envelope = w.privateKey ?? (w.keyRef === undefined ? undefined : byRef.get(w.keyRef))
    if (envelope !== undefined) envelopes.set(w.id, envelope)
  }
  return envelopes
}

/** The response shape of a vault with its wallets (`mnemonic` only in an ECS + BIP44 vault's create response). */
export function presentVault(v: VaultRecord, wallets: WalletRecord[], envelopes: KeyEnvelopes = new Map(), mnemonic?: string): VaultView {
  const view: VaultView = {
    id: v.id,
    name: v.name,
    description: v.description,
    hierarchy: v.hierarchy,
    keyManagement: v.keyManagement,
    status: v.status,
    wallets: wallets.map((w) => presentWallet(w, { keyEnvelope: envelopes.get(w.id) })),
  }
  if (v.parentID !== undefined) view.parentID = v.parentID
  if (mnemonic !== undefined) view.mnemonic = mnemonic
  if (v.walletConfig !== undefined) view.walletConfig = v.walletConfig
  if (v.mpcAccountID !== undefined) view.mpcAccountID = v.mpcAccountID
  if (v.mpcVaultID !== undefined) view.mpcVault = { id: v.mpcVaultID }
  return view
}
