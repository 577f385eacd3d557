/**
 * The token endpoint (RFC 6749 §4.1.3, OID4VCI 1.0 §6): the request parsed by the library's `parseAccessTokenRequest`,
 * the grant checked by `verifyPreAuthorizedCodeAccessTokenRequest` / `verifyAuthorizationCodeAccessTokenRequest`
 * (PKCE S256, expiry), the response made here.
 *
 * Access tokens are opaque (32 random bytes): the caller stores them only as a keyed hash in the one-time store with
 * the DPoP key thumbprint they are bound to, so a token is revocable by deleting its row and there is no signing key to
 * manage or rotate. The library's resource server (`Oauth2ResourceServer`) would need JWT tokens or an introspection
 * endpoint reached over `fetch`; the credential endpoint checks DPoP with the library's `verifyDpopJwt` instead (see
 * `resource.ts`). OID4VCI 1.0 has no `c_nonce` in the token response (the nonce endpoint gives it): none is added.
 *
 * The `refresh_token` grant (RFC 6749 §6) is the deferred flow's: the caller finds the refresh token by its keyed hash and
 * checks its DPoP binding; {@link TokenEndpoint.verifyGrant} checks its expiry.
 *
 * Order for the caller: {@link parseTokenRequest} → DPoP (`DpopVerifier.verify`, before the code is spent, so a
 * `use_dpop_nonce` retry still has its code) → consume the code from the one-time store → {@link TokenEndpoint.verifyGrant}
 * → `remember` the DPoP `jti` → store and answer the token ({@link tokenResponse}).
 */
import { randomBytes } from 'node:crypto'
import {
  Oauth2AuthorizationServer,
  PkceCodeChallengeMethod,
  refreshTokenGrantIdentifier,
  type AuthorizationServerMetadata,
} from '@openid4vc/oauth2'
import { OAuthError } from '../oauth-error.js'
import { serverCallbacks } from './callbacks.js'
import { oauthErrorOf, parsing, requestLike, type WalletRequest } from './request.js'

/** The library's parse of a token request. */
type ParseAccessTokenRequestResult = ReturnType<Oauth2AuthorizationServer['parseAccessTokenRequest']>
/** The library's parse of a token request's grant. */
type ParsedGrant = ParseAccessTokenRequestResult['grant']

/** The pre-authorized code grant type. */
export const PRE_AUTHORIZED_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:pre-authorized_code'

/** The grant of a token request. */
export type TokenGrant =
  | { type: 'pre-authorized_code'; preAuthorizedCode: string; txCode?: string }
  | { type: 'authorization_code'; code: string; codeVerifier?: string; redirectUri?: string }
  | { type: 'refresh_token'; refreshToken: string }

/** A parsed token request. */
export interface TokenRequest {
  grant: TokenGrant
  /** `client_id`, when the wallet sent it (optional for pre-authorized code: anonymous access). */
  clientId?: string
  /** Whether the request carries a DPoP header. */
  hasDpop: boolean
  /** @internal The library's parse (its types stay out of didvault's public declarations). */
  readonly parsed: unknown
}

/** What was recorded with the code when it was issued, to check the token request against. */
export interface GrantExpectations {
  /** The AS metadata of the issuer. */
  metadata: Readonly<Record<string, unknown>>
  /** When the code expires (the store also expires it). */
  expiresAt?: Date
  /** Pre-authorized code: whether the offer asked for a `tx_code` (its value is checked by the caller, keyed hash). */
  txCodeRequired?: boolean
  /** Authorization code: the PKCE challenge of the authorization request (S256 only). */
  codeChallenge?: string
  /** Authorization code: the `redirect_uri` of the authorization request, which the token request must repeat. */
  redirectUri?: string
  /** Authorization code: the client the code was issued to. */
  clientId?: string
}

/** An opaque random value (access token, code, nonce): 32 bytes, base64url. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url')
}

/** The token endpoint's checks. */
export class TokenEndpoint {
  private readonly server = new Oauth2AuthorizationServer({ callbacks: serverCallbacks() })

  constructor(private readonly now: () => Date) {}

  /** Parses a token request (form body as an object); refuses `invalid_request` / `unsupported_grant_type`. */
  parseTokenRequest(request: WalletRequest, body: Record<string, unknown>): TokenRequest {
    const parsed = parsing('invalid_request', () =>
      this.server.parseAccessTokenRequest({ request: requestLike(request), accessTokenRequest: body }),
    )
    const { grant, accessTokenRequest } = parsed
    const clientId = typeof accessTokenRequest.client_id === 'string' ? accessTokenRequest.client_id : undefined
    const hasDpop = parsed.dpop !== undefined
    if (grant.grantType === PRE_AUTHORIZED_CODE_GRANT) {
      return {
        grant: { type: 'pre-authorized_code', preAuthorizedCode: grant.preAuthorizedCode, txCode: grant.txCode },
        clientId,
        hasDpop,
        parsed,
      }
    }
    if (grant.grantType === 'authorization_code') {
      const { code_verifier: codeVerifier, redirect_uri: redirectUri } = accessTokenRequest
      return { grant: { type: 'authorization_code', code: grant.code, codeVerifier, redirectUri }, clientId, hasDpop, parsed }
    }
    if (grant.grantType === refreshTokenGrantIdentifier) {
      return { grant: { type: 'refresh_token', refreshToken: grant.refreshToken }, clientId, hasDpop, parsed }
    }
    throw new OAuthError('unsupported_grant_type', `the grant type ${(grant as { grantType: string }).grantType} is not supported`)
  }

