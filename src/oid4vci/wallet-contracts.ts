/**
 * The contracts of the OID4VCI issuer's wallet-facing endpoints (see `operations/contract.ts`): metadata, offer, token,
 * nonce, credential, notification, PAR, authorization and deferred credential — operations of the table (served,
 * in `/openapi.json`), not methods of `didvault/client`. Browser-safe: schemas and types only.
 */
import { defineContract, MOUNT, UNAVAILABLE_ERRORS, NO_STORE_HEADERS } from '../operations/contract.js'
import { OID4VCI_TAG } from './contracts.js'
import {
  metadataParams,
  metadataQuery,
  servedMetadata,
  credentialRequest,
  credentialResponseBody,
  notificationRequest,
  notificationResponse,
  walletEndpointParams,
} from './schemas.js'
import {
  credentialOfferDocument,
  emptyQuery,
  issuerParams,
  nonceRequest,
  nonceResponseBody,
  offerParams,
  tokenRequest,
  tokenResponseBody,
} from './offer-schemas.js'
import {
  authorizationRequest,
  loginReturn,
  pushedAuthorizationRequest,
  pushedAuthorizationResponse,
  redirection,
} from './authorization-code-schemas.js'
import { deferredCredentialRequest } from './deferred-schemas.js'

/** The OAuth error answers of the authorization code flow's endpoints. */
const OAUTH_ERRORS = {
  400: 'An OAuth error body (`invalid_request`, `invalid_scope`, `invalid_authorization_details`, `invalid_dpop_proof`, …)',
  404: 'No such Credential Issuer (an unknown slug), or the service has no `publicUrl` or no issuer module',
  500: 'server_error',
  ...UNAVAILABLE_ERRORS,
} as const

const METADATA_ERRORS = {
  400: 'An OAuth error body `invalid_request`: the path names no valid issuer slug',
  404: 'No such Credential Issuer (an unknown slug), or the service has no `publicUrl`',
  ...UNAVAILABLE_ERRORS,
}

/** Errors of the wallet-facing offer, token and nonce endpoints (OAuth bodies). */
const WALLET_ERRORS = {
  400: 'An OAuth error: `invalid_request`, `invalid_grant`, `invalid_dpop_proof`, `unsupported_grant_type`',
  404: 'No such Credential Issuer (unknown slug, no `publicUrl`, no OID4VCI module), or no such live offer',
  413: 'The body is over the limit',
  500: '`server_error`',
  ...UNAVAILABLE_ERRORS,
}

/**
 * A metadata document of an issuer (public, OAuth errors, in the OpenAPI document, not in the client): served at
 * `/oid4vci/:issuer/.well-known/<wellKnown>` and at the host root's well-known path inserted before the issuer's path.
 */
function metadataContract(summary: string, description: string, wellKnown: string) {
  return defineContract({
    summary,
    description,
    auth: 'public',
    tag: OID4VCI_TAG,
    client: false,
    errorFormat: 'oauth',
    errors: METADATA_ERRORS,
    routes: [
      { method: 'get', path: `/oid4vci/:issuer/.well-known/${wellKnown}` },
      { method: 'get', path: `/.well-known/${wellKnown}${MOUNT}/oid4vci/:issuer`, root: true },
    ],
    params: metadataParams,
    input: metadataQuery,
    response: servedMetadata,
    document: true,
  })
}

