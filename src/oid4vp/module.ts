/**
 * The OID4VP verifier as an optional module of the service: `didvault/oid4vc` makes it (`oid4vp(options)`), the
 * service takes it (`IdentityService.create({ oid4vp })`, `serve` when configured) and hands its operations the
 * running verifier as `ctx.oid4vp`. Without it the wallet-facing endpoints answer 404 and the management operations 422
 * naming the setting. Type-only imports of the protocol adapter: the root entry never loads the optional peers
 * (`@openid4vc/openid4vp`, `dcql`, `jose`).
 */
import type * as Protocol from './protocol/index.js'

/** The operator's certificate chain and key, for the `x509_san_dns:` and `x509_hash:` client identifier prefixes. */
export interface Oid4vpX509Options {
  /** The chain, leaf first: PEM certificates or base64 DER (the request object's `x5c`). */
  chain: string[]
  /** The leaf certificate's private key as a JWK (P-256 for ES256, Ed25519 for EdDSA). Held in memory only. */
  privateKeyJwk: Record<string, unknown>
  /**
   * The tenants that may make requests under this certificate (it names the operator to wallets). Default: every
   * tenant — a deployment serving one organisation; list them when tenants are separate organisations.
   */
  tenants?: string[]
}

/** Options of the verifier module (`oid4vp(options)` of `didvault/oid4vc`). */
export interface Oid4vpOptions {
  /** Default lifetime of presentation requests, seconds. Default 300; at most 3,600. */
  requestTtlSeconds?: number
  /** How long results (and answered requests) are kept after the request was made, seconds. Default 3,600. */
  resultTtlSeconds?: number
  /** Largest wallet response body, bytes. Default 1 MiB. */
  maxResponseBytes?: number
  /** Most presentations in one `vp_token`. Default 10. */
  maxPresentations?: number
  /** The operator's certificate chain and key (`x509_san_dns:` / `x509_hash:` client identifiers). */
  x509?: Oid4vpX509Options
}

/** The defaults of {@link Oid4vpOptions}. */
export const OID4VP_DEFAULTS = {
  requestTtlSeconds: 300,
  resultTtlSeconds: 3600,
  maxResponseBytes: 1024 * 1024,
  maxPresentations: 10,
} as const

/** What `oid4vp(options)` gives the service. */
export interface Oid4vpModule {
  readonly options: Readonly<Oid4vpOptions>
  /** The adapter's functions (part of the `didvault/oid4vc` namespace). */
  readonly lib: typeof Protocol
  start(): Oid4vpRuntime
}

/** The running verifier, as operations reach it (`ctx.oid4vp`). */
export interface Oid4vpRuntime {
  readonly options: Readonly<Required<Omit<Oid4vpOptions, 'x509'>>> & Pick<Oid4vpOptions, 'x509'>
  readonly lib: typeof Protocol
}

/** The part of the service context the OID4VP operations reach. */
export interface Oid4vpContext {
  /** The running verifier; undefined when the service was made without the module. */
  oid4vp?: Oid4vpRuntime
}
