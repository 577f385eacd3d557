/**
 * The collections the service stores, with the fields it queries and the indexes behind
 * those queries. Every record carries `tenantId` and `createdAt` (ms).
 */
import type { CollectionSpec, StoredRecord } from './port.js'
import type { WalletConfig } from '../wallets/config-schemas.js'
import type { Permission, RoleAccess } from '../roles/schemas.js'
import type { QuorumGroup } from '../mpc/port.js'

export interface ApiKeyRecord extends StoredRecord {
  tenantId: string
  /** HMAC-SHA-256 of the key's SHA-256 under the sealed hashing key, hex (see auth/api-keys). The key itself is never stored. */
  hash: string
  /** `hmac-sha256`; absent on rows of earlier releases (plain SHA-256), which are migrated on start. */
  scheme?: string
  label?: string
  createdAt: number
  /** Last authentication with the key, ms (written at most once a minute). */
  lastUsedAt?: number
}

export interface MetaRecord extends StoredRecord {
  tenantId: string
  createdAt: number
  [field: string]: unknown
}

export interface VaultRecord extends StoredRecord {
  tenantId: string
  name: string
  description: string
  parentID?: string
  hierarchy: 'NONE' | 'BIP44'
  keyManagement: 'ECS' | 'MPC'
  status: 'INITIALIZED' | 'NOT_INITIALIZED'
  /** DID of the wallet the vault was created with: control of it governs the vault, even emptied. */
  rootDid?: string
  walletConfig?: WalletConfig
  /** Envelope of the BIP39 mnemonic (ECS + BIP44). */
  mnemonic?: string
  /** Envelope of the packed account node m/44'/60'/0'/0 (ECS + BIP44; see keys/hd). */
  accountNode?: string
  /** Last HD index handed out (ECS + BIP44). */
  hdIndex?: number
  mpcAccountID?: string
  mpcVaultID?: string
  /** The quorum groups of an MPC vault (member DIDs canonical). */
  mpcGroups?: QuorumGroup[]
  /** MPC, once initialized: compressed public key (hex) of the key (`NONE`) or of the account node `m/44'/60'/0'/0` (`BIP44`). Public. */
  mpcPublicKey?: string
  /** MPC + BIP44, once initialized: chain code (hex) of the account node; with `mpcPublicKey` it derives the wallets' public keys. Public. */
  mpcChainCode?: string
  createdAt: number
}

export interface WalletRecord extends StoredRecord {
  tenantId: string
  vaultId?: string
  isHDWallet: boolean
  index?: number
  /** Envelope of the private key (ECS). */
  privateKey?: string
  /** `MPC` for a wallet of an MPC vault (its key is the MPC provider's); absent for ECS. */
  keyManagement?: 'MPC'
  publicKeyHex: string
  publicKeyDER?: string
  ethereumAddress: string
  did: string
  didMethod: string
  alias: string
  walletConfig?: WalletConfig
  /** Set on the wallet that backs a role (its DID is the role DID); deleted with the role only. */
  role?: true
  /** ISO creation date, as the spec's `created`. */
  created: string
  createdAt: number
}

/**
 * A key generated for a `delegate` of a `walletConfig` (added to the wallet's DID document
 * as a `veriKey` delegate). Its private key is sealed like a wallet's.
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
  /** Envelope of the private key. */
  privateKey: string
  /** End of the delegation, UNIX seconds. */
  validTo: number
  createdAt: number
}

/**
 * One ERC-1056 event of the embedded registry. Events are public (DID documents are), so
 * they carry no tenant: they are the embedded equivalent of a chain's logs. `id` is
 * `<network>/<identity>/<seq>`; `seq` counts from 1 per identity, and the unique index on
 * (network, identity, seq) makes two concurrent writers of the same identity collide instead
 * of forking its change chain.
 */
export interface DidEventRecord extends StoredRecord {
  /** Random per write attempt: tells whether an attempt whose outcome was unknown did land. */
  nonce: string
  network: string
  /** EIP-55 address of the identity. */
  identity: string
  seq: number
  event: 'DIDOwnerChanged' | 'DIDDelegateChanged' | 'DIDAttributeChanged'
  /** The identity's owner after this event (so the latest event answers `identityOwner`). */
  owner: string
  delegateType?: string
  delegate?: string
  name?: string
  /** Attribute bytes, 0x-hex. */
  value?: string
  /** UNIX seconds (0 for a revoked attribute). */
  validTo?: number
  /** Time of the event, UNIX seconds (the block time of an on-chain registry). */
  at: number
  createdAt: number
}

/**
 * The latest event of an identity in the embedded registry, written in the same transaction
 * as the event: resolution learns whether anything changed with one primary-key read. `id` is
 * `<network>/<identity>`.
 */
