/**
 * The contracts of the OID4VP verifier's wallet-facing endpoints (see `operations/contract.ts`): the request object
 * (`request_uri`, GET and POST), the response endpoint and the https authorization link — operations of the table,
 * not methods of `didvault/client`. Browser-safe: schemas and types only.
 */
import * as z from 'zod'
import { defineContract, UNAVAILABLE_ERRORS, NO_STORE_HEADERS } from '../operations/contract.js'
import { OID4VP_TAG } from './contracts.js'
import { presentationResponseAnswer, presentationResponseForm, responseParams } from './response-schemas.js'
import {
  authorizeLinkQuery,
  authorizeLinkRedirect,
  requestObjectParams,
  requestObjectPost,
  requestObjectQuery,
  servedRequestObject,
} from './schemas.js'

const OAUTH_BODY = z.object({ error: z.string(), error_description: z.string().optional() })

/** Errors of the `request_uri` endpoint (OAuth bodies). */
const REQUEST_OBJECT_ERRORS = {
  400: {
    description:
      '`invalid_request`: the request expired or was answered, a second `request_uri_method=post` fetch, or ' +
      '`wallet_metadata` the request cannot meet',
    schema: OAUTH_BODY,
  },
  404: { description: '`invalid_request`: no such request (or the service has no `publicUrl` or OID4VP module)', schema: OAUTH_BODY },
  413: { description: 'The body is over the limit', schema: OAUTH_BODY },
  500: { description: '`server_error`', schema: OAUTH_BODY },
  ...UNAVAILABLE_ERRORS,
}

export const OID4VP_WALLET_CONTRACTS = {
  /** The `request_uri` (GET): the signed Request Object. */
  getRequestObject: defineContract({
    summary: 'Get a Request Object',
    description:
      'The request’s Request Object (RFC 9101, `typ: oauth-authz-req+jwt`) as signed at creation, ' +
      '`application/oauth-authz-req+jwt`. OAuth errors: unknown 404; expired or answered 400 `invalid_request`.',
    auth: 'public',
    tag: OID4VP_TAG,
    client: false,
    errorFormat: 'oauth',
    errors: REQUEST_OBJECT_ERRORS,
    routes: [{ method: 'get', path: '/oid4vp/request-objects/:id' }],
    params: requestObjectParams,
    input: requestObjectQuery,
    response: servedRequestObject,
    document: true,
  }),
  /** The `request_uri` (POST, `request_uri_method=post`): the Request Object signed again with the `wallet_nonce`. */
  postRequestObject: defineContract({
    summary: 'Post to a Request Object',
    description:
      '`request_uri_method=post` (OID4VP 1.0 §5.10): form fields `wallet_metadata` (JSON) and `wallet_nonce`; the ' +
      'Request Object signed now with `wallet_nonce` in it, once per request (later POSTs 400 `invalid_request`). A ' +
      'wallet whose `request_object_signing_alg_values_supported` lacks the request’s algorithm: 400 naming it.',
    auth: 'public',
    tag: OID4VP_TAG,
    client: false,
    errorFormat: 'oauth',
    errors: REQUEST_OBJECT_ERRORS,
    bodyTypes: ['application/x-www-form-urlencoded'],
    routes: [{ method: 'post', path: '/oid4vp/request-objects/:id' }],
    params: requestObjectParams,
    input: requestObjectPost,
    response: servedRequestObject,
    document: true,
  }),
  /** The `response_uri` of a presentation request (OID4VP 1.0 §8.2 `direct_post`, §8.3 `direct_post.jwt`), public. */
  submitPresentationResponse: defineContract({
    summary: 'Response endpoint (response_uri)',
    description:
      'Where a wallet posts its Authorization Response to one presentation request: form fields `vp_token` (a JSON ' +
      'object: DCQL credential query id → presentations) and `state` (`direct_post`), or `response`, a JWE to the ' +
      'request’s ephemeral key (ECDH-ES; `direct_post.jwt`), or the wallet’s `error` / `error_description` and `state`. ' +
      'Bounded (the module’s `maxResponseBytes`, `maxPresentations`, `limits.depth`) before any JSON is parsed or ' +
      'anything verified. The first valid response wins across processes; a later one is 400 `invalid_request` and ' +
      'changes nothing. Answers `{}`, or for a request with a `redirectUri` (same-device) `{ redirect_uri }` carrying a ' +
      'one-time `response_code`. `Cache-Control: no-store`; OAuth error bodies.',
    auth: 'public',
    tag: OID4VP_TAG,
    client: false,
    errorFormat: 'oauth',
    errors: {
      400:
        'An OAuth error `invalid_request`: an expired or answered request, a malformed or oversized response, a JWE ' +
        'not to this request’s key, another `state`, a plain `vp_token` where an encrypted response is required',
      404: 'No such presentation request (unknown id), or the service has no `publicUrl` or no OID4VP module',
      413: 'The body is over the router’s limit',
      500: '`server_error`',
      ...UNAVAILABLE_ERRORS,
    },
    bodyTypes: ['application/x-www-form-urlencoded'],
    routes: [{ method: 'post', path: '/oid4vp/responses/:id' }],
    params: responseParams,
    input: presentationResponseForm,
    response: presentationResponseAnswer,
    responseHeaders: () => NO_STORE_HEADERS,
  }),
  /** The https form of an authorization request: 302 to the same parameters under `openid4vp://`. */
  openAuthorizationRequest: defineContract({
    summary: 'Open an authorization request (https link)',
    description:
      'The `authorizationRequest.https` link of `createPresentationRequest`: a browser that opens it is sent (302) to ' +
      '`openid4vp://?client_id=…&request_uri=…`, where the wallet takes over. Only this verifier’s own request URIs are ' +
      'passed on (another: 400 `invalid_request`, not redirected).',
    auth: 'public',
    tag: OID4VP_TAG,
    client: false,
    errorFormat: 'oauth',
    redirect: true,
    errors: {
      400: { description: '`invalid_request`: not a request URI of this verifier', schema: OAUTH_BODY },
      404: { description: 'The service has no `publicUrl` or no OID4VP module', schema: OAUTH_BODY },
      500: { description: '`server_error`', schema: OAUTH_BODY },
      ...UNAVAILABLE_ERRORS,
    },
    routes: [{ method: 'get', path: '/oid4vp/authorize' }],
    input: authorizeLinkQuery,
    response: authorizeLinkRedirect,
  }),
}
