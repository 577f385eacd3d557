/**
 * The access token on resource requests (credential, deferred credential, notification): read from `Authorization`
 * (`DPoP <token>` or `Bearer <token>`), looked up by the caller (the one-time store holds only its keyed hash and the
 * DPoP key thumbprint it is bound to), and for a bound token the DPoP proof checked with `ath` and the bound key
 * (RFC 9449 §7). A bound token presented as Bearer is refused: no downgrade.
 */
import { OAuthError } from '../oauth-error.js'
import type { DpopProof, DpopVerifier } from './dpop.js'
import type { WalletRequest } from './request.js'

/** What the caller knows of an access token. */
export interface AccessTokenRecord {
  /** The DPoP key thumbprint the token is bound to; absent: a Bearer token. */
  jkt?: string
}

/** A resource request's verified access token. */
export interface VerifiedAccess<T extends AccessTokenRecord> {
  /** The access token (for the caller's own lookups; never logged). */
  accessToken: string
  /** What the caller's lookup returned. */
  record: T
  /** The DPoP proof, for a bound token: remember its `jti`. */
  dpop?: DpopProof
}

const invalidToken = (scheme: string, description: string) =>
  new OAuthError('invalid_token', description, 401, { headers: { 'WWW-Authenticate': `${scheme} error="invalid_token"` } })

/** The scheme and token of an `Authorization` header; refuses 401 `invalid_token` for none or another scheme. */
export function accessTokenOf(request: WalletRequest): { scheme: 'DPoP' | 'Bearer'; token: string } {
  const match = /^(DPoP|Bearer) +([A-Za-z0-9\-._~+/]+=*)$/i.exec(request.authorization?.trim() ?? '')
  if (!match) {
    throw new OAuthError('invalid_token', 'an access token is required', 401, { headers: { 'WWW-Authenticate': 'DPoP, Bearer' } })
  }
  return { scheme: match[1].toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer', token: match[2] }
}

/**
 * Verifies a resource request's access token: `lookup` finds its record (undefined: unknown, expired or revoked →
 * 401 `invalid_token`); a bound token needs the DPoP scheme and a proof by its key naming it (`ath`).
 */
export async function verifyResourceRequest<T extends AccessTokenRecord>(
  request: WalletRequest,
  lookup: (accessToken: string) => Promise<T | undefined>,
  dpop: DpopVerifier,
  options: { nonce?: string } = {},
): Promise<VerifiedAccess<T>> {
  const { scheme, token } = accessTokenOf(request)
  const record = await lookup(token)
  if (!record) throw invalidToken(scheme, 'the access token is unknown or expired')
  if (record.jkt === undefined) {
    if (scheme !== 'Bearer') throw invalidToken(scheme, 'the access token is not DPoP-bound')
    return { accessToken: token, record }
  }
  if (scheme !== 'DPoP') throw invalidToken('DPoP', 'the access token is DPoP-bound: use the DPoP scheme')
  const proof = await dpop.verify(request, { accessToken: token, expectedJkt: record.jkt, nonce: options.nonce }, 401)
  return { accessToken: token, record, dpop: proof }
}
