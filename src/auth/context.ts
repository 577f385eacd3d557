/** What a request tells about its caller, and the caller it authenticates as. */

/** The authentication headers of a request, verbatim (DESIGN §3). */
export interface AuthContext {
  /** `Authorization`: a Base Auth Token, or for two operations an Access Token JWT. */
  authorization?: string
  /** `x-did-auth`: one or more comma-separated DID-auth JWTs. */
  didAuth?: string
  /** The request's id (`x-request-id`, or one the router made): for logs and audit records, never for access decisions. */
  requestId?: string
  /** `DPoP`: a DPoP proof JWT (RFC 9449), for the authenticators of protocol modules. */
  dpop?: string
  /** The request's HTTP method, upper case (`POST`), set by the router. */
  method?: string
  /**
   * The request's URL as the public sees it, without query or fragment (a DPoP proof's `htu`), set by the router:
   * the service's `publicUrl` followed by the path under the router's mount (a root route's path after the
   * `publicUrl` origin), or without `publicUrl` the URL the request itself names.
   */
  url?: string
  /** The request's path parameters, decoded (set by the router), for authenticators that need them (an issuer's slug). */
  params?: Record<string, string>
}

/**
 * An authenticated caller: its tenant, the DIDs it proved control of — as principals (a did:ethr
 * public-key DID in its address form, see `principalOf`) —, and the addresses whose keys signed
 * those proofs.
 */
export interface Caller {
  tenantId: string
  dids: string[]
  /** EIP-55 addresses of the keys the caller holds (they signed its DID-auth tokens). */
  addresses: string[]
  /**
   * Owners this request's tokens proved: a did:ethr DID among `dids` whose token was signed by
   * its owner key (its current document's `#controller`, or a public-key DID's `#controllerKey`,
   * checked when the token was verified)
   * → that key's address, as of authentication. Access facts and the choice of an issuer's
   * signing key use it instead of resolving again; an operation that changes an owner and then
   * acts on it in the same request must read the registry. Optional: without it, owners are
   * resolved.
   */
  owners?: Readonly<Record<string, string>>
  /**
   * RFC 9278 JWK thumbprint URIs of the P-256 and Ed25519 keys that signed the caller's tokens (`keys/key-ids.ts`;
   * secp256k1 keys are in `addresses`). Optional: none.
   */
  keys?: readonly string[]
  /**
   * DIDs among `dids` of another method than did:ethr (did:key, did:jwk, did:web) whose token was signed by a key
   * their current document lists under `authentication`, checked when the token was verified: the caller controls
   * them. Optional: none.
   */
  keyControlled?: readonly string[]
  /** The id of the API key that authenticated the request (never the key), when the tenant resolver names one. */
  apiKeyId?: string
  /**
   * What a protocol module's access token grants (a registered requirement's authenticator sets it; the module's
   * operations read it through their own typed accessor, e.g. `grantOf` of the OID4VCI issuer). Optional: none.
   */
  grant?: unknown
  /** The request's id, from {@link AuthContext.requestId} (set by the dispatcher). */
  requestId?: string
  /**
   * The operation called, by its name in the operation table (`createVault`; set by the
   * dispatcher): for logs and metrics, never for access decisions.
   */
  operation?: string
}

/**
 * What an operation asks of the headers (the spec's Authentication table), checked by the authenticator itself:
 * - `tenant`: a Base Auth Token;
 * - `tenant+did`: a Base Auth Token and an `x-did-auth` header;
 * - `access`: an Access Token JWT in `Authorization`;
 * - `public`: nothing (DID resolution: DID documents are public).
 */
export type BuiltInAuthRequirement = 'tenant' | 'tenant+did' | 'access' | 'public'

/**
 * What an operation of a protocol module asks of the headers, checked by the authentication function the module
 * registers (`Authenticator.register`); an operation whose requirement nobody registered answers 404:
 * - `oid4vci-access`: an access token of the OID4VCI issuer, DPoP-bound (`Authorization: DPoP`, `DPoP`) or Bearer.
 */
export type RegisteredAuthRequirement = 'oid4vci-access'

/** What an operation asks of the headers. */
export type AuthRequirement = BuiltInAuthRequirement | RegisteredAuthRequirement

/** Authenticates a request's headers for a {@link RegisteredAuthRequirement}; rejects with an `IdentityError` (an `OAuthError`). */
export type AuthenticateFunction = (auth: AuthContext) => Promise<Caller>