export interface DidHeadRecord extends StoredRecord {
  network: string
  identity: string
  seq: number
  /** The identity's current owner. */
  owner: string
  /** Time of the latest event, UNIX seconds. */
  at: number
  createdAt: number
}

/** A role (DESIGN §4 "Role records"): backed by a wallet of the tenant whose DID is the role DID. */
export interface RoleRecord extends StoredRecord {
  tenantId: string
  /** The role DID: the DID of the wallet `walletId`. */
  did: string
  walletId: string
  /** The DID that created the role (one the caller controlled then). */
  creator: string
  /** Distinct, in canonical spelling and order (`Read` before `Write`). */
  permissions: Permission[]
  /** The strongest of `permissions` (`Write` implies `Read`), kept with them: what the `permissions` filter of Get Roles compares. */
  access: RoleAccess
  description: string
  createdAt: number
  updatedAt: number
}

/** A role assigned to a DID (a wallet of the tenant, or a stored credential's DID). */
export interface RoleAssignmentRecord extends StoredRecord {
  tenantId: string
  /** The role DID. */
  role: string
  /** The DID the role is assigned to. */
  did: string
  /** The role's creator (it never changes): lets an assignment listing keep to the roles a caller created with one indexed query. */
  roleCreator: string
  /**
   * The role also governs the stored credentials whose DID is `did`: granted by someone with
   * rights over that DID (its owner key, or a `Write` role governing it). Without it (and on
   * rows of earlier releases) the assignment only makes `did` a holder of the role.
   */
  governsCredentials?: boolean
  createdAt: number
}

/**
 * The key of an initialized MPC vault in the shipped quorum custody (mpc/shamir-quorum-custody):
 * its public part and the policy its shares were split under. `id` is the vault's id.
 */
export interface MpcKeyRecord extends StoredRecord {
  tenantId: string
  hierarchy: 'NONE' | 'BIP44'
  groups: QuorumGroup[]
  /** Compressed public key, hex: the key (`NONE`) or the account node (`BIP44`). */
  publicKey: string
  /** Chain code of the account node, hex (`BIP44`). */
  chainCode?: string
  createdAt: number
}

/** One member's Shamir share of an MPC vault's secret, sealed; `id` is `<vaultId>/<group index>/<member DID>`. */
export interface MpcShareRecord extends StoredRecord {
  tenantId: string
  vaultId: string
  /** Index of the quorum group in the vault's policy. */
  group: number
  /** Member DID. */
  member: string
  /** Envelope of the share. */
  share: string
  createdAt: number
}

/**
 * A stored verifiable credential (DESIGN §4 *Store VCs*). `id` is the stored-VC identifier
 * (`_id`); `vcId` the credential's own `id` (its DID, canonical spelling, or URI).
 */
export interface CredentialRecord extends StoredRecord {
  tenantId: string
  /** The credential's `id` (JWT: `jti`): a DID (as a principal) or URI; absent when it has none. */
  vcId?: string
  /** `vcId` when it is a DID: what role assignments and the owner rule name. */
  did?: string
  format: 'JSON-LD' | 'JWT'
  jsonld?: Record<string, unknown>
  jwt?: string
  /** The issuer DID as a principal (a did:ethr public-key DID in its address form): what Fetch's `issuer` and the read rule match. */
  issuer?: string
  /** The subject DID as a principal, like `issuer`. */
  subject?: string
  /** `vcId`, `issuer`, `subject` as the credential spells them, where that differs from the principal kept above (responses show it). */
  spelled?: { vcId?: string; issuer?: string; subject?: string }
  /** Its types (`VerifiableCredential` included). */
  types: string[]
  issuanceDate?: string
  expirationDate?: string
  /** The DIDs the caller acted through when storing it (a re-store by others adds theirs). */
  storedBy: string[]
  isPublicAccess: boolean
  /** The role DIDs given at store time: they reach this record only (see `RoleAssignmentRecord.governsCredentials` for its DID). */
  roles: string[]
  /** SHA-256 of the JWT (canonical low-S signature), or of the JSON-LD document in canonical JSON (sorted keys). */
  hash: string
  /**
   * SHA-256 of `storedBy` (JSON): with `hash`, one record per content and storer — a caller
   * re-storing content it may read gets that record, one that may not gets its own. Absent on
   * records of earlier releases.
   */
  storerKey?: string
  createdAt: number
}

const base = ['tenantId', 'createdAt']

