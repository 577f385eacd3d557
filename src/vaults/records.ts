/**
 * Identity vaults: the records and their collection declarations (fields and indexes checked
 * against the record types by the compiler).
 */
import type { QuorumGroup } from '../mpc/port.js'
import { declareCollection } from '../storage/declaration.js'
import type { StoredRecord } from '../storage/port.js'
import type { WalletConfig } from '../wallets/config-schemas.js'

export interface VaultRecord extends StoredRecord {
  tenantId: string
  name: string
  description: string
  parentID?: string
  hierarchy: 'NONE' | 'BIP44'
  /** `HSM`: the wallets' keys are the `hsm` key backend's, in the PKCS#11 token (hierarchy `NONE`). */
  keyManagement: 'ECS' | 'MPC' | 'HSM'
  status: 'INITIALIZED' | 'NOT_INITIALIZED'
  /** DID of the wallet the vault was created with: control of it governs the vault, even emptied. */
  rootDid?: string
  /** Key id (`keys/key-ids.ts`) of that wallet's own key: it governs the vault even once the wallet is gone. */
  rootKeyId?: string
  walletConfig?: WalletConfig
  /** Envelope of the BIP39 mnemonic (ECS + BIP44). */
  mnemonic?: string
  /** Envelope of the packed account node m/44'/60'/0'/0 (ECS + BIP44; see keys/hd): what secp256k1 wallets derive from. */
  accountNode?: string
  /** Envelope of the packed SLIP-0010 Ed25519 account node m/44'/60'/0'/0' (ECS + BIP44 vaults made since keyType). */
  ed25519AccountNode?: string
  /** Envelope of the packed SLIP-0010 P-256 (nist256p1) account node m/44'/60'/0'/0' (ECS + BIP44 vaults made since keyType). */
  p256AccountNode?: string
  /** Last HD index handed out (ECS + BIP44): one counter for the wallets of every key type. */
  hdIndex?: number
  mpcAccountID?: string
  mpcVaultID?: string
  /** The quorum groups of an MPC vault (member DIDs canonical). */
  mpcGroups?: QuorumGroup[]
  /** MPC, once initialized: compressed public key (hex) of the key (`NONE`) or of the account node `m/44'/60'/0'/0` (`BIP44`). Public. */
  mpcPublicKey?: string
  /**
   * MPC + BIP44, once initialized: chain code (hex) of the account node; with `mpcPublicKey` it derives the wallets' public keys.
   * Public.
   */
  mpcChainCode?: string
  createdAt: number
}

export const VAULTS = declareCollection<VaultRecord>({
  name: 'vaults',
  fields: ['tenantId', 'createdAt', 'parentID', 'keyManagement', 'mpcAccountID', 'mpcVaultID', 'name'],
  indexes: [
    // Each filter's index ends in createdAt, the default order, so one index serves filter and order.
    { fields: ['tenantId', 'createdAt'] },
    { fields: ['tenantId', 'parentID', 'createdAt'] },
    { fields: ['tenantId', 'mpcAccountID', 'createdAt'] },
    { fields: ['tenantId', 'mpcVaultID', 'createdAt'] },
  ],
  secretFields: ['mnemonic', 'accountNode', 'ed25519AccountNode', 'p256AccountNode'],
})
