/**
 * The OID4VCI issuer as an optional module of the service: `didvault/oid4vc` makes it (`oid4vci(options)`), the
 * service takes it (`IdentityService.create({ oid4vci })`, `serve` when configured) and hands its operations the
 * running issuer as `ctx.oid4vci`. Without it the wallet-facing endpoints answer 404 and the management operations 422
 * naming the setting. Type-only imports of the protocol adapter: the root entry never loads the optional peers.
 */
import type * as Protocol from './protocol/index.js'
import type { ResolveKey } from './protocol/index.js'

/** Options of the issuer module (`oid4vci(options)` of `didvault/oid4vc`). */
export interface Oid4vciOptions {
  /** Window of key proofs' and DPoP proofs' `iat`. Default 300 s in the past, 60 s in the future. */
  proofWindow?: Protocol.ProofWindow
  /** Failed `tx_code` tries before the pre-authorized code is burned. Default 5. */
  txCodeAttempts?: number
  /** Lifetime of access tokens, seconds. Default 300. */
  accessTokenTtlSeconds?: number
  /** Lifetime of `c_nonce`s, seconds. Default 300. */
  nonceTtlSeconds?: number
  /** Default lifetime of offers (and their pre-authorized codes), seconds. Default 600; at most 86,400. */
  offerTtlSeconds?: number
  /**
   * Authorization code flow, embedded API: authenticates the user of an authorization request and answers the claims
   * of each credential configuration asked for, or a refusal (`access_denied` at the wallet's `redirect_uri`). Called
   * by `GET /oid4vci/:issuer/authorize`; it sees the pushed request, not the browser's cookies (a login of the
   * embedding application's own goes through {@link Oid4vciOptions.loginUrl}). Wins over `loginUrl` when both are given.
   */
  authorize?: (request: AuthorizeRequest) => Promise<AuthorizeAnswer>
  /**
   * Authorization code flow, `serve` (no hook): the operator's login page. The authorization endpoint sends the browser
   * to `<loginUrl>?request=<handle>&issuer=<Credential Issuer Identifier>&credential_configuration_ids=<ids>`; the
   * page authenticates the user and sends the browser back to `<issuer>/authorize/return?assertion=<JWT>`, a JWT signed
   * by a key of {@link Oid4vciOptions.loginAssertionKeys} (docs/oid4vci.md, *Authorization code flow*).
   */
  loginUrl?: string
  /** Public JWKs (P-256 for ES256, Ed25519 for EdDSA; a `kid` selects one) that sign login assertions. */
  loginAssertionKeys?: Array<Record<string, unknown>>
  // ---- helper "deferred"
  /** Deferred issuance: the `interval` wallets are told to wait between polls, seconds. Default 60. */
  deferredIntervalSeconds?: number
  /**
   * Deferred issuance: how long a pending issuance (and its `transaction_id`) lives, seconds; also how long the refresh
   * tokens of a grant covering a deferred configuration renew its access token (from the first token). Default 7 days.
   */
  deferredTtlSeconds?: number
}

/** An authorization request, as the {@link Oid4vciOptions.authorize} hook sees it. */
export interface AuthorizeRequest {
  /** The tenant whose issuer is asked. */
  tenantId: string
  /** The Credential Issuer Identifier. */
  credentialIssuer: string
  clientId: string
  redirectUri: string
  /** The credential configurations asked for (`authorization_details` and `scope`). */
  credentialConfigurationIds: string[]
  /**
   * The offer the request is bound to, when the wallet sent the `issuer_state` of an offer made with the
   * `authorization_code` grant (that offer is redeemed by this request): its configurations and the claims the issuing
   * backend gave. A configuration the answer gives no claims for is granted with the offer's.
   */
  offer?: { configurationIds: string[]; claims: Record<string, Record<string, unknown>> }
  scope?: string
  authorizationDetails?: Array<Record<string, unknown>>
}

/**
 * The hook's answer: the authenticated subject and the claims of each configuration's credential, or a refusal with its
 * reason (shown to the wallet). A configuration absent from `claims` is granted with the claims of the request's offer
 * ({@link AuthorizeRequest.offer}) when there is one, else not granted; none granted is a refusal.
 */
export type AuthorizeAnswer = { subject: string; claims?: Record<string, Record<string, unknown>> } | { refused: string }

/** What `oid4vci(options)` gives the service: the library adapter, made once the service's resolver exists. */
export interface Oid4vciModule {
  readonly options: Readonly<Oid4vciOptions>
  /** The adapter's functions (the `didvault/oid4vc` namespace). */
  readonly lib: typeof Protocol
  /** The adapter bound to the service's key resolver. */
  start(resolveKey: ResolveKey): Oid4vciRuntime
}

/** The options without a default. */
type OptionalOption = 'proofWindow' | 'authorize' | 'loginUrl' | 'loginAssertionKeys'

/** The running issuer, as operations reach it (`ctx.oid4vci`). */
export interface Oid4vciRuntime {
  readonly options: Readonly<Required<Omit<Oid4vciOptions, OptionalOption>>> & Pick<Oid4vciOptions, OptionalOption>
  readonly lib: typeof Protocol
  readonly protocol: Protocol.Oid4vciProtocol
}

/** The defaults of {@link Oid4vciOptions}. */
export const OID4VCI_DEFAULTS = {
  txCodeAttempts: 5,
  accessTokenTtlSeconds: 300,
  nonceTtlSeconds: 300,
  offerTtlSeconds: 600,
  // ---- helper "deferred"
  deferredIntervalSeconds: 60,
  deferredTtlSeconds: 7 * 24 * 3600,
} as const

/** The part of the service context the OID4VCI operations reach. */
export interface Oid4vciContext {
  /** The running issuer; undefined when the service was made without the module. */
  oid4vci?: Oid4vciRuntime
}
