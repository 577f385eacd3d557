/**
 * The DID-method port: what didvault needs of a DID method, whatever keeps its documents. One
 * implementation per method lives in `did/methods/<method>/` and is listed once in the registry
 * (`did/methods/index.ts`); nothing outside `did/methods/` imports an implementation directly.
 *
 * A method derived from its key (did:key, did:jwk) computes everything from the DID itself and
 * refuses updates; a method that keeps documents (did:ethr's ERC-1056 registries, did:web's
 * documents under `publicUrl`) answers from its store, with past versions where it keeps them.
 */
import type { DIDDocument, DIDResolutionOptions, DIDResolutionResult } from 'did-resolver'
import type { KeyType, PublicJwk } from '../../keys/key-types.js'

/** What a DID is made from: the wallet's public key, and where the method needs it, the wallet and its network. */
export interface DidCreateInput {
  /** The public key the DID is made for (its private half stays behind the key port). */
  publicJwk: PublicJwk
  /** The wallet's id (did:web puts it in the DID's path). */
  walletId?: string
  /** The network of the DID (did:ethr). */
  network?: string
}

/**
 * A DID the method made. Its document is what {@link DidMethod.resolve} answers for it: making a DID builds no
 * document (a wallet needs only its DID; did:key's Ed25519 documents derive an X25519 key).
 */
export interface CreatedDid {
  did: string
}

/** A `walletConfig.txsInput` update to apply to a DID the service holds. */
export interface DidUpdateInput {
  did: string
  /** The transactions, in order (DESIGN §4 `txsInput`); an object given alone is one element. */
  txsInput: ReadonlyArray<Record<string, unknown>>
  /** The wallet that holds the DID's key (its key signs what the method needs signed). */
  walletId?: string
}

/** A key that controls a DID now: the verification method that lists it, and the key. */
export interface ControllingKey {
  /** The verification method's id (absolute DID URL). */
  methodId: string
  /** The key as a JWK, when the document gives the key itself. */
  publicJwk?: PublicJwk
  /** The EIP-55 address, when the document names only an address (did:ethr's owner). */
  address?: string
}

/** One DID method behind the port. */
export interface DidMethod {
  /** The method name, as in `did:<name>:…` and `walletConfig.didMethod`. */
  readonly name: string
  /** The key types its DIDs can be made for. */
  readonly keyTypes: readonly KeyType[]
  /** Whether the method keeps its documents' history (resolution by `versionId` / `versionTime`). */
  readonly versioned: boolean
  /**
   * The DID of a public key (its document: {@link DidMethod.resolve}).
   * @throws {IdentityError} 422 for a key type the method cannot take, or a setting it needs and lacks
   */
  create(input: DidCreateInput): Promise<CreatedDid>
  /**
   * Resolves a DID of this method (a DID URL resolves to its DID's document): the current document, or with
   * `versionId` / `versionTime` a past one where the method keeps them. Never throws for bad input: a malformed DID
   * is an `invalidDid` result, an unknown one `notFound`.
   */
  resolve(did: string, options?: DIDResolutionOptions): Promise<DIDResolutionResult>
  /**
   * Applies `txsInput` to a DID the service holds and returns the new document.
   * @throws {IdentityError} 422 when the method's DIDs cannot change (did:key, did:jwk) or an update is malformed
   */
  update(input: DidUpdateInput): Promise<DIDDocument>
  /**
   * The keys that control `did` now, for the access policy: the keys of its current document's `authentication`
   * (did:ethr: its owner key only), and for a method whose documents name a `controller` (did:web after `newOwner`) the
   * keys that control those DIDs, one level (`did/methods/controllers.ts`: the rule the caller facts follow too). Empty
   * for a DID that does not resolve.
   */
  controllingKeys(did: string): Promise<ControllingKey[]>
}
