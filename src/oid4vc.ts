/**
 * `didvault/oid4vc`: the OpenID for Verifiable Credential Issuance 1.0 issuer module (needs the optional peers
 * @openid4vc/openid4vci, @openid4vc/oauth2 and @openid4vc/utils). Give it to the service —
 * `IdentityService.create({ ..., publicUrl, oid4vci: oid4vci() })` — and the router serves the issuer's endpoints;
 * `createWellKnownRouter(service)` at `/` serves its metadata at the inserted well-known paths. The root entry does
 * not import this module.
 */
import * as Protocol from './oid4vci/protocol/index.js'
import { OID4VCI_DEFAULTS, type Oid4vciModule, type Oid4vciOptions } from './oid4vci/module.js'

export * from './oid4vci/protocol/index.js'
export type { Oid4vciModule, Oid4vciOptions, Oid4vciRuntime } from './oid4vci/module.js'

/** The OID4VCI issuer module, for `IdentityService.create({ oid4vci })`. */
export function oid4vci(options: Oid4vciOptions = {}): Oid4vciModule {
  const given = { ...OID4VCI_DEFAULTS, ...options }
  if (!Number.isInteger(given.txCodeAttempts) || given.txCodeAttempts < 1)
    throw new TypeError('oid4vci: txCodeAttempts must be a positive integer')
  for (const name of ['accessTokenTtlSeconds', 'nonceTtlSeconds', 'offerTtlSeconds'] as const) {
    if (!Number.isInteger(given[name]) || given[name] < 1) throw new TypeError(`oid4vci: ${name} must be a positive integer`)
  }
  if (given.offerTtlSeconds > 86_400) throw new TypeError('oid4vci: offerTtlSeconds must be at most 86400')
  if ((given.loginUrl === undefined) !== (given.loginAssertionKeys === undefined))
    throw new TypeError('oid4vci: loginUrl and loginAssertionKeys go together')
  for (const jwk of given.loginAssertionKeys ?? [])
    if (['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'].some((member) => Object.hasOwn(jwk, member)))
      throw new TypeError('oid4vci: loginAssertionKeys are public keys: a JWK with a private member (d…) is refused')
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
