/**
 * The https form of an authorization request (`GET /oid4vp/authorize`, the `authorizationRequest.https` link): a
 * universal link a phone's browser opens, answered by a 302 to the same parameters under the wallet's
 * `openid4vp://` scheme. Only this service's own request URIs are passed on: the link never sends a browser anywhere a
 * caller names, and the answer does not tell whether the request exists (the wallet learns that at the request URI).
 */
import type { Caller } from '../auth/context.js'
import { OAuthError } from '../oid4vci/oauth-error.js'
import type { VpContext } from './context.js'
import { requestUriOf } from './request-signing.js'
import { requireVpModule } from './requests.js'

/** The query of the link, as `createPresentationRequest` writes it. */
export interface AuthorizeLinkInput {
  client_id: string
  request_uri: string
  request_uri_method?: 'get' | 'post'
}

/** GET `<publicUrl>/oid4vp/authorize?client_id=…&request_uri=…` → 302 `openid4vp://?client_id=…&request_uri=…`. */
export function openAuthorizationRequest(
  ctx: Pick<VpContext, 'config' | 'oid4vp'>,
  _caller: Caller,
  input: AuthorizeLinkInput,
): Promise<{ location: string }> {
  const publicUrl = ctx.config.publicUrl
  if (ctx.oid4vp === undefined || publicUrl === undefined) throw new OAuthError('invalid_request', 'no OID4VP verifier here', 404)
  requireVpModule(ctx.oid4vp)
  const prefix = requestUriOf(publicUrl, '')
  const id = input.request_uri.startsWith(prefix) ? input.request_uri.slice(prefix.length) : ''
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(id)) throw new OAuthError('invalid_request', 'request_uri: not a request URI of this verifier')
  const query = new URLSearchParams({
    client_id: input.client_id,
    request_uri: input.request_uri,
    ...(input.request_uri_method !== undefined && { request_uri_method: input.request_uri_method }),
  })
  return Promise.resolve({ location: `openid4vp://?${query.toString()}` })
}
