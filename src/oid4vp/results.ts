/**
 * Reading a presentation request's result (`getPresentationResult`), and deleting requests past their `deleteAt`.
 *
 * A request of another tenant, or past its `deleteAt` (swept or not), is 422 NOT_FOUND: the same answer as an unknown
 * id, so nothing tells that it exists. Same-device requests (made with `redirectUri`) show an answered outcome only
 * with the `response_code` the wallet's redirect carried: a one-time value naming the record, consumed by the first
 * read that shows the outcome; without it, or with a wrong or spent one, 403 FORBIDDEN (a pending request is shown
 * without it: it tells nothing the front end did not know). That read, and every refusal of one, is audited
 * (`presentationResult.read`).
 */
import type { Caller } from '../auth/context.js'
import { forbidden, notFound } from '../errors.js'
import type { VpContext } from './context.js'
import { collectionOf } from '../storage/declaration.js'
import { OID4VP_ONE_TIME, OID4VP_REQUESTS, requestRecordById, type PresentationRequestRecord } from './records.js'
import { requestRecordIdOf, requireVpModule } from './requests.js'
import type { PresentationResult } from './schemas.js'

/** What reading results uses of the service. */
export type ResultsContext = Pick<VpContext, 'audit' | 'now' | 'oid4vp' | 'oneTime' | 'storage'>

/** The result of the caller's tenant's request `id`. */
export async function getPresentationResult(
  ctx: ResultsContext,
  caller: Caller,
  input: { id: string; response_code?: string },
): Promise<PresentationResult> {
  requireVpModule(ctx.oid4vp)
  const recordId = requestRecordIdOf(ctx.oneTime, input.id)
  const record = await requestRecordById(ctx.storage, recordId)
  if (!record || record.tenantId !== caller.tenantId || record.deleteAt <= ctx.now()) throw notFound('no such presentation request')
  if (record.status !== 'pending' && record.redirectUri !== undefined) {
    await spendResponseCode(ctx, record, input.response_code)
    // The one read the code allows is the caller's act (refusals are recorded by the dispatcher).
    await ctx.audit.record(caller, [{ action: 'presentationResult.read', target: { type: 'presentationRequest', id: input.id } }])
  }
  return resultOf(input.id, record)
}

/** Takes the same-device `response_code` of `record` out; 403 when it is missing, another request's or spent. */
async function spendResponseCode(ctx: ResultsContext, record: PresentationRequestRecord, code: string | undefined): Promise<void> {
  const refused = () => forbidden('this same-device request’s result needs the response_code the wallet’s redirect carried, once')
  if (code === undefined) throw refused()
  const kind = OID4VP_ONE_TIME.responseCode
  const data = await ctx.oneTime.peek(record.tenantId, kind, code)
  // Peeked first: a code of another request of the tenant is not spent by a wrong read.
  if (data?.request !== record.id) throw refused()
  if ((await ctx.oneTime.consume(record.tenantId, kind, code)) === undefined) throw refused()
}

function resultOf(id: string, record: PresentationRequestRecord): PresentationResult {
  const outcome = record.status === 'pending' ? undefined : record.outcome
  const iso = (ms: number) => new Date(ms).toISOString()
  return {
    id,
    status: record.status,
    createdAt: iso(record.createdAt),
    expiresAt: iso(record.expiresAt),
    ...(record.answeredAt !== undefined && { answeredAt: iso(record.answeredAt) }),
    ...(outcome?.status === 'fulfilled' && { credentials: outcome.credentials }),
    ...(outcome?.status === 'failed' && {
      error: outcome.error,
      ...(outcome.errorDescription !== undefined && { errorDescription: outcome.errorDescription }),
      ...(outcome.checks !== undefined && { checks: outcome.checks }),
    }),
  }
}

/**
 * Deletes the requests (and results) of every tenant whose `deleteAt` is at or before `now`; returns how many. One
 * delete served by the `deleteAt` index; run every few creations of a process (and callable by an embedder).
 */
export async function sweepPresentationRequests(ctx: Pick<ResultsContext, 'storage'>, now: number): Promise<number> {
  return collectionOf(ctx.storage, OID4VP_REQUESTS).deleteMany({ field: 'deleteAt', op: 'lte', value: now })
}
