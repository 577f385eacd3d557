/**
 * The `MpcProvider` port: whatever holds the keys of MPC vaults — the shipped quorum custody
 * (`ShamirQuorumCustody`), a custodian's API, or a threshold-ECDSA library — plugs in here.
 * didvault never sees an MPC vault's private key: it asks the provider for public keys and
 * for signatures — of 32-byte digests for secp256k1 keys, of the data under a JOSE algorithm
 * for P-256 and Ed25519 keys — and passes along the member approvals it gathered.
 */
import type { KeyType } from '../keys/key-types.js'
import type { RecoverableSignature } from '../keys/signer.js'

/** A quorum group: `requiredApprovals` distinct `members` (DIDs) must approve. */
export interface QuorumGroup {
  name: string
  requiredApprovals: number
  /** Member DIDs, canonical spelling, unique. */
  members: string[]
}

/** The quorum policy of a vault: a signature needs the quorum of any one of its groups. */
export interface QuorumPolicy {
  groups: QuorumGroup[]
}

/** What a provider is told about a vault on every call. */
export interface MpcVaultRef {
  tenantId: string
  /** didvault's id of the vault. */
  vaultId: string
  mpcAccountID: string
  /** The provider's id of the vault (what {@link MpcProvider.createVault} returned). */
  mpcVaultID: string
  /**
   * `BIP44`: the key is a seed; its secp256k1 wallets live at BIP32 `m/44'/60'/0'/0/<index>`, its P-256 and Ed25519
   * wallets at SLIP-0010 `m/44'/60'/0'/0'/<index>'` (one index counter for all three); `NONE`: one key, path `m`.
   */
  hierarchy: 'NONE' | 'BIP44'
  policy: QuorumPolicy
  /**
   * The key type of a `NONE` vault's one key; absent means `secp256k1` (every vault before issue 30). Absent on
   * `BIP44` vaults, whose seed derives keys of every type (each request names the type of the key it wants).
   */
  keyType?: KeyType
}

export interface CreateMpcVaultRequest extends Omit<MpcVaultRef, 'mpcVaultID'> {
  /** The id the caller asked for; the provider assigns one when absent. */
  mpcVaultID?: string
}

/** A public key at a path, with the chain code when the path is an HD node. */
export interface MpcPublicKey {
  /** The public key: a compressed SEC1 point (33 bytes) for secp256k1 and P-256, the 32 bytes for Ed25519. */
  publicKey: Uint8Array
  /** BIP32 chain code (32 bytes) of the node, for deriving its non-hardened children. */
  chainCode?: Uint8Array
}

/** Not done yet: approvals are missing, or the provider (a custodian) has not finished. */
export interface MpcPending {
  status: 'pending'
  /** `insufficient-approvals`: the policy's quorum is not met; `awaiting-provider`: the provider works asynchronously. */
  reason: 'insufficient-approvals' | 'awaiting-provider'
  /** The provider's id of the request, for a custodian's asynchronous flow (shown to the caller). */
  requestId?: string
  /** Approvals still needed by the group closest to its quorum (for `insufficient-approvals`). */
  missingApprovals?: number
  /** That group's name. */
  group?: string
}

/** The outcome of a digest signature request: signed, or an explicit pending state. */
export type SignatureOutcome = { status: 'signed'; signature: RecoverableSignature } | MpcPending

/** The outcome of a {@link DataSignatureRequest}: the JOSE signature (r‖s for ES256, 64 bytes for EdDSA), or a pending state. */
export type DataSignatureOutcome = { status: 'signed'; joseSignature: Uint8Array } | MpcPending

/** The outcome of a {@link DerivationRequest}: the public key at the path, or a pending state. */
export type DerivationOutcome = { status: 'derived'; publicKey: Uint8Array } | MpcPending

/** The outcome of initializing a vault: its key exists, or an explicit pending state. */
export type InitializeOutcome = { status: 'initialized' } | MpcPending

/** A request to sign a 32-byte digest with a secp256k1 key (unchanged by issue 30). */
export interface SignatureRequest {
  vault: MpcVaultRef
  /**
   * Path of the key: `m` for a `NONE` vault; for a wallet of a `BIP44` one, BIP32 `m/44'/60'/0'/0/<index>`
   * (secp256k1) or SLIP-0010 `m/44'/60'/0'/0'/<index>'` (P-256, Ed25519: {@link DataSignatureRequest}).
   */
  path: string
  /** The 32-byte digest to sign (already hashed). */
  digest: Uint8Array
  /** Member DIDs (canonical) that approved this request, each once. */
  approvals: readonly string[]
}

/** A request to sign `data` under `alg` (hashing it as the algorithm says) with a P-256 (`ES256`) or Ed25519 (`EdDSA`) key. */
export interface DataSignatureRequest extends Omit<SignatureRequest, 'digest'> {
  alg: 'ES256' | 'EdDSA'
  data: Uint8Array
}

/**
 * A request for the public key of a `BIP44` vault's P-256 or Ed25519 wallet, at its SLIP-0010 path
 * `m/44'/60'/0'/0'/<index>'`: every step is hardened, so only the private key derives it — it takes a quorum.
 */
export interface DerivationRequest {
  vault: MpcVaultRef
  path: string
  keyType: 'P-256' | 'Ed25519'
  /** Member DIDs (canonical) that approved the wallet's creation, each once. */
  approvals: readonly string[]
}

/**
 * An MPC key holder. Every method may be called concurrently and from several processes;
 * `initialize` must be idempotent (a second call keeps the key the first one made).
 */
export interface MpcProvider {
  /** Registers a vault under its quorum policy; resolves to the provider's vault id. No key is made yet. */
  createVault(request: CreateMpcVaultRequest): Promise<{ mpcVaultID: string }>
  /** Creates the vault's key (a BIP32 root for `BIP44` vaults) under its policy, once; `approvals` are the members who approved. */
  initialize(vault: MpcVaultRef, approvals: readonly string[]): Promise<InitializeOutcome>
  /**
   * The public key at `path` of an initialized vault: `m` for a `NONE` vault, the account node
   * `m/44'/60'/0'/0` (with its chain code) for a `BIP44` one. Needs no approval.
   */
  getPublicKey(vault: MpcVaultRef, path: string): Promise<MpcPublicKey>
  /**
   * Signs `digest` with the (secp256k1) key at `path` when the approvals meet the policy;
   * otherwise a pending outcome. Signatures are low-S.
   */
  requestSignature(request: SignatureRequest): Promise<SignatureOutcome>
  /**
   * Signs `data` under `alg` with the P-256 or Ed25519 key at `path` when the approvals meet the
   * policy; otherwise a pending outcome. Optional: a provider without it holds secp256k1 keys only
   * (vaults of other key types are refused for it).
   */
  requestDataSignature?(request: DataSignatureRequest): Promise<DataSignatureOutcome>
  /**
   * The public key (compressed SEC1 for P-256, 32 bytes for Ed25519) at a hardened SLIP-0010 path of a `BIP44`
   * vault, when the approvals meet the policy; otherwise a pending outcome. Optional, like
   * {@link requestDataSignature}: without both, a `BIP44` vault makes secp256k1 wallets only.
   */
  derivePublicKey?(request: DerivationRequest): Promise<DerivationOutcome>
  /** Forgets the vault and destroys its key material. Resolves also when there is none. */
  deleteVault(vault: MpcVaultRef): Promise<void>
}
