/**
 * The wire shapes of the authorization code flow's endpoints (PAR, authorization, login return). Browser-safe: zod
 * only. The forms are checked field by field by the protocol adapter (RFC 6749/7636/9126/9396): these schemas bound
 * them and name their fields for the OpenAPI document.
 */
import * as z from 'zod'

const field = (description: string) => z.string().max(8_192).optional().meta({ description })

/** A pushed authorization request (RFC 9126 §2.1), a form. Members not listed are kept for the adapter (`resource`…). */
export const pushedAuthorizationRequest = z.looseObject({
  client_id: field('The wallet’s client id (no registration: any id; the code is bound to it).'),
  response_type: field('`code`.'),
  redirect_uri: field('Where the authorization endpoint sends the browser back (required: an absolute URL, no fragment).'),
  code_challenge: field('PKCE challenge (RFC 7636), S256 only.'),
  code_challenge_method: field('`S256`.'),
  authorization_details: field('JSON array of `{ type: "openid_credential", credential_configuration_id }` (RFC 9396).'),
  scope: field('Space-separated scopes of credential configurations (a configuration’s scope is its id).'),
  issuer_state: field('The `issuer_state` of the offer being redeemed.'),
  state: field('The wallet’s state, returned with the code.'),
  dpop_jkt: field('RFC 7638 thumbprint of the DPoP key the code and its token are bound to (RFC 9449 §10).'),
})

/** The pushed authorization response (RFC 9126 §2.2), status 201. */
export const pushedAuthorizationResponse = z.object({
  request_uri: z.string().meta({ description: '`urn:ietf:params:oauth:request_uri:…`, single use.' }),
  expires_in: z.number().int().positive(),
})

/** The authorization request (RFC 9126 §4): the client and its pushed request. */
export const authorizationRequest = z.looseObject({
  client_id: z.string().max(8_192).meta({ description: 'The client of the pushed request.' }),
  request_uri: z.string().max(8_192).meta({ description: 'The `request_uri` the PAR endpoint answered.' }),
})

/** The login page's return: the signed assertion (docs/oid4vci.md, *Authorization code flow*). */
export const loginReturn = z.looseObject({
  assertion: z.string().max(16_384).meta({ description: 'A JWS signed by a key of `loginAssertionKeys`.' }),
})

/** An authorization endpoint's answer: where the browser goes (302 Found over HTTP). */
export const redirection = z.object({ location: z.string() })
export type Redirection = z.output<typeof redirection>
