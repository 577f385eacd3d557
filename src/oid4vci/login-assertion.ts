/**
 * The login assertion of the authorization code flow under `serve`: a compact JWS the operator's login page signs
 * with a key the operator configured (`loginAssertionKeys`, ES256 or EdDSA) and sends back through the browser to
 * `GET /oid4vci/:issuer/authorize/return?assertion=…`. Checked here: signature, `aud` (the Credential Issuer
 * Identifier), `exp` (in the future, at most {@link MAX_ASSERTION_SECONDS} ahead), `iat` not in the future, `jti`,
 * `request` (the handle the authorization endpoint gave the page), and either `sub` (+ `claims`, optional when the request
 * is bound to an offer by `issuer_state`: the offer's claims then) or `refused`. The `jti`'s
 * single use and the handle's are the caller's (one-time store). No secret in any refusal.
 */
import { keyTypeOfJwk, type PublicJwk } from '../keys/key-types.js'
import { joseVerifierOf } from '../proofs/jose-algorithms.js'
import { OAuthError } from './oauth-error.js'

/** Longest lifetime of an assertion: its `exp` at most this many seconds after now. */
export const MAX_ASSERTION_SECONDS = 300
/** Clock skew allowed on `iat`, seconds. */
const SKEW_SECONDS = 60
/** The algorithm each key type signs assertions with. */
const ALG_OF_KEY: Readonly<Record<string, 'ES256' | 'EdDSA'>> = { 'P-256': 'ES256', Ed25519: 'EdDSA' }
/** Longest assertion accepted, characters. */
const MAX_LENGTH = 16_384

/** A configured assertion key: its public JWK, its `kid`, and the algorithm it signs with. */
export interface LoginKey {
  jwk: PublicJwk
  kid?: string
  alg: 'ES256' | 'EdDSA'
}

/** The assertion key a configured JWK stands for; undefined for a private, unsupported or malformed JWK. */
export function loginKeyOf(jwk: unknown): LoginKey | undefined {
  if (typeof jwk !== 'object' || jwk === null || 'd' in jwk) return undefined
  const keyType = keyTypeOfJwk(jwk)
  const alg = keyType === undefined ? undefined : ALG_OF_KEY[keyType]
  const { kty, crv, x, y, kid } = jwk as PublicJwk & { kid?: unknown }
  if (alg === undefined || typeof x !== 'string') return undefined
  if ((jwk as { alg?: unknown }).alg !== undefined && (jwk as { alg?: unknown }).alg !== alg) return undefined
  return { jwk: y === undefined ? { kty, crv, x } : { kty, crv, x, y }, alg, ...(typeof kid === 'string' && { kid }) }
}

/** A verified login assertion. */
export type LoginAssertion = {
  /** The handle of the pending authorization request. */
  request: string
  jti: string
  /** When it expires (how long to remember its `jti`). */
  expiresAt: Date
} & ({ subject: string; claims?: Record<string, Record<string, unknown>> } | { refused: string })

const refuse = (description: string) => new OAuthError('invalid_request', `login assertion: ${description}`)

/** Verifies `compact` for the issuer `audience` with `keys`, at `now`; refuses `invalid_request`. */
export function verifyLoginAssertion(compact: string, audience: string, keys: readonly LoginKey[], now: Date): LoginAssertion {
  const parts = compact.length <= MAX_LENGTH ? compact.split('.') : []
  if (parts.length !== 3) throw refuse('not a compact JWS')
  const header = jsonOf(parts[0]) as { alg?: unknown; kid?: unknown; crit?: unknown } | undefined
  const payload = jsonOf(parts[1])
  if (header === undefined || payload === undefined) throw refuse('not a compact JWS')
  if (header.crit !== undefined) throw refuse('critical header parameters are not supported')
  const candidates = keys.filter((k) => k.alg === header.alg && (header.kid === undefined || k.kid === header.kid))
  const verifier = joseVerifierOf(header.alg)
  const signature = Buffer.from(parts[2], 'base64url')
  const input = `${parts[0]}.${parts[1]}`
  if (!verifier || !candidates.some((k) => verifier.verify(input, signature, k.jwk))) throw refuse('the signature is not by a login key')

  const { aud, exp, iat, jti, request, sub, claims, refused } = payload
  if (!(aud === audience || (Array.isArray(aud) && aud.includes(audience)))) throw refuse('aud is not this Credential Issuer')
  const seconds = now.getTime() / 1000
  if (typeof exp !== 'number' || !Number.isFinite(exp)) throw refuse('exp is required')
  if (exp <= seconds) throw refuse('expired')
  if (exp > seconds + MAX_ASSERTION_SECONDS + SKEW_SECONDS) throw refuse(`exp is more than ${MAX_ASSERTION_SECONDS} s ahead`)
  if (iat !== undefined && (typeof iat !== 'number' || iat > seconds + SKEW_SECONDS)) throw refuse('iat is in the future')
  if (typeof jti !== 'string' || jti.length === 0 || jti.length > 256) throw refuse('jti is required')
  if (typeof request !== 'string' || request.length === 0 || request.length > 256) throw refuse('request is required')
  const common = { request, jti, expiresAt: new Date(exp * 1000) }
  if (refused !== undefined) {
    if (typeof refused !== 'string' || refused.length > 500) throw refuse('refused must be a string')
    return { ...common, refused }
  }
  if (typeof sub !== 'string' || sub.length === 0 || sub.length > 256) throw refuse('sub is required')
  // No claims: the request's offer's (issuer_state), if it has one; else nothing is granted.
  if (claims === undefined) return { ...common, subject: sub }
  if (!isRecord(claims) || !Object.values(claims).every(isRecord)) throw refuse('claims must be an object of objects, by configuration id')
  return { ...common, subject: sub, claims: claims as Record<string, Record<string, unknown>> }
}

/** A base64url JSON object, or undefined. */
function jsonOf(segment: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'))
    return isRecord(value) ? value : undefined
  } catch {
    return undefined
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
