/**
 * Verifying a Status List Token in JWT form (draft-ietf-oauth-status-list § Status List Token in JWT Format,
 * § Validation Rules), in this order, each failure named by its {@link TokenStatusListCheck}: the token's size and
 * form; `alg` one the key types sign under (`ES256K`, `ES256`, `EdDSA`: never `none` or a MAC); `typ`
 * `statuslist+jwt` (or `application/statuslist+jwt`); `kid` a DID URL whose DID's current document lists it under
 * `assertionMethod` with a key of the algorithm's type; the signature by that key (OpenSSL; for a did:ethr-style method
 * naming an address, the signer recovered from the ES256K signature); `sub` the URI the token
 * was fetched from; `iat` present and not in the future, `exp` (when present) not past, `ttl` (when present) positive,
 * each with the allowed clock skew; `status_list` decoded within its bound.
 *
 * Which DID may sign the list of a Referenced Token is its caller's rule: the result names the signer's DID.
 */
import type { Resolvable } from 'did-resolver'
import type { SignatureAlgorithm } from '../../keys/key-types.js'
import { decodeJwt } from '../../proofs/jwt-verifier.js'
import { isSignedBy, issuerKeyOf } from './issuer-key.js'
import { TokenStatusListRejected, type TokenStatusListCheck } from './rejected.js'
import { STATUS_LIST_JWT_TYPE } from './sign-token.js'
import { decodeStatusList, MAX_STATUS_LIST_BYTES, maxLstLength } from './status-list.js'
import type { StatusListBits } from './status-types.js'

/** How a Status List Token is checked. */
export interface VerifyStatusListTokenOptions {
  /** Resolves the DID of `kid` (the service's resolver, or one limited to allowed origins). */
  resolver: Resolvable
  /** The URI the token was fetched from: `sub` must equal it. */
  uri: string
  /** The current time, ms since the epoch. */
  now: number
  /** Allowed clock skew, seconds (default 60). */
  skewSeconds?: number
  /** The largest inflated list accepted, bytes (default {@link MAX_STATUS_LIST_BYTES}). */
  maxBytes?: number
}

/** A Status List Token that passed every check: its list, who signed it, and its times (seconds). */
export interface VerifiedStatusListToken {
  verified: true
  /** The DID whose key signed the token (the DID of `kid`). */
  issuer: string
  kid: string
  bits: StatusListBits
  /** The byte array of the list (read entries with `statusAt`). */
  list: Uint8Array
  iat: number
  exp?: number
  ttl?: number
}

/** A refused Status List Token: the check that failed and why. */
export interface RefusedStatusListToken {
  verified: false
  check: TokenStatusListCheck
  reason: string
}

/** The algorithms a Status List Token may be signed with: those of the key types' JWTs. */
const ALGORITHMS: ReadonlySet<string> = new Set<SignatureAlgorithm>(['ES256K', 'ES256', 'EdDSA'])

/** The `typ` values that name a Status List Token (RFC 7515 § 4.1.9: the `application/` prefix may be left out). */
const TYPES: ReadonlySet<string> = new Set([STATUS_LIST_JWT_TYPE, `application/${STATUS_LIST_JWT_TYPE}`])

/** Room for the header, the other claims and the signature beside the list, characters. */
const TOKEN_OVERHEAD = 16 * 1024

/** The list, issuer and times of Status List Token `jwt`, or the check it fails. Never throws for a bad token. */
export async function verifyStatusListToken(
  jwt: unknown,
  options: VerifyStatusListTokenOptions,
): Promise<VerifiedStatusListToken | RefusedStatusListToken> {
  try {
    return await checkToken(jwt, options)
  } catch (err) {
    if (err instanceof TokenStatusListRejected) return { verified: false, check: err.check, reason: err.message }
    throw err
  }
}

async function checkToken(jwt: unknown, options: VerifyStatusListTokenOptions): Promise<VerifiedStatusListToken> {
  const maxBytes = options.maxBytes ?? MAX_STATUS_LIST_BYTES
  if (typeof jwt !== 'string') throw new TokenStatusListRejected('format', 'the token must be a compact JWS')
  if (jwt.length > maxLstLength(maxBytes) + TOKEN_OVERHEAD)
    throw new TokenStatusListRejected('format', `the token is longer than one with a list of ${maxBytes} bytes`)
  let decoded: ReturnType<typeof decodeJwt>
  // An unsigned JWT (`alg: none`) has an empty signature: read as one with a placeholder, so its `alg` is what is named.
  const unsigned = jwt.endsWith('.')
  try {
    decoded = decodeJwt(unsigned ? `${jwt}A` : jwt)
  } catch {
    throw new TokenStatusListRejected('format', 'the token is not a compact JWS with JSON header and payload')
  }
  const { header, payload, data } = decoded
  const signature = unsigned ? '' : decoded.signature
  const alg = header.alg
  if (typeof alg !== 'string' || !ALGORITHMS.has(alg)) throw new TokenStatusListRejected('alg', 'alg must be ES256K, ES256 or EdDSA')
  if (typeof header.typ !== 'string' || !TYPES.has(header.typ.toLowerCase()))
    throw new TokenStatusListRejected('typ', `typ must be ${STATUS_LIST_JWT_TYPE}`)
  const issuer = await issuerKeyOf(header.kid, alg as SignatureAlgorithm, options.resolver)
  if (!isSignedBy(issuer, alg as SignatureAlgorithm, data, signature))
    throw new TokenStatusListRejected('signature', 'the signature is not by the key kid names')
  if (payload.sub !== options.uri) throw new TokenStatusListRejected('sub', 'sub is not the URI the token was fetched from')
  const times = checkTimes(payload, Math.floor(options.now / 1000), options.skewSeconds ?? 60)
  const statusList = (payload as { status_list?: unknown }).status_list
  if (typeof statusList !== 'object' || statusList === null) throw new TokenStatusListRejected('status_list', 'status_list is missing')
  const { bits, lst } = statusList as { bits?: unknown; lst?: unknown }
  const list = decodeStatusList(lst, bits, { maxBytes })
  return { verified: true, issuer: issuer.did, kid: header.kid as string, bits: bits as StatusListBits, list, ...times }
}

/** `iat`, `exp` and `ttl` of a token checked against `now` (seconds) with `skew`. */
function checkTimes(payload: Record<string, unknown>, now: number, skew: number): Pick<VerifiedStatusListToken, 'iat' | 'exp' | 'ttl'> {
  const { iat, exp, ttl } = payload
  if (typeof iat !== 'number' || !Number.isFinite(iat)) throw new TokenStatusListRejected('iat', 'iat must be a number')
  if (iat > now + skew) throw new TokenStatusListRejected('iat', 'iat is in the future')
  if (exp !== undefined && (typeof exp !== 'number' || !Number.isFinite(exp)))
    throw new TokenStatusListRejected('exp', 'exp must be a number')
  if (exp !== undefined && exp <= now - skew) throw new TokenStatusListRejected('exp', 'the token has expired')
  if (ttl !== undefined && (typeof ttl !== 'number' || !Number.isFinite(ttl) || ttl <= 0))
    throw new TokenStatusListRejected('ttl', 'ttl must be a positive number')
  return { iat, ...(exp !== undefined && { exp }), ...(ttl !== undefined && { ttl }) }
}
