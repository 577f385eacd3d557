/**
 * The OID4VCI library adapter: the wallet-request side of the issuer, built on @openid4vc/openid4vci and
 * @openid4vc/oauth2 (optional peers). Pure functions and small classes taking callbacks, independent of storage and
 * of the service: single use (codes, nonces, DPoP `jti`s) is the caller's, through values this returns.
 */
import type { ResolveKey } from './callbacks.js'
import { CredentialRequestHandler } from './credential-request.js'
import { DpopVerifier, type ProofWindow } from './dpop.js'
import { TokenEndpoint } from './token.js'

export { OAuthError, type OAuthErrorBody, type OAuthErrorOptions } from '../oauth-error.js'
export { PROOF_ALGORITHMS, type ResolveKey } from './callbacks.js'
export type { CredentialRequest, HolderKey, ProofExpectations, VerifiedProofs } from './credential-request.js'
export type { DpopExpectations, DpopProof, ProofWindow } from './dpop.js'
export type { IssuerMetadata } from './metadata-result.js'
export {
  newRequestUri,
  parsePushedAuthorizationRequest,
  pushedAuthorizationResponse,
  requestUriReference,
  type CredentialAuthorizationDetail,
  type PushedAuthorizationRequest,
} from './par.js'
export type { WalletRequest } from './request.js'
export { accessTokenOf, verifyResourceRequest, type AccessTokenRecord, type VerifiedAccess } from './resource.js'
export {
  NOTIFICATION_EVENTS,
  credentialResponse,
  deferredCredentialResponse,
  invalidNonce,
  nonceResponse,
  parseDeferredCredentialRequest,
  parseNotificationRequest,
  type IssuedCredential,
  type NotificationRequest,
} from './responses.js'
export {
  PRE_AUTHORIZED_CODE_GRANT,
  randomToken,
  tokenResponse,
  type GrantExpectations,
  type TokenGrant,
  type TokenRequest,
  type TokenResponseInput,
} from './token.js'

/** Options of {@link createOid4vciProtocol}. */
export interface Oid4vciProtocolOptions {
  /** Finds the key a DID URL `kid` names (the service's DID resolver); absent: key proofs must carry a `jwk`. */
  resolveKey?: ResolveKey
  /** Window of key proofs' and DPoP proofs' `iat`. Default 300 s in the past, 60 s in the future. */
  proofWindow?: ProofWindow
  /** The clock (tests). */
  now?: () => Date
}

/** The adapter's parts, sharing one clock, one `iat` window and one key resolver. */
export interface Oid4vciProtocol {
  /** Token endpoint: parse, grant checks. */
  readonly token: TokenEndpoint
  /** DPoP proofs at the token, PAR and resource endpoints. */
  readonly dpop: DpopVerifier
  /** Credential endpoint: parse, key proofs. */
  readonly credential: CredentialRequestHandler
}

/** The default `iat` window of proofs. */
export const DEFAULT_PROOF_WINDOW: ProofWindow = { maxAgeSeconds: 300, skewSeconds: 60 }

/** The OID4VCI protocol adapter. */
export function createOid4vciProtocol(options: Oid4vciProtocolOptions = {}): Oid4vciProtocol {
  const now = options.now ?? (() => new Date())
  const window = options.proofWindow ?? DEFAULT_PROOF_WINDOW
  return {
    token: new TokenEndpoint(now),
    dpop: new DpopVerifier(window, now, options.resolveKey),
    credential: new CredentialRequestHandler(window, now, options.resolveKey),
  }
}

export { CredentialRequestHandler, DpopVerifier, TokenEndpoint }
