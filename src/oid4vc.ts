/**
 * `didvault/oid4vc`: the OpenID for Verifiable Credential Issuance 1.0 issuer module (needs the optional peers
 * @openid4vc/openid4vci, @openid4vc/oauth2 and @openid4vc/utils). Give it to the service —
 * `IdentityService.create({ ..., publicUrl, oid4vci: oid4vci() })` — and the router serves the issuer's endpoints;
 * `createWellKnownRouter(service)` at `/` serves its metadata at the inserted well-known paths. The root entry does
 * not import this module.
 */
import * as Protocol from './oid4vci/protocol/index.js'
import { loginKeyOf } from './oid4vci/login-assertion.js'
import { OID4VCI_DEFAULTS, type Oid4vciModule, type Oid4vciOptions } from './oid4vci/module.js'
import * as VpProtocol from './oid4vp/protocol/index.js'
import { OID4VP_DEFAULTS, type Oid4vpModule, type Oid4vpOptions } from './oid4vp/module.js'

export * from './oid4vci/protocol/index.js'
export * from './oid4vp/protocol/index.js'
export type { Oid4vpModule, Oid4vpOptions, Oid4vpRuntime, Oid4vpX509Options } from './oid4vp/module.js'
export type { PresentationOutcome, PresentedCredential } from './oid4vp/outcome-schemas.js'
export type { AuthorizeAnswer, AuthorizeRequest, Oid4vciModule, Oid4vciOptions, Oid4vciRuntime } from './oid4vci/module.js'

/** The OID4VCI issuer module, for `IdentityService.create({ oid4vci })`. */
export function oid4vci(options: Oid4vciOptions = {}): Oid4vciModule {
  const given = { ...OID4VCI_DEFAULTS, ...options }
  if (!Number.isInteger(given.txCodeAttempts) || given.txCodeAttempts < 1)
    throw new TypeError('oid4vci: txCodeAttempts must be a positive integer')
  for (const name of ['accessTokenTtlSeconds', 'nonceTtlSeconds', 'offerTtlSeconds'] as const) {
    if (!Number.isInteger(given[name]) || given[name] < 1) throw new TypeError(`oid4vci: ${name} must be a positive integer`)
  }
  if (given.offerTtlSeconds > 86_400) throw new TypeError('oid4vci: offerTtlSeconds must be at most 86400')
  checkLogin(given)
  return {
    options: given,
    lib: Protocol,
    start: (resolveKey) => ({
      options: given,
      lib: Protocol,
      protocol: Protocol.createOid4vciProtocol({ resolveKey, proofWindow: options.proofWindow }),
    }),
  }
}

/** `loginUrl` (an absolute http(s) URL without query or fragment) comes with the keys that sign its assertions. */
function checkLogin(options: Oid4vciOptions): void {
  if (options.authorize !== undefined && typeof options.authorize !== 'function')
    throw new TypeError('oid4vci: authorize must be a function')
  if (options.loginUrl === undefined) {
    if (options.loginAssertionKeys !== undefined) throw new TypeError('oid4vci: loginAssertionKeys is given without loginUrl')
    return
  }
  let url: URL
  try {
    url = new URL(options.loginUrl)
  } catch {
    throw new TypeError('oid4vci: loginUrl must be an absolute URL')
  }
  if (!['https:', 'http:'].includes(url.protocol) || url.hash !== '')
    throw new TypeError('oid4vci: loginUrl must be an http(s) URL without fragment')
  const keys = options.loginAssertionKeys
  if (!Array.isArray(keys) || keys.length === 0) throw new TypeError('oid4vci: loginUrl needs loginAssertionKeys (public JWKs)')
  for (const key of keys) {
    if (loginKeyOf(key) === undefined) throw new TypeError('oid4vci: loginAssertionKeys must be public P-256 or Ed25519 JWKs')
  }
}

/**
 * The OID4VP verifier module, for `IdentityService.create({ oid4vp })` (needs the optional peers
 * @openid4vc/openid4vp, dcql and jose): each tenant asks wallets for presentations (docs/oid4vp.md).
 */
export function oid4vp(options: Oid4vpOptions = {}): Oid4vpModule {
  const given = { ...OID4VP_DEFAULTS, ...options }
  for (const name of ['requestTtlSeconds', 'resultTtlSeconds', 'maxResponseBytes', 'maxPresentations'] as const) {
    if (!Number.isInteger(given[name]) || given[name] < 1) throw new TypeError(`oid4vp: ${name} must be a positive integer`)
  }
  if (given.requestTtlSeconds > 3600) throw new TypeError('oid4vp: requestTtlSeconds must be at most 3600')
  if (given.resultTtlSeconds < given.requestTtlSeconds) throw new TypeError('oid4vp: resultTtlSeconds must be at least requestTtlSeconds')
  if (
    given.x509 !== undefined &&
    (!Array.isArray(given.x509.chain) || given.x509.chain.length === 0 || typeof given.x509.privateKeyJwk !== 'object')
  )
    throw new TypeError('oid4vp: x509 needs a certificate chain (leaf first) and its private key as a JWK')
  const tenants = given.x509?.tenants
  if (tenants !== undefined && (!Array.isArray(tenants) || tenants.length === 0 || tenants.some((t) => typeof t !== 'string' || t === '')))
    throw new TypeError('oid4vp: x509.tenants must be a non-empty list of tenant ids')
  return { options: given, lib: VpProtocol, start: () => ({ options: given, lib: VpProtocol }) }
}
