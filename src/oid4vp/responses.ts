/**
 * The response endpoint (`POST /oid4vp/responses/:id`, the request's `response_uri`; OID4VP 1.0 §8.2, §8.3, §8.5):
 * where a wallet posts its presentations, or its error, for one presentation request. Public; the tenant is the
 * record's.
 *
 * Order: the record found by the keyed hash of the request id (unknown: 404) → not expired (400) → the form read and
 * bounded (`maxResponseBytes`, nesting) before any JSON is parsed → `direct_post.jwt`: only an encrypted `response`
 * (or the wallet's error), decrypted with the request's sealed key, which must be the JWE's recipient; `direct_post`:
 * no JWE → `state`, when given, equal to the request's → the `vp_token` bounds (count, nesting, sizes) → the request's answer
 * consumed atomically: one response wins across processes, every other is refused and writes nothing → the
 * presentations verified and matched against the DCQL query → the outcome stored in one write. Every refusal before
 * the consume writes nothing. Same-device (the request has a `redirectUri`): the answer sends the browser there with
 * a one-time `response_code` for `getPresentationResult`.
 */
import { randomBytes } from 'node:crypto'
import type { AuthContext, Caller } from '../auth/context.js'
import type { KeyCustody } from '../custody/key-custody.js'
import { OAuthError } from '../oid4vci/oauth-error.js'
import type { OneTimeStore } from '../one-time/index.js'
import { collectionOf } from '../storage/declaration.js'
import type { StorageAdapter } from '../storage/port.js'
import { openVpKey } from './ephemeral-key.js'
import type { Oid4vpContext, Oid4vpRuntime } from './module.js'
import type { PresentationOutcome } from './outcome-schemas.js'
import type * as Protocol from './protocol/index.js'
import { OID4VP_ONE_TIME, OID4VP_REQUESTS, requestRecordById, type PresentationRequestRecord } from './records.js'
import type { PresentationResponseAnswer } from './response-schemas.js'
import { evaluateVpToken, type EvaluateContext } from './evaluate.js'
import { checkVpTokenBounds } from './vp-token-bounds.js'

/** What the response endpoint uses of the service. */
export type ResponsesContext = Oid4vpContext &
  Omit<EvaluateContext, 'oid4vp'> & {
    storage: StorageAdapter
    oneTime: OneTimeStore
    custody: KeyCustody
    now: () => number
    config: { publicUrl?: string; limits: { depth: number } }
  }

/** The purpose of the keyed hash that names a request's record (`OneTimeStore.keyed`). */
export const REQUEST_PURPOSE = 'oid4vp-request'

const invalidRequest = (description: string) => new OAuthError('invalid_request', description)
const unknownRequest = () => new OAuthError('invalid_request', 'no such presentation request', 404)

/** POST response_uri: a wallet's presentations (or error) for one request → the outcome stored; `{}` or a redirect. */
export async function submitPresentationResponse(
  ctx: ResponsesContext,
  caller: Caller,
  input: { id: string } & Record<string, string | undefined>,
  _auth?: AuthContext,
): Promise<PresentationResponseAnswer> {
  const { id, ...form } = input
  const oid4vp = ctx.oid4vp
  if (!oid4vp || ctx.config.publicUrl === undefined) throw unknownRequest()
  const record = await requestRecordById(ctx.storage, ctx.oneTime.keyed(REQUEST_PURPOSE, '', id))
  if (!record) throw unknownRequest()
  if (record.expiresAt <= ctx.now()) throw invalidRequest('the presentation request expired')
  if (record.status !== 'pending') throw invalidRequest('the presentation request was already answered')

  const bounds = { maxBytes: oid4vp.options.maxResponseBytes, maxDepth: ctx.config.limits.depth }
  const response = await readResponse(ctx, oid4vp, record, form, bounds)
  // `state` is optional in a response: every presentation is bound to the request by its nonce (OID4VP 1.0 §5.2 asks
  // for `state` only of requests answered without holder binding), and some wallets do not echo it. Given, it matches.
  if (response.state !== undefined && response.state !== record.state) throw invalidRequest('state does not match the presentation request')
  if (response.kind === 'vp_token') {
    const problem = checkVpTokenBounds(response.vpToken, { maxPresentations: oid4vp.options.maxPresentations })
    if (problem !== undefined) throw invalidRequest(problem)
  }

  // The one response that consumes the answer wins, in every process; the others write nothing.
  if ((await ctx.oneTime.consume(record.tenantId, OID4VP_ONE_TIME.answer, id)) === undefined)
    throw invalidRequest('the presentation request was already answered')

  const outcome: PresentationOutcome =
    response.kind === 'error'
      ? {
          status: 'failed',
          error: response.error,
          ...(response.errorDescription !== undefined && { errorDescription: response.errorDescription }),
        }
      : await evaluated({ ...ctx, oid4vp }, caller, record, response.vpToken)
  await store(ctx, record, outcome)
  return record.redirectUri === undefined ? {} : { redirect_uri: await redirectOf(ctx, record) }
}

