/**
 * DPoP proofs (RFC 9449) at the token, PAR and credential endpoints, checked by the library's `verifyDpopJwt` (`typ`,
 * signature by the header `jwk`, `htm`, `htu`, `ath`, key thumbprint, server nonce) plus the `iat` window the library
 * leaves to the server. The `jti` comes back for the caller to `remember` (single use across processes).
 */
import { Oauth2AuthorizationServer } from '@openid4vc/oauth2'
import { OAuthError } from '../oauth-error.js'
import { PROOF_ALGORITHMS, serverCallbacks, type ResolveKey } from './callbacks.js'
import { oauthErrorOf, requestLike, type WalletRequest } from './request.js'

/** A verified DPoP proof. */
export interface DpopProof {
  /** The RFC 7638 thumbprint of the proof's key (what an access token is bound to). */
  jkt: string
  /** The proof's public key. */
  jwk: Record<string, unknown>
  /** The proof's `jti`: the caller remembers it until {@link DpopProof.expiresAt} and refuses a second use. */
  jti: string
  /** When the proof leaves the `iat` window: how long to remember its `jti`. */
  expiresAt: Date
}

/** What a DPoP proof is checked against. */
export interface DpopExpectations {
  /** The access token the proof must name (`ath`): on resource requests. */
  accessToken?: string
  /** The key the proof must be signed with (the token's binding). */
  expectedJkt?: string
  /** The server-provided nonce the proof must carry, when the server asks for one. */
  nonce?: string
}

/** Timing of proofs: how old an `iat` may be, how far in the future. */
export interface ProofWindow {
  /** Seconds an `iat` may lie in the past. */
  maxAgeSeconds: number
  /** Seconds an `iat` may lie in the future (clock skew). */
  skewSeconds: number
}

/** Whether `iat` (seconds) is within `window` of `now`. */
export function iatWithin(iat: unknown, now: Date, window: ProofWindow): boolean {
  if (typeof iat !== 'number' || !Number.isFinite(iat)) return false
  const nowSeconds = now.getTime() / 1000
  return iat >= nowSeconds - window.maxAgeSeconds && iat <= nowSeconds + window.skewSeconds
}

/** Verifies DPoP proofs. */
export class DpopVerifier {
  private readonly server: Oauth2AuthorizationServer

  constructor(
    private readonly window: ProofWindow,
    private readonly now: () => Date,
    resolveKey?: ResolveKey,
  ) {
    this.server = new Oauth2AuthorizationServer({ callbacks: serverCallbacks(resolveKey) })
  }

  /**
   * The proof in `request.dpop`, verified; refuses with `invalid_dpop_proof` (401 with `WWW-Authenticate: DPoP` when
   * `status` is 401, at resource endpoints) or `use_dpop_nonce` with a `DPoP-Nonce` header when `expect.nonce` is given
   * and the proof lacks it.
   */
  async verify(request: WalletRequest, expect: DpopExpectations = {}, status = 400): Promise<DpopProof> {
    if (!request.dpop) throw this.refuse('invalid_dpop_proof', 'a DPoP proof is required', status)
    const now = this.now()
    let verified
    try {
      verified = await this.server.verifyDpopJwt({
        dpopJwt: request.dpop,
        request: requestLike(request),
        allowedSigningAlgs: [...PROOF_ALGORITHMS],
        accessToken: expect.accessToken,
        expectedJwkThumbprint: expect.expectedJkt,
        now,
      })
    } catch (err) {
      throw this.refuse('invalid_dpop_proof', describe(err), status, err)
    }
    const { payload, header, jwkThumbprint } = verified
    if (!iatWithin(payload.iat, now, this.window))
      throw this.refuse('invalid_dpop_proof', 'the DPoP proof is stale or from the future', status)
    if (expect.nonce !== undefined && payload.nonce !== expect.nonce) {
      throw new OAuthError('use_dpop_nonce', 'the DPoP proof must carry the server nonce', status, {
        headers: { 'DPoP-Nonce': expect.nonce, ...(status === 401 && { 'WWW-Authenticate': 'DPoP error="use_dpop_nonce"' }) },
      })
    }
    return {
      jkt: jwkThumbprint,
      jwk: { ...header.jwk },
      jti: payload.jti,
      expiresAt: new Date((payload.iat + this.window.maxAgeSeconds + this.window.skewSeconds) * 1000),
    }
  }

  private refuse(error: string, description: string, status: number, cause?: unknown): OAuthError {
    const headers = status === 401 ? { 'WWW-Authenticate': `DPoP error="${error}"` } : undefined
    const mapped = cause === undefined ? undefined : oauthErrorOf(cause, error, description)
    return new OAuthError(mapped?.error ?? error, description, status, { headers })
  }
}

/** A description of a DPoP failure that names which check failed, without quoting values. */
function describe(err: unknown): string {
  const message = err instanceof Error ? err.message : ''
  const description = (err as { errorResponse?: { error_description?: string } }).errorResponse?.error_description ?? message
  if (/htm value/.test(description)) return 'the DPoP proof is for another HTTP method'
  if (/htu value/.test(description)) return 'the DPoP proof is for another URL'
  if (/ath value/.test(description)) return 'the DPoP proof does not name this access token'
  if (/thumbprint/.test(description)) return 'the DPoP proof is signed by another key than the token is bound to'
  if (/alg value/.test(description)) return 'the DPoP proof uses an algorithm not allowed'
  if (/verification failed/.test(description)) return 'the DPoP proof signature does not verify'
  return 'the DPoP proof is invalid'
}