/** Every collection of the service. */
export const COLLECTIONS: CollectionSpec[] = [
  {
    name: 'meta',
    fields: [...base],
    indexes: [],
    secretFields: ['check', 'hmacKey'],
  },
  {
    name: 'apiKeys',
    fields: [...base, 'hash', 'scheme'],
    indexes: [{ fields: ['hash'], unique: true }, { fields: ['tenantId', 'createdAt'] }, { fields: ['scheme', 'createdAt'] }],
  },
  {
    name: 'vaults',
    fields: [...base, 'parentID', 'keyManagement', 'mpcAccountID', 'mpcVaultID', 'name'],
    indexes: [
      // Each filter's index ends in createdAt, the default order, so one index serves filter and order.
      { fields: ['tenantId', 'createdAt'] },
      { fields: ['tenantId', 'parentID', 'createdAt'] },
      { fields: ['tenantId', 'mpcAccountID', 'createdAt'] },
      { fields: ['tenantId', 'mpcVaultID', 'createdAt'] },
    ],
    secretFields: ['mnemonic', 'accountNode'],
  },
  {
    name: 'wallets',
    fields: [...base, 'vaultId', 'did', 'alias', 'index', 'ethereumAddress'],
    indexes: [
      { fields: ['did'], unique: true },
      { fields: ['ethereumAddress'] },
      // The wallet of a tenant holding an identity's current owner key (walletConfig changes after a newOwner).
      { fields: ['tenantId', 'ethereumAddress', 'createdAt'] },
      { fields: ['tenantId', 'alias'], unique: true },
      { fields: ['vaultId', 'index'], unique: true },
      { fields: ['tenantId', 'vaultId', 'createdAt'] },
      { fields: ['tenantId', 'createdAt'] },
    ],
    secretFields: ['privateKey'],
  },
  {
    name: 'delegateKeys',
    fields: [...base, 'walletId', 'ethereumAddress'],
    indexes: [{ fields: ['tenantId', 'walletId', 'createdAt'] }, { fields: ['ethereumAddress'] }],
    secretFields: ['privateKey'],
  },
  {
    name: 'roles',
    // `access` is filtered within what the indexes select, never searched on its own.
    fields: [...base, 'did', 'creator', 'access'],
    indexes: [
      // One role per DID per tenant; also "the roles with these DIDs" (the caller's own, the roles it holds).
      { fields: ['tenantId', 'did'], unique: true },
      // The roles a caller created, oldest first.
      { fields: ['tenantId', 'creator', 'createdAt'] },
    ],
  },
  {
    name: 'roleAssignments',
    // `governsCredentials` is filtered within what the (did, role) index selects, never searched on its own.
    fields: [...base, 'role', 'did', 'roleCreator', 'governsCredentials'],
    indexes: [
      // One assignment per (role, DID); also "the DIDs holding this role", in DID order.
      { fields: ['tenantId', 'role', 'did'], unique: true },
      // "The roles assigned to these DIDs", in role order.
      { fields: ['tenantId', 'did', 'role'] },
    ],
  },
  {
    name: 'mpcKeys',
    fields: [...base],
    // Read by id only.
    indexes: [],
  },
  {
    name: 'mpcShares',
    fields: [...base, 'vaultId'],
    indexes: [{ fields: ['tenantId', 'vaultId', 'createdAt'] }],
    secretFields: ['share'],
  },
  {
    name: 'credentials',
    fields: [...base, 'vcId', 'did', 'issuer', 'subject', 'isPublicAccess', 'hash', 'storerKey'],
    arrayFields: ['storedBy', 'roles', 'types'],
    indexes: [
      // Idempotent re-store: one record per content and storer; its prefix finds the copies of a content.
      { fields: ['tenantId', 'hash', 'storerKey'], unique: true },
      // Each read-access ground and each filter is one index ending in createdAt, the order of a page.
      { fields: ['tenantId', 'createdAt'] },
      { fields: ['tenantId', 'vcId', 'createdAt'] },
      { fields: ['tenantId', 'did', 'createdAt'] },
      { fields: ['tenantId', 'issuer', 'createdAt'] },
      { fields: ['tenantId', 'subject', 'createdAt'] },
      { fields: ['tenantId', 'isPublicAccess', 'createdAt'] },
    ],
  },
  {
    name: 'didEvents',
    fields: ['network', 'identity', 'seq', 'createdAt'],
    // The one query: an identity's events by seq (its head: seq desc, limit 1).
    indexes: [{ fields: ['network', 'identity', 'seq'], unique: true }],
  },
  {
    name: 'didHeads',
    fields: ['owner', 'network', 'identity', 'createdAt'],
    // Read by id; listed by owner (Fetch Verifiable Credentials: the DIDs handed to the caller's keys).
    indexes: [{ fields: ['owner', 'network', 'identity'] }],
  },
]

/** Context bound into a secret's envelope: the record it belongs to. */
export function secretContext(collection: string, record: { tenantId: string; id: string }, field: string): string {
  // A JSON array, not a joined string: a tenant id or record id containing the separator cannot
  // make two different records share a context.
  return JSON.stringify([record.tenantId, collection, record.id, field])
}
