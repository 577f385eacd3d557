/**
 * The contracts of the OID4VP verifier's operations (see `operations/contract.ts`). Browser-safe: schemas and types
 * only. Each helper's contracts sit in their own block.
 */
import { defineContract, UNAVAILABLE_ERRORS } from '../operations/contract.js'
import { presentationResponseAnswer, presentationResponseForm, responseParams } from './response-schemas.js'

const TAG = 'Presentation requests (OID4VP)'

/** Headers of the wallet-facing answers: never cached. */
const NO_STORE: Readonly<Record<string, string>> = { 'Cache-Control': 'no-store', Pragma: 'no-cache' }

export const OID4VP_CONTRACTS = {
  // ---- helper "vp-response": the response endpoint
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
    tag: TAG,
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
    responseHeaders: () => NO_STORE,
  }),
}
