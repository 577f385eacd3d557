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
   * Authorization code flow under `serve`: the operator's login page the authorization endpoint redirects the user to,
   * which returns a signed assertion of the subject's claims (docs/oid4vci.md). With {@link loginAssertionKeys}.
   */
  loginUrl?: string
  /** The public JWKs whose signatures of login assertions are accepted (never a private key). With {@link loginUrl}. */
  loginAssertionKeys?: readonly { readonly kty: string; readonly [member: string]: unknown }[]
}

/** What `oid4vci(options)` gives the service: the library adapter, made once the service's resolver exists. */
export interface Oid4vciModule {
  readonly options: Readonly<Oid4vciOptions>
  /** The adapter's functions (the `didvault/oid4vc` namespace). */
  readonly lib: typeof Protocol
  /** The adapter bound to the service's key resolver. */
  start(resolveKey: ResolveKey): Oid4vciRuntime
}

/** The running issuer, as operations reach it (`ctx.oid4vci`). */
export interface Oid4vciRuntime {
  readonly options: Readonly<Required<Omit<Oid4vciOptions, 'proofWindow' | 'loginUrl' | 'loginAssertionKeys'>>> &
    Pick<Oid4vciOptions, 'proofWindow' | 'loginUrl' | 'loginAssertionKeys'>
  readonly lib: typeof Protocol
  readonly protocol: Protocol.Oid4vciProtocol
}

/** The defaults of {@link Oid4vciOptions}. */
export const OID4VCI_DEFAULTS = {
  txCodeAttempts: 5,
  accessTokenTtlSeconds: 300,
  nonceTtlSeconds: 300,
  offerTtlSeconds: 600,
} as const

/** The part of the service context the OID4VCI operations reach. */
export interface Oid4vciContext {
  /** The running issuer; undefined when the service was made without the module. */
  oid4vci?: Oid4vciRuntime
}