/** The response the wallet sent, in the shape the request's mode asks for: a JWE decrypted and read; else the form. */
async function readResponse(
  ctx: ResponsesContext,
  oid4vp: Oid4vpRuntime,
  record: PresentationRequestRecord,
  form: Record<string, string | undefined>,
  bounds: Protocol.VpResponseBounds,
): Promise<Exclude<Protocol.VpParsedResponse, { kind: 'jwe' }>> {
  const parsed = oid4vp.lib.parseVpResponseForm(form, bounds)
  if (!parsed.ok) throw invalidRequest(parsed.error)
  if (parsed.kind === 'error') return parsed
  if (record.responseMode === 'direct_post') {
    if (parsed.kind === 'jwe') throw invalidRequest('this request takes direct_post: vp_token, not an encrypted response')
    return parsed
  }
  if (parsed.kind === 'vp_token') throw invalidRequest('this request requires an encrypted response (direct_post.jwt): response')
  const encryption = record.encryption
  if (!encryption || typeof encryption.publicJwk.kid !== 'string') throw new Error('an encrypted request without its key')
  const privateJwk = openVpKey(ctx, record, encryption.sealedPrivateJwk)
  try {
    const decrypted = await oid4vp.lib.decryptVpResponse(parsed.response, privateJwk, {
      kid: encryption.publicJwk.kid,
      enc: encryption.enc,
      maxBytes: bounds.maxBytes,
      maxDepth: bounds.maxDepth,
    })
    if (!decrypted.ok) throw invalidRequest(decrypted.error)
    const payload = oid4vp.lib.parseVpResponsePayload(decrypted.payload, bounds)
    if (!payload.ok) throw invalidRequest(payload.error)
    if (payload.kind === 'jwe') throw invalidRequest('an encrypted response cannot hold another one')
    return payload
  } finally {
    delete privateJwk.d
  }
}

/**
 * The outcome of the presentations. The answer is consumed already: an evaluation that fails unexpectedly leaves the
 * request `failed` (`server_error`) rather than pending for ever, and the wallet gets the error.
 */
async function evaluated(
  ctx: ResponsesContext & EvaluateContext,
  caller: Caller,
  record: PresentationRequestRecord,
  vpToken: Record<string, unknown>,
): Promise<PresentationOutcome> {
  // The wallet is anonymous; the verification acts for the request's tenant.
  const tenant: Caller = { tenantId: record.tenantId, dids: [], addresses: [], requestId: caller.requestId, operation: caller.operation }
  try {
    return await evaluateVpToken(ctx, tenant, record, vpToken)
  } catch (err) {
    const failed: PresentationOutcome = { status: 'failed', error: 'server_error', errorDescription: 'the response could not be verified' }
    await store(ctx, record, failed).catch(() => undefined)
    throw err
  }
}

/** The outcome, its status and the time of the answer, in one write. */
async function store(
  ctx: Pick<ResponsesContext, 'storage' | 'now'>,
  record: PresentationRequestRecord,
  outcome: PresentationOutcome,
): Promise<void> {
  const now = ctx.now()
  await collectionOf(ctx.storage, OID4VP_REQUESTS).update(record.id, {
    status: outcome.status,
    outcome,
    answeredAt: now,
    updatedAt: Math.max(now, record.updatedAt + 1),
  })
}

/**
 * Same-device: the request's `redirectUri` with a fresh `response_code` (32 random bytes base64url, OID4VP 1.0 §8.2)
 * in its fragment, issued once for reading this request's result until the record is deleted.
 */
async function redirectOf(ctx: Pick<ResponsesContext, 'oneTime' | 'now'>, record: PresentationRequestRecord): Promise<string> {
  const code = randomBytes(32).toString('base64url')
  await ctx.oneTime.issue(record.tenantId, OID4VP_ONE_TIME.responseCode, code, {
    ttlMs: Math.max(1, record.deleteAt - ctx.now()),
    data: { request: record.id },
  })
  const url = new URL(record.redirectUri!)
  url.hash = url.hash === '' ? `response_code=${code}` : `${url.hash.slice(1)}&response_code=${code}`
  return url.toString()
}
