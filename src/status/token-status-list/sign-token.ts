/**
 * Signing a Status List Token in JWT form (draft-ietf-oauth-status-list § Status List Token in JWT Format): header
 * `typ: statuslist+jwt`, `alg` of the signing key's type (`ES256K`, `ES256`, `EdDSA`) and `kid`; claims `sub` (the
 * token's URI), `iat`, `exp` and `ttl` when given, and `status_list { bits, lst }`. Signed through the key port's
 * {@link KeySigner} by did-jwt's JWS encoder.
 */
import { createJWS, type JWTHeader } from 'did-jwt'
import { ALGORITHMS_OF } from '../../keys/key-types.js'
import type { KeySigner } from '../../keys/signer.js'
import { keySignerJwtSigner } from '../../proofs/jwt-signer.js'
import type { StatusListBits } from './status-types.js'

/** The media type of a Status List Token in JWT form, and its `typ`. */
export const STATUS_LIST_JWT_TYPE = 'statuslist+jwt'

/** What a Status List Token says, and who signs it. Times are JWT NumericDates: seconds since the epoch. */
export interface StatusListTokenInput {
  /** The issuer's key, through the key port. */
  signer: KeySigner
  /** The DID URL of the verification method of the issuer's document that lists the key (`assertionMethod`). */
  kid: string
  /** The URI the token is served at (`sub`; a Referenced Token's `status.status_list.uri`). */
  uri: string
  bits: StatusListBits
  /** The encoded list (`encodeStatusList`). */
  lst: string
  /** Issued at, seconds. */
  iat: number
  /** Expiry, seconds; absent: the token does not expire. */
  exp?: number
  /** How long a relying party may cache the token, seconds (positive). */
  ttl?: number
}

/**
 * The compact JWS of a Status List Token signed by `input.signer`.
 * @throws {RangeError} (a rejection) `iat`, `exp` or `ttl` not an integer, `ttl` not positive, or `exp` not after `iat`
 */
export async function signStatusListToken(input: StatusListTokenInput): Promise<string> {
  const { signer, kid, uri, bits, lst, iat, exp, ttl } = input
  if (!Number.isSafeInteger(iat)) throw new RangeError('iat must be an integer (seconds)')
  if (exp !== undefined && (!Number.isSafeInteger(exp) || exp <= iat)) throw new RangeError('exp must be an integer after iat (seconds)')
  if (ttl !== undefined && (!Number.isSafeInteger(ttl) || ttl <= 0)) throw new RangeError('ttl must be a positive integer (seconds)')
  const alg = ALGORITHMS_OF[signer.keyType][0]
  const payload = { sub: uri, iat, ...(exp !== undefined && { exp }), ...(ttl !== undefined && { ttl }), status_list: { bits, lst } }
  // did-jwt types `typ` as 'JWT' only; it writes the header it is given.
  const header = { alg, typ: STATUS_LIST_JWT_TYPE, kid } as unknown as Partial<JWTHeader>
  return createJWS(payload, keySignerJwtSigner(signer, alg), header)
}
