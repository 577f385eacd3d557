/**
 * What the wallets' operations may be given (each handler takes only the parts it uses), and
 * the ports through which they reach what other domains hold without importing them: the
 * vault a wallet belongs to, and what refers to a DID that goes away.
 */
import type { CallerFactSource } from '../auth/facts.js'
import type { KeyCustody } from '../custody/key-custody.js'
import type { EthrNetwork } from '../did/methods/ethr/index.js'
import type { KeyManager } from '../keys/port.js'
import type { Registries } from '../did/methods/ethr/index.js'
import type { Runtime } from '../operations/runtime.js'
import type { StorageAdapter } from '../storage/port.js'
import type { WalletConfig } from './config-schemas.js'
import type { WalletSigners } from './signers.js'
import type { AuditTrail } from '../audit/trail.js'

export interface WalletsConfig {
  /** Network new DIDs are made on. */
  network: EthrNetwork
  networks: EthrNetwork[]
  /** DID methods a `walletConfig.didMethod` may name. */
  didMethods: string[]
  /** Registry endpoints a `walletConfig.apiUrl` may name: `local` (embedded) and the on-chain networks' public names. */
  apiUrls: string[]
  /** The service's public base URL: did:web wallets' DIDs are under it; without it no did:web wallet is made. */
  publicUrl?: string
  /** The service has an HSM (its `hsm` module, the `hsm` key backend): vaults and wallets may take `keyManagement: "HSM"`. */
  hsm?: boolean
}

/** The vault of a wallet, as wallets need it (implemented by the vaults domain). */
export interface WalletVaults {
  /** The vault's `walletConfig` template; undefined when the vault has none or is gone. */
  walletConfigOf(tenantId: string, vaultId: string): Promise<WalletConfig | undefined>
}

/**
 * What refers to DIDs that go away with their wallets (role assignments: implemented by the
 * roles domain). Called inside the transaction that deletes them.
 */
export interface DidReferences {
  forget(tx: StorageAdapter, tenantId: string, dids: readonly string[]): Promise<void>
}

export interface WalletsContext extends Runtime {
  storage: StorageAdapter
  /** Seals and opens the secrets the service keeps in its records (mnemonics, account nodes, vault wallets' keys). */
  custody: KeyCustody
  /** The key port: creates the keys of new wallets and signs with them (docs/keys.md); handlers hold references only. */
  keyManager: KeyManager
  /** The signer of each wallet, whatever holds its key: operations sign only through it. */
  signers: WalletSigners
  /** Who the caller is, as the access policy needs it. */
  callers: CallerFactSource
  /** The DID registry of each network. */
  registries: Registries
  walletVaults: WalletVaults
  didReferences: DidReferences
  /** The audit trail: each act appends its record inside the act's transaction. */
  audit: AuditTrail
  config: WalletsConfig
}