  /**
   * Checks the grant against what was recorded with its code (the caller has already found and consumed the code by
   * its value): `tx_code` presence, expiry, PKCE S256, `redirect_uri`, `client_id`. Refuses `invalid_grant` /
   * `invalid_request`; no description quotes a code or verifier.
   */
  async verifyGrant(request: WalletRequest, token: TokenRequest, expect: GrantExpectations): Promise<void> {
    const { grant } = token
    const parsed = token.parsed as ParseAccessTokenRequestResult
    if (grant.type === 'pre-authorized_code') {
      if (expect.txCodeRequired && grant.txCode === undefined) throw new OAuthError('invalid_request', 'the offer requires a tx_code')
      if (!expect.txCodeRequired && grant.txCode !== undefined) throw new OAuthError('invalid_request', 'the offer has no tx_code')
      const preAuthorized = grantOf(parsed, PRE_AUTHORIZED_CODE_GRANT)
      return this.#check(request, parsed, expect, 'the pre-authorized code is invalid or expired', (common) =>
        this.server.verifyPreAuthorizedCodeAccessTokenRequest({
          ...common,
          grant: preAuthorized,
          expectedPreAuthorizedCode: grant.preAuthorizedCode,
          expectedTxCode: grant.txCode,
          preAuthorizedCodeExpiresAt: expect.expiresAt,
        }),
      )
    }
    if (grant.type === 'refresh_token') {
      // The `refresh_token` grant (RFC 6749 §6) against the token the caller found by its value: its expiry.
      const refresh = grantOf(parsed, refreshTokenGrantIdentifier)
      return this.#check(request, parsed, expect, 'the refresh token is invalid or expired', (common) =>
        this.server.verifyRefreshTokenAccessTokenRequest({
          ...common,
          grant: refresh,
          expectedRefreshToken: grant.refreshToken,
          refreshTokenExpiresAt: expect.expiresAt,
        }),
      )
    }
    const authorization = grantOf(parsed, 'authorization_code')
    if (expect.clientId !== undefined && token.clientId !== expect.clientId) {
      throw new OAuthError('invalid_grant', 'the code was issued to another client')
    }
    if (expect.redirectUri !== undefined && grant.redirectUri !== expect.redirectUri) {
      throw new OAuthError('invalid_grant', 'redirect_uri differs from the authorization request')
    }
    if (expect.codeChallenge === undefined) throw new OAuthError('invalid_grant', 'the authorization request had no PKCE challenge')
    if (grant.codeVerifier === undefined) throw new OAuthError('invalid_grant', 'code_verifier is required (PKCE)')
    const pkce = {
      codeVerifier: grant.codeVerifier,
      codeChallenge: expect.codeChallenge,
      codeChallengeMethod: PkceCodeChallengeMethod.S256,
    }
    return this.#check(request, parsed, expect, 'the code is expired or code_verifier does not match the code_challenge', (common) =>
      this.server.verifyAuthorizationCodeAccessTokenRequest({
        ...common,
        grant: authorization,
        expectedCode: grant.code,
        pkce,
        codeExpiresAt: expect.expiresAt,
      }),
    )
  }

  /**
   * Runs one of the library's grant checks with what every grant's check is given (the AS metadata, the parsed request,
   * the request, the clock); what it throws becomes `invalid_grant` saying `refused` (or the library's OAuth error).
   */
  async #check(
    request: WalletRequest,
    parsed: ParseAccessTokenRequestResult,
    expect: GrantExpectations,
    refused: string,
    verify: (common: CommonVerifyOptions) => Promise<unknown>,
  ): Promise<void> {
    try {
      await verify({
        authorizationServerMetadata: expect.metadata as AuthorizationServerMetadata,
        accessTokenRequest: parsed.accessTokenRequest,
        request: requestLike(request),
        now: this.now(),
      })
    } catch (err) {
      throw oauthErrorOf(err, 'invalid_grant', refused)
    }
  }
}

/** What the library's three grant checks share. */
interface CommonVerifyOptions {
  authorizationServerMetadata: AuthorizationServerMetadata
  accessTokenRequest: ParseAccessTokenRequestResult['accessTokenRequest']
  request: ReturnType<typeof requestLike>
  now: Date
}

/** The library's parse of the grant when it is of `grantType`; `invalid_grant` "grant mismatch" otherwise. */
function grantOf<T extends ParsedGrant['grantType']>(
  parsed: ParseAccessTokenRequestResult,
  grantType: T,
): Extract<ParsedGrant, { grantType: T }> {
  if (parsed.grant.grantType !== grantType) throw new OAuthError('invalid_grant', 'grant mismatch')
  return parsed.grant as Extract<ParsedGrant, { grantType: T }>
}

/** What the token response says. */
export interface TokenResponseInput {
  /** The opaque access token (the caller stores its keyed hash). */
  accessToken: string
  /** Seconds the token lives. */
  expiresInSeconds: number
  /** The DPoP key thumbprint the token is bound to; absent: a Bearer token. */
  dpopJkt?: string
  /** The `authorization_details` granted (with `credential_identifiers` when the issuer names them). */
  authorizationDetails?: Record<string, unknown>[]
  /** The scope granted. */
  scope?: string
  /** A refresh token (RFC 6749 §5.1), when the grant has one. */
  refreshToken?: string
}

/** The token response body (RFC 6749 §5.1): `token_type` DPoP when bound, Bearer otherwise. */
export function tokenResponse(input: TokenResponseInput): Record<string, unknown> {
  return {
    access_token: input.accessToken,
    token_type: input.dpopJkt ? 'DPoP' : 'Bearer',
    expires_in: input.expiresInSeconds,
    ...(input.scope !== undefined && { scope: input.scope }),
    ...(input.refreshToken !== undefined && { refresh_token: input.refreshToken }),
    ...(input.authorizationDetails !== undefined && { authorization_details: input.authorizationDetails }),
  }
}
