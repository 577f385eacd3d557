/**
 * The contracts of the OID4VCI issuer's operations (see `operations/contract.ts`): the issuing backend's credential
 * configurations, and the metadata wallets read. Browser-safe: schemas and types only.
 */
import type { z } from 'zod'
import { BODY_ERRORS, defineContract, MOUNT, QUERY_ERRORS, UNAVAILABLE_ERRORS } from '../operations/contract.js'
import {
  configurationParams,
  createCredentialConfiguration,
  credentialConfigurationResponse,
  credentialConfigurationsResponse,
  deleteCredentialConfiguration,
  deletedConfigurationResponse,
  getCredentialConfigurations,
  metadataParams,
  metadataQuery,
  servedMetadata,
  updateCredentialConfiguration,
  credentialRequest,
  credentialResponseBody,
  notificationRequest,
  notificationResponse,
  walletEndpointParams,
} from './schemas.js'
import {
  createCredentialOffer,
  credentialOfferDocument,
  credentialOfferResponse,
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
import {
  completeDeferredCredential,
  completeDeferredCredentialResponse,
  deferredCredentialRequest,
  deferredCredentialsResponse,
  deferredParams,
  getDeferredCredentials,
} from './deferred-schemas.js'

const TAG = 'Credential issuance (OID4VCI)'

/** The OAuth error answers of the authorization code flow's endpoints. */
const OAUTH_ERRORS = {
  400: 'An OAuth error body (`invalid_request`, `invalid_scope`, `invalid_authorization_details`, `invalid_dpop_proof`, …)',
  404: 'No such Credential Issuer (an unknown slug), or the service has no `publicUrl` or no issuer module',
  500: 'server_error',
  ...UNAVAILABLE_ERRORS,
} as const

const CONFIGURATION_RULES =
  '`issuingDid` must be a wallet of the tenant whose control the caller proves in `x-did-auth` and whose key signs ' +
  'the format (for `ldp_vc`, the Data Integrity suite `credentialSigningAlg` names). The tenant’s first configuration ' +
  'claims its issuer slug (`issuer`): unique across tenants, one per tenant (422 CONFLICT otherwise). Without ' +
  '`publicUrl` the service issues nothing: 422 naming it.'

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

const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' }

const EXAMPLE: z.input<typeof createCredentialConfiguration> = {
  id: 'IdentityCredential',
  issuer: 'acme',
  format: 'dc+sd-jwt',
  vct: 'https://credentials.example.com/identity',
  issuingDid: 'did:ethr:0x3f1B2a7e8e1a0bB0f0A4dC2c6F1d6d2B8A9E4c51',
  display: [{ name: 'Identity', locale: 'en' }],
  claims: [{ path: ['given_name'], display: [{ name: 'Given name', locale: 'en' }] }],
}

export const OID4VCI_CONTRACTS = {
  /** Create a Credential Configuration (`POST /oid4vci/configurations`). */
  createCredentialConfiguration: defineContract({
    summary: 'Create a Credential Configuration',
    description:
      'A credential the tenant’s OID4VCI Credential Issuer offers wallets: id, format, `vct` or `types`, the issuing DID, ' +
      'key-proof algorithms, display and claim metadata, batch size, deferral, DPoP, status. ' +
      CONFIGURATION_RULES,
    auth: 'tenant+did',
    tag: TAG,
    audit: { action: 'credentialConfiguration.create', target: 'credentialConfiguration', targetField: 'id' },
    errors: BODY_ERRORS,
    routes: [{ method: 'post', path: '/oid4vci/configurations' }],
    input: createCredentialConfiguration,
    response: credentialConfigurationResponse,
    example: EXAMPLE,
  }),
  /** Replace a Credential Configuration (`PUT /oid4vci/configurations/:configurationId`). */
  updateCredentialConfiguration: defineContract({
    summary: 'Replace a Credential Configuration',
    description:
      'Replaces every field of the configuration but its id (what the body leaves out is removed or back to its default). ' +
      `The caller proves control of the DID it signs with now and of the new \`issuingDid\`. ${CONFIGURATION_RULES}`,
    auth: 'tenant+did',
    tag: TAG,
    audit: { action: 'credentialConfiguration.update', target: 'credentialConfiguration', targetField: 'configurationId' },
    errors: BODY_ERRORS,
    routes: [{ method: 'put', path: '/oid4vci/configurations/:configurationId' }],
    params: configurationParams,
    input: updateCredentialConfiguration,
    response: credentialConfigurationResponse,
  }),
  /** List the Credential Configurations (`GET /oid4vci/configurations`). */
  getCredentialConfigurations: defineContract({
    summary: 'Get Credential Configurations',
    description: 'The tenant’s issuer slug (once claimed) and its credential configurations, oldest first.',
    auth: 'tenant',
    tag: TAG,
    errors: QUERY_ERRORS,
    routes: [{ method: 'get', path: '/oid4vci/configurations' }],
    input: getCredentialConfigurations,
    response: credentialConfigurationsResponse,
  }),
  /** Delete a Credential Configuration (`DELETE /oid4vci/configurations/:configurationId`). */
  deleteCredentialConfiguration: defineContract({
    summary: 'Delete a Credential Configuration',
    description:
      'Removes the configuration from the issuer’s metadata (offers naming it can no longer be redeemed). The caller ' +
      'proves control of its issuing DID. The tenant keeps its issuer slug.',
    auth: 'tenant+did',
    tag: TAG,
    audit: { action: 'credentialConfiguration.delete', target: 'credentialConfiguration', targetField: 'configurationId' },
    errors: BODY_ERRORS,
    routes: [{ method: 'delete', path: '/oid4vci/configurations/:configurationId' }],
    params: configurationParams,
    input: deleteCredentialConfiguration,
    response: deletedConfigurationResponse,
  }),
  /** Credential Issuer Metadata (OID4VCI 1.0 §12.2), public. */
  getCredentialIssuerMetadata: defineContract({
    summary: 'Get Credential Issuer Metadata',
    description:
      'The Credential Issuer Metadata (OID4VCI 1.0 §12.2.4) of the issuer `<publicUrl>/oid4vci/<issuer>`, at the ' +
      'well-known path inserted before the issuer’s path (served at the host root by `createWellKnownRouter`) and appended ' +
      'to it. `application/json`, with `ETag` (304 on `If-None-Match`) and `Cache-Control: public, max-age=60`.',
    auth: 'public',
    tag: TAG,
    client: false,
    errorFormat: 'oauth',
    errors: METADATA_ERRORS,
    routes: [
      { method: 'get', path: '/oid4vci/:issuer/.well-known/openid-credential-issuer' },
      { method: 'get', path: `/.well-known/openid-credential-issuer${MOUNT}/oid4vci/:issuer`, root: true },
    ],
    params: metadataParams,
    input: metadataQuery,
    response: servedMetadata,
    document: true,
  }),
  /** OAuth 2.0 Authorization Server Metadata (RFC 8414) of the issuer's built-in authorization server, public. */
  getAuthorizationServerMetadata: defineContract({
    summary: 'Get Authorization Server Metadata',
    description:
      'The RFC 8414 metadata of the issuer’s built-in authorization server (its `issuer` is the Credential Issuer ' +
      'Identifier): token, PAR and authorization endpoints, PKCE S256, DPoP algorithms, anonymous pre-authorized ' +
      'grants. Served like the Credential Issuer Metadata.',
    auth: 'public',
    tag: TAG,
    client: false,
    errorFormat: 'oauth',
    errors: METADATA_ERRORS,
    routes: [
      { method: 'get', path: '/oid4vci/:issuer/.well-known/oauth-authorization-server' },
      { method: 'get', path: `/.well-known/oauth-authorization-server${MOUNT}/oid4vci/:issuer`, root: true },
    ],
    params: metadataParams,
    input: metadataQuery,
    response: servedMetadata,
    document: true,
  }),
  // ---- helper "offer-token": offers, the token endpoint (pre-authorized code), the nonce endpoint
  /** Make a Credential Offer (`POST /oid4vci/offers`). */
  createCredentialOffer: defineContract({
    summary: 'Create a Credential Offer',
    description:
      'An offer of the tenant’s credential configurations (each with the claims of its credential) for a wallet to redeem ' +
      'with the pre-authorized code grant: `offerUri` (`openid-credential-offer://…`, also as an SVG QR code) names ' +
      '`credentialOfferUri`, where the wallet fetches the offer. With `txCode` the service draws a PIN, returns it once ' +
      'and keeps only a keyed hash; after the module’s `txCodeAttempts` wrong PINs the offer is dead. The caller proves ' +
      'control of each configuration’s issuing DID. Without `publicUrl` or the OID4VCI module: 422 naming it.',
    auth: 'tenant+did',
    tag: TAG,
    audit: { action: 'credentialOffer.create', target: 'credentialOffer' },
    errors: BODY_ERRORS,
    routes: [{ method: 'post', path: '/oid4vci/offers' }],
    input: createCredentialOffer,
    response: credentialOfferResponse,
    example: { configurations: [{ id: 'IdentityCredential', claims: { given_name: 'Erika' } }], txCode: true },
  }),
  /** The Credential Offer by reference (OID4VCI 1.0 §4.1.3), public. */
  getCredentialOffer: defineContract({
    summary: 'Get a Credential Offer',
    description:
      'The Credential Offer `credential_offer_uri` names, with its pre-authorized code (and how to ask for the PIN). ' +
      '`Cache-Control: no-store`. An expired, redeemed or unknown offer, or one of another issuer: 404.',
    auth: 'public',
    tag: TAG,
    client: false,
    errorFormat: 'oauth',
    errors: WALLET_ERRORS,
    routes: [{ method: 'get', path: '/oid4vci/:issuer/offers/:offerId' }],
    params: offerParams,
    input: emptyQuery,
    response: credentialOfferDocument,
    responseHeaders: () => NO_STORE,
  }),
  /** The token endpoint (RFC 6749 §3.2, OID4VCI 1.0 §6), public (anonymous pre-authorized access). */
  redeemToken: defineContract({
    summary: 'Token endpoint',
    description:
      'The pre-authorized code grant (`urn:ietf:params:oauth:grant-type:pre-authorized_code`, `pre-authorized_code`, ' +
      '`tx_code` or `user_pin`) → an access token, DPoP-bound (`token_type: DPoP`) when the request carries a DPoP proof ' +
      '(RFC 9449; required when a configuration says `dpopRequired`), else `bearer`; `authorization_details` name the ' +
      'credential identifiers (the configuration ids). Codes are single use across processes. Form body; OAuth errors.',
    auth: 'public',
    tag: TAG,
    client: false,
    errorFormat: 'oauth',
    errors: WALLET_ERRORS,
    bodyTypes: ['application/x-www-form-urlencoded'],
    routes: [{ method: 'post', path: '/oid4vci/:issuer/token' }],
    params: issuerParams,
    input: tokenRequest,
    response: tokenResponseBody,
    responseHeaders: () => NO_STORE,
  }),
  /** The nonce endpoint (OID4VCI 1.0 §7), public. */
  getNonce: defineContract({
    summary: 'Nonce endpoint',
    description: 'A fresh `c_nonce` for key proofs: single use, live for the module’s `nonceTtlSeconds`. `Cache-Control: no-store`.',
    auth: 'public',
    tag: TAG,
    client: false,
    errorFormat: 'oauth',
    errors: WALLET_ERRORS,
    bodyTypes: ['application/json', 'application/x-www-form-urlencoded'],
    routes: [{ method: 'post', path: '/oid4vci/:issuer/nonce' }],
    params: issuerParams,
    input: nonceRequest,
    response: nonceResponseBody,
    responseHeaders: () => NO_STORE,
  }),
  // ---- helper "credential": the credential and notification endpoints
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
    tag: TAG,
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
    tag: TAG,
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
  // authcode: the authorization code flow (PAR, authorization endpoint, the login page's return).
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
    tag: TAG,
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
    tag: TAG,
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
    tag: TAG,
    client: false,
    errorFormat: 'oauth',
    redirect: true,
    errors: OAUTH_ERRORS,
    routes: [{ method: 'get', path: '/oid4vci/:issuer/authorize/return' }],
    params: issuerParams,
    input: loginReturn,
    response: redirection,
  }),
  // ---- helper "deferred": deferred issuance (OID4VCI 1.0 §9)
  /** The tenant's deferred issuances (`GET /oid4vci/deferred`). */
  getDeferredCredentials: defineContract({
    summary: 'Get deferred credential issuances',
    description:
      'The credential requests of configurations marked `deferred` that wait for the issuing backend (default ' +
      '`state: pending`), oldest first: each with its `reference` (what `completeDeferredCredential` takes; not the ' +
      'wallet’s `transaction_id`, which the service does not keep), configuration, offer, holder key thumbprints and ' +
      'the grant’s claims.',
    auth: 'tenant',
    tag: TAG,
    errors: QUERY_ERRORS,
    routes: [{ method: 'get', path: '/oid4vci/deferred' }],
    input: getDeferredCredentials,
    response: deferredCredentialsResponse,
  }),
  /** Complete a deferred issuance (`POST /oid4vci/deferred/:reference`). */
  completeDeferredCredential: defineContract({
    summary: 'Complete a deferred credential issuance',
    description:
      'Issues the credentials of a pending deferred issuance now — one per holder key, signed by the configuration’s ' +
      'issuing DID with the grant’s claims or `claims`, stored and audited `credential.issue` — for the wallet’s next ' +
      'poll of the deferred credential endpoint; or refuses it (`refuse`: the wallet is told ' +
      '`credential_request_denied`; audited `credential.refuse`). The caller proves control of the issuing DID. ' +
      'An unknown or expired reference (another tenant’s included): 422 NOT_FOUND; one completed already: 422 CONFLICT.',
    auth: 'tenant+did',
    tag: TAG,
    audit: { action: 'credential.issue', target: 'deferredCredential', targetField: 'reference' },
    errors: BODY_ERRORS,
    routes: [{ method: 'post', path: '/oid4vci/deferred/:reference' }],
    params: deferredParams,
    input: completeDeferredCredential,
    response: completeDeferredCredentialResponse,
    example: { claims: { given_name: 'Erika' } },
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
    tag: TAG,
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
