/**
 * The contracts of the OID4VCI issuer's operations the issuing backend calls (see `operations/contract.ts`): credential
 * configurations, offers, deferred issuances — what `didvault/client` carries. The endpoints wallets call are in
 * `wallet-contracts.ts`. Browser-safe: schemas and types only.
 */
import type { z } from 'zod'
import { BODY_ERRORS, defineContract, QUERY_ERRORS } from '../operations/contract.js'
import {
  configurationParams,
  createCredentialConfiguration,
  credentialConfigurationResponse,
  credentialConfigurationsResponse,
  deleteCredentialConfiguration,
  deletedConfigurationResponse,
  getCredentialConfigurations,
  updateCredentialConfiguration,
} from './schemas.js'
import { createCredentialOffer, credentialOfferResponse } from './offer-schemas.js'
import {
  completeDeferredCredential,
  completeDeferredCredentialResponse,
  deferredCredentialsResponse,
  deferredParams,
  getDeferredCredentials,
} from './deferred-schemas.js'

/** The OpenAPI tag of the module's operations (the wallet-facing ones too). */
export const OID4VCI_TAG = 'Credential issuance (OID4VCI)'

const CONFIGURATION_RULES =
  '`issuingDid` must be a wallet of the tenant whose control the caller proves in `x-did-auth` and whose key signs ' +
  'the format (for `ldp_vc`, the Data Integrity suite `credentialSigningAlg` names). The tenant’s first configuration ' +
  'claims its issuer slug (`issuer`): unique across tenants, one per tenant (422 CONFLICT otherwise). Without ' +
  '`publicUrl` the service issues nothing: 422 naming it.'

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
    tag: OID4VCI_TAG,
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
    tag: OID4VCI_TAG,
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
    tag: OID4VCI_TAG,
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
    tag: OID4VCI_TAG,
    audit: { action: 'credentialConfiguration.delete', target: 'credentialConfiguration', targetField: 'configurationId' },
    errors: BODY_ERRORS,
    routes: [{ method: 'delete', path: '/oid4vci/configurations/:configurationId' }],
    params: configurationParams,
    input: deleteCredentialConfiguration,
    response: deletedConfigurationResponse,
  }),
  // ---- helper "offer-token": offers, the token endpoint (pre-authorized code), the nonce endpoint
  /** Make a Credential Offer (`POST /oid4vci/offers`). */
  createCredentialOffer: defineContract({
    summary: 'Create a Credential Offer',
    description:
      'An offer of the tenant’s credential configurations (each with the claims of its credential) for a wallet to redeem ' +
      'with the pre-authorized code grant: `offerUri` (`openid-credential-offer://…`, also as an SVG QR code) names ' +
      '`credentialOfferUri`, where the wallet fetches the offer. With `txCode` the service draws a PIN, returns it once ' +
      'and keeps only a keyed hash; after the module’s `txCodeAttempts` wrong PINs the offer is dead. With `grants` ' +
      'including `authorization_code` the offer also carries an `issuer_state`: an authorization request (PAR) carrying ' +
      'it is bound to the offer (its configurations and claims). Either grant redeems the offer, once. The caller proves ' +
      'control of each configuration’s issuing DID. Without `publicUrl` or the OID4VCI module: 422 naming it.',
    auth: 'tenant+did',
    tag: OID4VCI_TAG,
    audit: { action: 'credentialOffer.create', target: 'credentialOffer' },
    errors: BODY_ERRORS,
    routes: [{ method: 'post', path: '/oid4vci/offers' }],
    input: createCredentialOffer,
    response: credentialOfferResponse,
    example: { configurations: [{ id: 'IdentityCredential', claims: { given_name: 'Erika' } }], txCode: true },
  }),
  // ---- helper "credential": the credential and notification endpoints
  // authcode: the authorization code flow (PAR, authorization endpoint, the login page's return).
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
    tag: OID4VCI_TAG,
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
    tag: OID4VCI_TAG,
    audit: { action: 'credential.issue', target: 'deferredCredential', targetField: 'reference' },
    errors: BODY_ERRORS,
    routes: [{ method: 'post', path: '/oid4vci/deferred/:reference' }],
    params: deferredParams,
    input: completeDeferredCredential,
    response: completeDeferredCredentialResponse,
    example: { claims: { given_name: 'Erika' } },
  }),
}
