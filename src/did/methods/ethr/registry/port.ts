/**
 * The `DidRegistry` port: the ERC-1056 operations on one network's registry, and resolution
 * of that network's did:ethr DIDs. Shipped: {@link EmbeddedRegistry} (events in the
 * `StorageAdapter`, no chain) and {@link OnchainRegistry} (an `EthereumDIDRegistry` contract
 * through ethers). Both take the same changes, signed by the identity's current owner through
 * the {@link DigestSigner} seam, and resolve to the same documents.
 */
import type { DIDResolutionResult, DIDResolver } from 'did-resolver'
import type { EthrNetwork } from '../ethr.js'
import type { DigestSigner } from '../../../../keys/signer.js'

/**
 * One ERC-1056 change of an identity's DID document. Validities are in seconds (the
 * registry adds them to the block time); attribute names are at most 32 bytes; attribute
 * values are bytes as 0x-hex.
 */
export type RegistryChange =
  | { op: 'changeOwner'; newOwner: string }
  | { op: 'addDelegate'; delegateType: string; delegate: string; validity: number }
  | { op: 'revokeDelegate'; delegateType: string; delegate: string }
  | { op: 'setAttribute'; name: string; value: string; validity: number }
  | { op: 'revokeAttribute'; name: string; value: string }

/** Where a change was recorded. */
export interface AppliedChange {
  op: RegistryChange['op']
  /** The document version the change made: the event's sequence number (embedded) or block number (on chain). */
  versionId: string
  /** The transaction hash (on chain only). */
  txHash?: string
  /** For delegates and attributes: until when (UNIX seconds) the entry is valid. */
  validTo?: number
}

/** A change the registry refused (e.g. the signer is not the identity's owner). Reported as 422 per item. */
export class RegistryError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'RegistryError'
  }
}

export interface DidRegistry {
  /** The network whose DIDs this registry records. */
  readonly network: EthrNetwork
  /** The endpoint a `walletConfig.apiUrl` names to choose this registry: `local` (embedded) or the network's configured `rpcUrl`. */
  readonly endpoint: string
  /** The current owner address (EIP-55) of identity `address`. */
  identityOwner(address: string): Promise<string>
  /**
   * Identities (EIP-55 addresses) whose ownership was handed to one of `owners` (their current
   * owner is one of them and not the identity itself), at most `limit`, in address order — for
   * registries that can list them by owner (the embedded one: an index). Absent: the registry
   * cannot list owners (a chain is not indexed by owner).
   */
  identitiesHandedTo?(owners: readonly string[], limit: number): Promise<string[]>
  /** Applies `change` to identity `address`; `owner` must be the key of its current owner. */
  apply(address: string, change: RegistryChange, owner: DigestSigner): Promise<AppliedChange>
  /**
   * A did-resolver method resolver for did:ethr DIDs of this network. DID URLs with
   * `?versionId=` / `?versionTime=` resolve to past versions (see `../version.ts`); malformed
   * values to the error `invalidDidUrl`.
   */
  readonly resolver: DIDResolver
}

/** ms → ERC-1056 seconds, rounded up (a validity never gets shorter than asked). */
export function validitySeconds(ms: number): number {
  return Math.ceil(ms / 1000)
}

/** A failed resolution result (did-resolver's shape), e.g. `invalidDid`, `invalidDidUrl`, `unknownNetwork`, `notFound`. */
export function resolutionFailure(error: string, message: string): DIDResolutionResult {
  return { didResolutionMetadata: { error, message }, didDocument: null, didDocumentMetadata: {} }
}

/** The resolution failure of a DID that is not a did:ethr DID as `parseEthrDid` reads them. */
export function invalidEthrDid(did: string): DIDResolutionResult {
  return resolutionFailure('invalidDid', `Not a valid did:ethr (an address, or a compressed or uncompressed secp256k1 public key): ${did}`)
}
