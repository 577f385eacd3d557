/**
 * Pushed authorization requests (RFC 9126) for the authorization code flow: parsed by the library's
 * `parsePushedAuthorizationRequest`, then held to what the issuer requires: `response_type=code`, PKCE S256
 * (RFC 7636), `authorization_details` of type `openid_credential` (RFC 9396, OID4VCI 1.0 §5.1.1) or a `scope` of a
 * configuration, an optional `issuer_state` from an offer, and a DPoP key (header proof and/or `dpop_jkt`, which must
 * agree). Request objects (JAR `request` / `request_uri`) are refused: the issuer fetches nothing a wallet names.
 */
import {
  Oauth2AuthorizationServer,
  parsePushedAuthorizationRequestUriReferenceValue,
  pushedAuthorizationRequestUriPrefix,
} from '@openid4vc/oauth2'
import { OAuthError } from '../oauth-error.js'
import { serverCallbacks } from './callbacks.js'
import type { DpopProof, DpopVerifier } from './dpop.js'
import type { IssuerMetadata } from './metadata-result.js'
import { parsing, requestLike, type WalletRequest } from './request.js'
import { randomToken } from './token.js'

/** One `authorization_details` entry of type `openid_credential`. */
export interface CredentialAuthorizationDetail {
  type: 'openid_credential'
  credential_configuration_id: string
  [member: string]: unknown
}

/** A checked pushed authorization request. */
export interface PushedAuthorizationRequest {
  clientId: string
  /** The PKCE S256 challenge, to check the token request's `code_verifier` against. */
  codeChallenge: string
  redirectUri?: string
  state?: string
  /** The `issuer_state` of the offer the wallet is redeeming. */
  issuerState?: string
  scope?: string
  authorizationDetails?: CredentialAuthorizationDetail[]
  /** The configurations asked for, from `authorization_details` and `scope`. */
  credentialConfigurationIds: string[]
  /** The DPoP key the code (and its token) will be bound to (`dpop_jkt` or the header proof's key). */
  dpopJkt?: string
  /** The header DPoP proof, when sent: remember its `jti`. */
  dpop?: DpopProof
}

const server = new Oauth2AuthorizationServer({ callbacks: serverCallbacks() })

