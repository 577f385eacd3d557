/**
 * The `request_uri` endpoint (OID4VP 1.0 §5.10, RFC 9101 §5.2): a wallet fetches the request's Request Object —
 * `GET` the one signed at creation; `POST` (`request_uri_method=post`, form fields `wallet_metadata`, `wallet_nonce`)
 * one signed again carrying the `wallet_nonce`, once per request (across processes: the `oid4vp-wallet-nonce`
 * one-time value); later POSTs are 400 `invalid_request`.
 *
 * Errors are OAuth bodies: an unknown id (or a service without the module or `publicUrl`) 404 `invalid_request`; a
 * request that expired or was answered 400 `invalid_request` (RFC 9101 §5.2: the request object can no longer be
 * used; OID4VP names no other code for it).
 */
import { createHash } from 'node:crypto'
import type { Caller } from '../auth/context.js'
import { IdentityError } from '../errors.js'
import { OAuthError } from '../oid4vci/oauth-error.js'
import type { VpContext } from './context.js'
import { collectionOf } from '../storage/declaration.js'
import type { Oid4vpRuntime } from './module.js'
import { OID4VP_ONE_TIME, OID4VP_REQUESTS, requestRecordById, type PresentationRequestRecord } from './records.js'
import { signRequestObject, type SigningContext } from './request-signing.js'
import { requestRecordIdOf } from './requests.js'
import type { ServedRequestObject } from './schemas.js'

/** What the `request_uri` endpoint uses of the service. */
export type RequestObjectsContext = SigningContext & Pick<VpContext, 'config' | 'now' | 'oid4vp' | 'oneTime'>

const MEDIA_TYPE = 'application/oauth-authz-req+jwt'

/** The live request `requestId` names, with the running module and `publicUrl`; the OAuth error otherwise. */
async function liveRequest(
  ctx: RequestObjectsContext,
  requestId: string,
): Promise<{ record: PresentationRequestRecord; oid4vp: Oid4vpRuntime; publicUrl: string }> {
  const { publicUrl } = ctx.config
  const oid4vp = ctx.oid4vp
  const record =
    publicUrl === undefined || !oid4vp ? undefined : await requestRecordById(ctx.storage, requestRecordIdOf(ctx.oneTime, requestId))
  const now = ctx.now()
  if (!record || !oid4vp || publicUrl === undefined || record.deleteAt <= now)
    throw new IdentityError('NOT_FOUND', 'no such presentation request', 404)
  if (record.expiresAt <= now) throw new OAuthError('invalid_request', 'the presentation request expired')
  if (record.status !== 'pending') throw new OAuthError('invalid_request', 'the presentation request was answered already')
  return { record, oid4vp, publicUrl }
}

/** The served form of a request object: never cached by intermediaries beyond revalidation. */
function served(jwt: string): ServedRequestObject {
  return { document: jwt, contentType: MEDIA_TYPE, etag: `"${createHash('sha256').update(jwt).digest('base64url')}"`, maxAge: 0 }
}

/** `GET` on the `request_uri`: the Request Object signed at creation. */
export async function getRequestObject(ctx: RequestObjectsContext, _caller: Caller, input: { id: string }): Promise<ServedRequestObject> {
  const { record } = await liveRequest(ctx, input.id)
  return served(record.requestObject)
}

/**
 * `POST` on the `request_uri`: the Request Object signed now with the wallet's `wallet_nonce` (the stored one when the
 * wallet sent none), once per request. `wallet_metadata` is honoured where it constrains the request object: a wallet
 * listing `request_object_signing_alg_values_supported` without the request's algorithm is refused (400 naming it).
 */
export async function postRequestObject(
  ctx: RequestObjectsContext,
  _caller: Caller,
  input: { id: string; wallet_metadata?: string; wallet_nonce?: string },
): Promise<ServedRequestObject> {
  const { record, oid4vp, publicUrl } = await liveRequest(ctx, input.id)
  checkWalletMetadata(record, input.wallet_metadata)
  const now = ctx.now()
  const used = () => new OAuthError('invalid_request', 'the request object was fetched with request_uri_method=post already')
  // A used POST is refused before any signing; the use is taken only once the request object is signed, so a failed
  // signing does not spend it. Two racing POSTs may both sign: the one that remembers the use first is served.
  if ((await ctx.oneTime.peek(record.tenantId, OID4VP_ONE_TIME.walletNonce, input.id)) !== undefined) throw used()
  let jwt = record.requestObject
  if (input.wallet_nonce !== undefined) {
    try {
      jwt = await signRequestObject(ctx, oid4vp, publicUrl, record, input.id, { now, walletNonce: input.wallet_nonce })
    } catch {
      throw new OAuthError('invalid_request', 'the request object cannot be signed again now', 400)
    }
  }
  if (!(await ctx.oneTime.remember(record.tenantId, OID4VP_ONE_TIME.walletNonce, input.id, Math.max(1, record.expiresAt - now))))
    throw used()
  if (input.wallet_nonce !== undefined)
    await collectionOf(ctx.storage, OID4VP_REQUESTS).update(record.id, { walletNonceUsed: true, updatedAt: now })
  return served(jwt)
}

/** The request object's `alg` against the wallet's `request_object_signing_alg_values_supported`; 400 when refused. */
function checkWalletMetadata(record: PresentationRequestRecord, given: string | undefined): void {
  if (given === undefined) return
  let metadata: unknown
  try {
    metadata = JSON.parse(given)
  } catch {
    throw new OAuthError('invalid_request', 'wallet_metadata: not JSON')
  }
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata))
    throw new OAuthError('invalid_request', 'wallet_metadata: not a JSON object')
  const algs = (metadata as Record<string, unknown>).request_object_signing_alg_values_supported
  if (algs === undefined || record.clientIdPrefix === 'redirect_uri') return
  const alg = (JSON.parse(Buffer.from(record.requestObject.split('.')[0], 'base64url').toString('utf8')) as { alg: string }).alg
  if (!Array.isArray(algs) || !algs.includes(alg))
    throw new OAuthError(
      'invalid_request',
      `wallet_metadata.request_object_signing_alg_values_supported: the request object is signed with ${alg}, not listed`,
    )
}
