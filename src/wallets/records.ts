/**
 * Wallets and the delegate keys generated for their DID documents: the records and their
 * collection declarations (fields and indexes checked against the record types by the compiler).
 */
import { collectionOf, declareCollection } from '../storage/declaration.js'
import type { StorageAdapter, StoredRecord } from '../storage/port.js'
import type { BbsPublicJwk, KeyType, PublicJwk } from '../keys/key-types.js'
import type { WalletConfig } from './config-schemas.js'

export interface WalletRecord extends StoredRecord {
  tenantId: string
  vaultId?: string
  isHDWallet: boolean
  index?: number
  /** Envelope of the private key (ECS), for wallets made before the key port and vault wallets: the key sealed in the record. */
  privateKey?: string
  /** The wallet's key in the key port (`sealed:<thumbprint>`), for wallets whose key the port holds (docs/keys.md). */
  keyRef?: string
  /** The key's type, with {@link keyRef}. */
  keyType?: KeyType
  /** The key's public JWK: every wallet made since the key port (MPC wallets included); older ones have `publicKeyHex`. */
  publicKeyJwk?: PublicJwk
  /**
   * `MPC` for a wallet of an MPC vault (its key is the MPC provider's); `HSM` for a wallet whose key is in the PKCS#11
   * token (`keyRef` `hsm:<CKA_ID hex>`, only the public key kept here); absent for ECS.
   */
  keyManagement?: 'MPC' | 'HSM'
  /** The uncompressed secp256k1 public key, hex: secp256k1 keys only (the spec's field). */
  publicKeyHex?: string
  publicKeyDER?: string
  /** The EIP-55 address of the key: secp256k1 keys only (the spec's field). */
  ethereumAddress?: string
  /**
   * The key id of the wallet's own key (`keys/key-ids.ts`: its address for secp256k1, its RFC 9278 thumbprint URI
   * otherwise), what vault control compares with the keys that signed a caller's tokens. Wallets made before it have
   * none: theirs are secp256k1 keys, found by {@link ethereumAddress}.
   */
  keyId?: string
  /**
   * The wallet's BBS assertion key (`walletConfig.bbsKey`, did:web only): a Bls12381G2 key of the key port, listed as
   * `#bbs-0` under `assertionMethod` of the wallet's document; it signs the wallet's bbs-2023 proofs and nothing else.
   */
  bbsKey?: { keyRef: string; publicKeyJwk: BbsPublicJwk }
  /** The HD path the key was derived at (BIP44 vault wallets made since the key port; older ones: `index` only). */
  path?: string
  did: string
  /** The DID method: `ethr`, `key`, `jwk` or `web`. */
  didMethod: string
  alias: string
  walletConfig?: WalletConfig
  /** Set on the wallet that backs a role (its DID is the role DID); deleted with the role only. */
  role?: true
  /** ISO creation date, as the spec's `created`. */
  created: string
  createdAt: number
}

export const WALLETS = declareCollection<WalletRecord>({
  name: 'wallets',
  fields: ['tenantId', 'createdAt', 'vaultId', 'did', 'alias', 'index', 'ethereumAddress', 'keyId'],
  indexes: [
    { fields: ['did'], unique: true },
    { fields: ['ethereumAddress'] },
    // The wallet of a tenant holding an identity's current owner key (walletConfig changes after a newOwner).
    { fields: ['tenantId', 'ethereumAddress', 'createdAt'] },
    // The wallets whose own key signed a caller's tokens (vault control).
    { fields: ['tenantId', 'keyId'] },
    { fields: ['tenantId', 'alias'], unique: true },
    { fields: ['vaultId', 'index'], unique: true },
    { fields: ['tenantId', 'vaultId', 'createdAt'] },
    { fields: ['tenantId', 'createdAt'] },
  ],
  secretFields: ['privateKey'],
  // Read by every signature, written rarely: kept in memory where the adapter can (docs/storage.md *Read cache*).
  cached: true,
})

/**
 * A key generated for a `delegate` of a `walletConfig` (added to the wallet's DID document
 * as a `veriKey` delegate). New records name the key in the key port (`keyRef`); records made
 * before it keep the key sealed in `privateKey`.
 */
export interface DelegateKeyRecord extends StoredRecord {
  tenantId: string
  /** The wallet whose DID document names this key as a delegate. */
  walletId: string
  /** The DID of that wallet. */
  did: string
  delegateType: string
  ethereumAddress: string
  publicKeyHex: string
  /** The key in the key port (`sealed:<thumbprint>`), for delegates made since keys moved behind it. */
  keyRef?: string
  /** Envelope of the private key, for delegates made before the key port. */
  privateKey?: string
  /** End of the delegation, UNIX seconds. */
  validTo: number
  createdAt: number
}

export const DELEGATE_KEYS = declareCollection<DelegateKeyRecord>({
  name: 'delegateKeys',
  fields: ['tenantId', 'createdAt', 'walletId', 'ethereumAddress'],
  indexes: [{ fields: ['tenantId', 'walletId', 'createdAt'] }, { fields: ['ethereumAddress'] }],
  secretFields: ['privateKey'],
})

/**
 * The tenant of the wallet whose DID is `did` (any tenant's: an Access Token names its tenant
 * only through its issuer), for the authenticator; undefined when no wallet has it.
 */
export function walletTenantLookup(storage: StorageAdapter): (did: string) => Promise<string | undefined> {
  return async (did) => (await collectionOf(storage, WALLETS).findOne({ field: 'did', op: 'eq', value: did }))?.tenantId
}
