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

export * from './oid4vci/protocol/index.js'
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
