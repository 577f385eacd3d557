/**
 * The contracts of the OID4VP verifier's operations the relying party calls (see `operations/contract.ts`):
 * presentation requests and their results — what `didvault/client` carries. The endpoints wallets call are in
 * `wallet-contracts.ts`. Browser-safe: schemas and types only.
 */
import { BODY_ERRORS, defineContract, QUERY_ERRORS } from '../operations/contract.js'
import { createPresentationRequest, presentationRequestResponse, presentationResult, resultParams, resultQuery } from './schemas.js'

/** The OpenAPI tag of the module's operations (the wallet-facing ones too). */
export const OID4VP_TAG = 'Presentation requests (OID4VP)'

export const OID4VP_CONTRACTS = {
  /** Make a presentation request (`POST /oid4vp/requests`). */
  createPresentationRequest: defineContract({
    summary: 'Create a presentation request',
    description:
      'Asks a wallet, over OpenID for Verifiable Presentations 1.0, for the credentials a DCQL query describes. The verifier ' +
      'is named by its client identifier prefix: `decentralized_identifier` (a DID of the tenant whose control the caller ' +
      'proves in `x-did-auth`; the Request Object is signed by its key), `redirect_uri` (unsigned), `x509_san_dns` / ' +
      '`x509_hash` (the operator’s certificate, the module’s `x509` option). The service makes the nonce and `state` and ' +
      'signs the Request Object once. `authorizationRequest.uri` (also as an SVG QR code) is what the wallet opens. ' +
      'Without `publicUrl` (https) or the OID4VP module: 422 naming it.',
    auth: 'tenant',
    tag: OID4VP_TAG,
    audit: { action: 'presentationRequest.create', target: 'presentationRequest' },
    errors: BODY_ERRORS,
    routes: [{ method: 'post', path: '/oid4vp/requests' }],
    input: createPresentationRequest,
    response: presentationRequestResponse,
    example: {
      dcqlQuery: {
        credentials: [
          {
            id: 'pid',
            format: 'dc+sd-jwt',
            meta: { vct_values: ['https://credentials.example.com/identity'] },
            claims: [{ path: ['given_name'] }],
          },
        ],
      },
      clientId: { prefix: 'decentralized_identifier', did: 'did:web:verifier.example.com' },
    },
  }),
  /** Read a presentation request's result (`GET /oid4vp/requests/:id`). */
  getPresentationResult: defineContract({
    summary: 'Get a presentation result',
    description:
      '`pending` until a wallet answered; then `fulfilled` (per DCQL credential query: the verified claims, issuer, holder ' +
      'key and every named check) or `failed` (why). Kept until the module’s `resultTtlSeconds` after creation. A request ' +
      'of another tenant, or deleted: 422 NOT_FOUND. Same-device requests (made with `redirectUri`) show an answered ' +
      'outcome only with the `response_code` the wallet’s redirect carried, once: otherwise 403 FORBIDDEN.',
    auth: 'tenant',
    audit: { action: 'presentationResult.read', target: 'presentationRequest' },
    tag: OID4VP_TAG,
    errors: QUERY_ERRORS,
    routes: [{ method: 'get', path: '/oid4vp/requests/:id' }],
    params: resultParams,
    input: resultQuery,
    response: presentationResult,
  }),
}
