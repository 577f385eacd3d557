/**
 * What an OID4VCI access token grants: sealed into the token itself (`access-tokens.ts`; nothing stored), by the token
 * endpoint for every grant type, and read by the credential, deferred-credential and notification endpoints through the
 * caller the access-token authenticator made.
 */
import type { Caller } from '../auth/context.js'
import type { OneTimeKind } from '../one-time/index.js'
import { OAuthError } from './oauth-error.js'
import type * as Protocol from './protocol/index.js'

/** The one-time kinds of the issuer's values. */
export const ONE_TIME_KINDS = {
  preAuthorizedCode: 'pre-auth-code',
  authorizationCode: 'auth-code',
  pushedRequest: 'par',
  accessToken: 'access-token',
  cNonce: 'c-nonce',
  dpopJti: 'dpop-jti',
  txCode: 'tx-code',
  loginJti: 'login-jti',
  loginRequest: 'login-request',
  notification: 'notification',
  issuerState: 'issuer-state',
  refreshToken: 'refresh-token',
} as const satisfies Record<string, OneTimeKind>

/** An access token's grant. */
export interface AccessGrant {
  /** The issuer slug the token was issued by (a token is good at that issuer only). */
  issuer: string
  /** The credential configurations it may fetch (their ids as wallets see them). */
  configurationIds: string[]
  /** The claims of each configuration's credential: the offer's (pre-authorized) or the login's (authorization code). */
  claims: Record<string, Record<string, unknown>>
  /** The offer it came from, when there was one (audit). */
  offerId?: string
  /** The subject the embedding application authenticated (authorization code flow), for the audit trail. */
  subject?: string
  /** The client the code was issued to (authorization code flow): a key proof's `iss`, when present, must be it. */
  clientId?: string
  /** RFC 7638 thumbprint of the DPoP key the token is bound to; absent: a Bearer token. */
  jkt?: string
}

/** A caller authenticated by an OID4VCI access token: its tenant, and the grant. */
export interface AccessCaller extends Caller {
  grant: AccessGrant
  /** The access token's keyed-hash handle is the store's; the token itself, for lookups of values tied to it. */
}

/** The grant of a caller the access-token authenticator made; a refusal for any other caller. */
export function grantOf(caller: Caller): AccessGrant {
  const grant = caller.grant as AccessGrant | undefined
  if (grant === undefined || typeof grant.issuer !== 'string') throw new OAuthError('invalid_token', 'an access token is required', 401)
  return grant
}

/** A token request at an issuer, parsed, its DPoP proof (if any) verified: what each grant's redemption starts from. */
export interface TokenRedemption {
  slug: string
  tenantId: string
  credentialIssuer: string
  request: Protocol.WalletRequest
  token: Protocol.TokenRequest
  dpop: Protocol.DpopProof | undefined
}