/** Parses and checks a PAR body (form fields as an object); refuses with the OAuth error codes of RFC 6749/9126/9396. */
export async function parsePushedAuthorizationRequest(
  request: WalletRequest,
  body: Record<string, unknown>,
  metadata: IssuerMetadata,
  dpop: DpopVerifier,
  options: { dpopRequired?: boolean; dpopNonce?: string } = {},
): Promise<PushedAuthorizationRequest> {
  if (body.request !== undefined || body.request_uri !== undefined) {
    throw new OAuthError('request_not_supported', 'request objects are not supported at the PAR endpoint')
  }
  const parsed = await parsingAsync(() =>
    server.parsePushedAuthorizationRequest({ request: requestLike(request), authorizationRequest: body }),
  )
  const ar = parsed.authorizationRequest
  if (ar.response_type !== 'code') throw new OAuthError('unsupported_response_type', 'response_type must be code')
  if (typeof ar.code_challenge !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(ar.code_challenge)) {
    throw new OAuthError('invalid_request', 'a PKCE code_challenge (S256) is required')
  }
  if (ar.code_challenge_method !== 'S256') throw new OAuthError('invalid_request', 'code_challenge_method must be S256')

  const configurations = metadata.credentialIssuer.credential_configurations_supported
  const ids = new Set<string>()
  const details = ar.authorization_details === undefined ? undefined : authorizationDetailsOf(ar.authorization_details)
  for (const detail of details ?? []) {
    if (!Object.hasOwn(configurations, detail.credential_configuration_id)) {
      throw new OAuthError('invalid_authorization_details', 'authorization_details names an unknown credential configuration')
    }
    ids.add(detail.credential_configuration_id)
  }
  if (ar.scope !== undefined) {
    // A scope value naming no configuration is refused when the scope is all the request has; beside
    // authorization_details it is ignored (RFC 6749 §3.3): Sphereon's wallets send `scope=openid` with them by default.
    const named = ids.size > 0
    for (const scope of ar.scope.split(' ').filter(Boolean)) {
      const id = Object.keys(configurations).find((key) => configurations[key].scope === scope)
      if (id === undefined && !named) throw new OAuthError('invalid_scope', 'the scope names no credential configuration')
      if (id !== undefined) ids.add(id)
    }
  }
  if (ids.size === 0) throw new OAuthError('invalid_request', 'authorization_details or scope is required')

  let proof: DpopProof | undefined
  if (request.dpop !== undefined) proof = await dpop.verify(request, { nonce: options.dpopNonce })
  const dpopJkt = typeof ar.dpop_jkt === 'string' ? ar.dpop_jkt : undefined
  if (proof && dpopJkt !== undefined && proof.jkt !== dpopJkt) {
    throw new OAuthError('invalid_dpop_proof', 'dpop_jkt and the DPoP proof name different keys')
  }
  if (options.dpopRequired && !proof && dpopJkt === undefined) throw new OAuthError('invalid_dpop_proof', 'a DPoP key is required')

  return {
    clientId: ar.client_id,
    codeChallenge: ar.code_challenge,
    credentialConfigurationIds: [...ids],
    ...(ar.redirect_uri !== undefined && { redirectUri: ar.redirect_uri }),
    ...(ar.state !== undefined && { state: ar.state }),
    ...(ar.issuer_state !== undefined && { issuerState: ar.issuer_state }),
    ...(ar.scope !== undefined && { scope: ar.scope }),
    ...(details !== undefined && { authorizationDetails: details }),
    ...((proof?.jkt ?? dpopJkt) !== undefined && { dpopJkt: proof?.jkt ?? dpopJkt }),
    ...(proof !== undefined && { dpop: proof }),
  }
}

/** `authorization_details` (a JSON string in a form body, or already an array). */
function authorizationDetailsOf(value: unknown): CredentialAuthorizationDetail[] {
  let details: unknown = value
  if (typeof value === 'string') {
    try {
      details = JSON.parse(value)
    } catch {
      throw new OAuthError('invalid_authorization_details', 'authorization_details is not JSON')
    }
  }
  if (!Array.isArray(details) || details.length === 0 || details.length > 16) {
    throw new OAuthError('invalid_authorization_details', 'authorization_details must be a non-empty array')
  }
  for (const detail of details as unknown[]) {
    const entry = detail as Partial<CredentialAuthorizationDetail> | null
    if (typeof entry !== 'object' || entry === null || entry.type !== 'openid_credential') {
      throw new OAuthError('invalid_authorization_details', 'authorization_details entries must be of type openid_credential')
    }
    if (typeof entry.credential_configuration_id !== 'string') {
      throw new OAuthError('invalid_authorization_details', 'each authorization_details entry needs a credential_configuration_id')
    }
  }
  return details as CredentialAuthorizationDetail[]
}

async function parsingAsync<T>(parse: () => Promise<T>): Promise<T> {
  try {
    return await parse()
  } catch (err) {
    return parsing('invalid_request', () => {
      throw err
    })
  }
}

/** A new PAR `request_uri` (`urn:ietf:params:oauth:request_uri:` + 32 random bytes) and its reference value. */
export function newRequestUri(): { requestUri: string; reference: string } {
  const reference = randomToken()
  return { requestUri: `${pushedAuthorizationRequestUriPrefix}${reference}`, reference }
}

/** The PAR response body (RFC 9126 §2.2), status 201. */
export function pushedAuthorizationResponse(requestUri: string, expiresInSeconds: number): Record<string, unknown> {
  return server.createPushedAuthorizationResponse({ requestUri, expiresInSeconds }).pushedAuthorizationResponse
}

/** The reference value of a `request_uri` at the authorization endpoint; refuses `invalid_request`. */
export function requestUriReference(requestUri: string): string {
  return parsing('invalid_request', () => parsePushedAuthorizationRequestUriReferenceValue({ uri: requestUri }))
}