export const OID4VCI_WALLET_CONTRACTS = {
  /** Credential Issuer Metadata (OID4VCI 1.0 §12.2), public. */
  getCredentialIssuerMetadata: metadataContract(
    'Get Credential Issuer Metadata',
    'The Credential Issuer Metadata (OID4VCI 1.0 §12.2.4) of the issuer `<publicUrl>/oid4vci/<issuer>`, at the ' +
      'well-known path inserted before the issuer’s path (served at the host root by `createWellKnownRouter`) and appended ' +
      'to it. `application/json`, with `ETag` (304 on `If-None-Match`) and `Cache-Control: public, max-age=60`.',
    'openid-credential-issuer',
  ),
  /** OAuth 2.0 Authorization Server Metadata (RFC 8414) of the issuer's built-in authorization server, public. */
  getAuthorizationServerMetadata: metadataContract(
    'Get Authorization Server Metadata',
    'The RFC 8414 metadata of the issuer’s built-in authorization server (its `issuer` is the Credential Issuer ' +
      'Identifier): token, PAR and authorization endpoints, PKCE S256, DPoP algorithms, anonymous pre-authorized ' +
      'grants. Served like the Credential Issuer Metadata.',
    'oauth-authorization-server',
  ),
  /** The Credential Offer by reference (OID4VCI 1.0 §4.1.3), public. */
  getCredentialOffer: defineContract({
    summary: 'Get a Credential Offer',
    description:
      'The Credential Offer `credential_offer_uri` names, with its pre-authorized code (and how to ask for the PIN). ' +
      '`Cache-Control: no-store`. An expired, redeemed or unknown offer, or one of another issuer: 404.',
    auth: 'public',
    tag: OID4VCI_TAG,
    client: false,
    errorFormat: 'oauth',
    errors: WALLET_ERRORS,
    routes: [{ method: 'get', path: '/oid4vci/:issuer/offers/:offerId' }],
    params: offerParams,
    input: emptyQuery,
    response: credentialOfferDocument,
    responseHeaders: () => NO_STORE_HEADERS,
  }),
  /** The token endpoint (RFC 6749 §3.2, OID4VCI 1.0 §6), public (anonymous pre-authorized access). */
  redeemToken: defineContract({
    summary: 'Token endpoint',
    description:
      'The pre-authorized code grant (`urn:ietf:params:oauth:grant-type:pre-authorized_code`, `pre-authorized_code`, ' +
      '`tx_code` or `user_pin`) → an access token, DPoP-bound (`token_type: DPoP`) when the request carries a DPoP proof ' +
      '(RFC 9449; required when a configuration says `dpopRequired`), else `bearer`; `authorization_details` name the ' +
      'credential identifiers (the configuration ids). The authorization code grant (PKCE) too. A grant covering a ' +
      'deferred configuration also gets a `refresh_token` (single use, rotated, DPoP-bound with the token, good for the ' +
      'module’s `deferredTtlSeconds`): `grant_type=refresh_token` answers a new access token of the same grant. Codes and ' +
      'refresh tokens are single use across processes. Form body; OAuth errors.',
    auth: 'public',
    tag: OID4VCI_TAG,
    client: false,
    errorFormat: 'oauth',
    errors: WALLET_ERRORS,
    bodyTypes: ['application/x-www-form-urlencoded'],
    routes: [{ method: 'post', path: '/oid4vci/:issuer/token' }],
    params: issuerParams,
    input: tokenRequest,
    response: tokenResponseBody,
    responseHeaders: () => NO_STORE_HEADERS,
  }),
  /** The nonce endpoint (OID4VCI 1.0 §7), public. */
  getNonce: defineContract({
    summary: 'Nonce endpoint',
    description: 'A fresh `c_nonce` for key proofs: single use, live for the module’s `nonceTtlSeconds`. `Cache-Control: no-store`.',
    auth: 'public',
    tag: OID4VCI_TAG,
    client: false,
    errorFormat: 'oauth',
    errors: WALLET_ERRORS,
    bodyTypes: ['application/json', 'application/x-www-form-urlencoded'],
    routes: [{ method: 'post', path: '/oid4vci/:issuer/nonce' }],
    params: issuerParams,
    input: nonceRequest,
    response: nonceResponseBody,
    responseHeaders: () => NO_STORE_HEADERS,
  }),
  /** The Credential Endpoint (OID4VCI 1.0 §8). */
  requestCredential: defineContract({
    summary: 'Credential Request',
    description:
      'The Credential Endpoint: with the access token (DPoP-bound: `Authorization: DPoP` and a `DPoP` proof; else Bearer), ' +
      'a configuration the token grants and one key proof per credential (`proofs.jwt`, each with a fresh `c_nonce`, ' +
      '`aud` the Credential Issuer; draft 15’s `proof` too) → one credential per key, bound to it, signed by the ' +
      'configuration’s issuing DID, stored as a credential record of the tenant and audited `credential.issue`; and a ' +
      '`notification_id`. Errors are OAuth error bodies (`invalid_proof`, `invalid_nonce` with a fresh `c_nonce`, ' +
      '`invalid_credential_request`, `unknown_credential_configuration`, `invalid_token`).',
    auth: 'oid4vci-access',
    tag: OID4VCI_TAG,
    client: false,
    errorFormat: 'oauth',
    audit: { action: 'credential.issue', target: 'credential' },
    errors: {
      400: 'invalid_credential_request, unknown_credential_configuration, invalid_proof, invalid_nonce (with `c_nonce`)',
      401: 'invalid_token, invalid_dpop_proof (with `WWW-Authenticate`)',
      404: 'No such Credential Issuer, or the service has no `publicUrl`',
      413: 'The body is over the limit',
      500: 'server_error',
      ...UNAVAILABLE_ERRORS,
    },
    routes: [{ method: 'post', path: '/oid4vci/:issuer/credential' }],
    params: walletEndpointParams,
    input: credentialRequest,
    response: credentialResponseBody,
    responseHeaders: () => ({ 'Cache-Control': 'no-store' }),
    // helper "deferred": a configuration marked `deferred` answers 202 with `transaction_id` and `interval`.
    acceptedWhen: (result) => typeof result.transaction_id === 'string',
  }),
  /** The Notification Endpoint (OID4VCI 1.0 §11). */
  sendCredentialNotification: defineContract({
    summary: 'Notification Request',
    description:
      'The wallet tells the issuer what became of credentials it received (`credential_accepted`, `credential_failure`, ' +
      '`credential_deleted`) by the `notification_id` of the credential response, with the same access token: recorded ' +
      'in the tenant’s audit trail (`credential.notification`) → 204.',
    auth: 'oid4vci-access',
    tag: OID4VCI_TAG,
    client: false,
    errorFormat: 'oauth',
    audit: { action: 'credential.notification', target: 'credential' },
    errors: {
      400: 'invalid_notification_id (unknown, expired or of another token), invalid_notification_request',
      401: 'invalid_token, invalid_dpop_proof (with `WWW-Authenticate`)',
      404: 'No such Credential Issuer, or the service has no `publicUrl`',
      500: 'server_error',
      ...UNAVAILABLE_ERRORS,
    },
    routes: [{ method: 'post', path: '/oid4vci/:issuer/notification' }],
    params: walletEndpointParams,
    input: notificationRequest,
    response: notificationResponse,
    noContent: true,
  }),
  /** Pushed Authorization Request (RFC 9126), public (`POST /oid4vci/:issuer/par`, form). */
  pushAuthorizationRequest: defineContract({
    summary: 'Push an Authorization Request',
    description:
      'RFC 9126 pushed authorization request of the authorization code flow: `response_type=code`, `client_id`, ' +
      '`redirect_uri`, PKCE `code_challenge` (S256), `authorization_details` (`openid_credential`) or `scope`, optional ' +
      '`issuer_state`, `state`, DPoP key (`DPoP` header or `dpop_jkt`). Answers 201 `{ request_uri, expires_in }`; the ' +
      '`request_uri` is good once, at the authorization endpoint. Refused when the issuer has no way to authenticate ' +
      'users (`unsupported_response_type`).',
    auth: 'public',
    tag: OID4VCI_TAG,
    client: false,
    errorFormat: 'oauth',
    bodyTypes: ['application/x-www-form-urlencoded'],
    successStatus: 201,
    responseHeaders: () => ({ 'Cache-Control': 'no-store' }),
    errors: { ...OAUTH_ERRORS, 413: 'The body is over the limit' },
    routes: [{ method: 'post', path: '/oid4vci/:issuer/par' }],
    params: issuerParams,
    input: pushedAuthorizationRequest,
    response: pushedAuthorizationResponse,
  }),
  /** Authorization endpoint (RFC 6749 §4.1.1 with PAR), public; answers 302. */
  authorizeCredentialRequest: defineContract({
    summary: 'Authorize (authorization endpoint)',
    description:
      'The browser arrives with `client_id` and a pushed `request_uri`. The user is authenticated by the embedding ' +
      'application: the `authorize` hook of the module, or the operator’s `loginUrl` (302 there with `request`, `issuer`, ' +
      '`credential_configuration_ids`). Then 302 to the wallet’s `redirect_uri` with `code`, `state` and `iss` (RFC 9207), ' +
      'or `error=access_denied`. An unknown, used or expired `request_uri`, or another `client_id`: 400, not redirected.',
    auth: 'public',
    tag: OID4VCI_TAG,
    client: false,
    errorFormat: 'oauth',
    redirect: true,
    errors: OAUTH_ERRORS,
    routes: [{ method: 'get', path: '/oid4vci/:issuer/authorize' }],
    params: issuerParams,
    input: authorizationRequest,
    response: redirection,
  }),
  /** The return from the operator's login page (`serve`): a signed login assertion; answers 302. */
  returnFromLogin: defineContract({
    summary: 'Return from the login page',
    description:
      'The operator’s login page sends the browser here with `assertion`: a JWS (ES256 or EdDSA) by a key of ' +
      '`loginAssertionKeys` with `aud` = the Credential Issuer Identifier, `request` (the handle it was given), `jti` ' +
      '(single use), `exp` at most 5 minutes ahead, and `sub` + `claims` (by configuration id) or `refused`. Then 302 ' +
      'to the wallet’s `redirect_uri` with a code or `error=access_denied`. A forged, expired, replayed or foreign ' +
      'assertion: 400, not redirected (docs/oid4vci.md).',
    auth: 'public',
    tag: OID4VCI_TAG,
    client: false,
    errorFormat: 'oauth',
    redirect: true,
    errors: OAUTH_ERRORS,
    routes: [{ method: 'get', path: '/oid4vci/:issuer/authorize/return' }],
    params: issuerParams,
    input: loginReturn,
    response: redirection,
  }),
  /** The Deferred Credential Endpoint (OID4VCI 1.0 §9). */
  requestDeferredCredential: defineContract({
    summary: 'Deferred Credential Request',
    description:
      'With an access token of the same grant (issuer, offer or subject, DPoP key) as the deferred request, ' +
      '`{ transaction_id }` → 202 `{ transaction_id, interval }` while the issuing backend has not completed it; then ' +
      '200 `{ credentials }` once (a later request: `invalid_transaction_id`; no `notification_id`: wallets on ' +
      '@openid4vc/openid4vci 0.4.6 refuse one there). Refused by the backend: ' +
      '`credential_request_denied`. Unknown, expired or another grant’s: `invalid_transaction_id`.',
    auth: 'oid4vci-access',
    tag: OID4VCI_TAG,
    client: false,
    errorFormat: 'oauth',
    audit: { action: 'credential.issue', target: 'credential' },
    errors: {
      400: 'invalid_transaction_id, credential_request_denied, invalid_credential_request',
      401: 'invalid_token, invalid_dpop_proof (with `WWW-Authenticate`)',
      404: 'No such Credential Issuer, or the service has no `publicUrl`',
      413: 'The body is over the limit',
      500: 'server_error',
      ...UNAVAILABLE_ERRORS,
    },
    routes: [{ method: 'post', path: '/oid4vci/:issuer/deferred-credential' }],
    params: walletEndpointParams,
    input: deferredCredentialRequest,
    response: credentialResponseBody,
    responseHeaders: () => ({ 'Cache-Control': 'no-store' }),
    acceptedWhen: (result) => typeof result.transaction_id === 'string',
  }),
}
