/** The spec's batch shape: items in, `{ results, errors }` out (DESIGN §3 batch rule). */
import type { Caller } from '../auth/context.js'
import { errorObject, IdentityError, type ErrorBody } from '../errors.js'
import type { Runtime } from './runtime.js'

/** The call an item belongs to: its operation and request id (set on the caller by the dispatcher). */
export type ItemCall = Pick<Caller, 'operation' | 'requestId'>

/**
 * Runs `run` on each item in order. An item that fails is reported through `failed` (its
 * error body; see {@link itemError}) and never undoes or blocks the others. When no item could
 * be done because storage is unavailable, the whole request fails with 503 ({@link assertSomethingDone}).
 */
export async function forEachItem<I, R, E>(
  ctx: Pick<Runtime, 'onError' | 'onItemFailure'>,
  call: ItemCall,
  item: string,
  items: readonly I[],
  run: (item: I) => Promise<R>,
  failed: (item: I, error: ErrorBody) => E,
): Promise<{ results: R[]; errors: E[] }> {
  const results: R[] = []
  const errors: E[] = []
  const bodies: ErrorBody[] = []
  for (const each of items) {
    try {
      results.push(await run(each))
    } catch (err) {
      const body = itemError(ctx, call, err, item)
      bodies.push(body)
      errors.push(failed(each, body))
    }
  }
  assertSomethingDone(results.length, bodies)
  return { results, errors }
}

/**
 * The batch rule during an outage: a batch of which no item was done, one of them failing
 * because storage (or an HSM) is unavailable, fails as a whole with that 503 `SERVICE_UNAVAILABLE`
 * — nothing was done, and the caller should send the whole request again. A batch of which some
 * items were done answers 200, the others' 503 bodies in its `errors`.
 */
export function assertSomethingDone(done: number, errors: readonly ErrorBody[]): void {
  const unavailable = errors.find((error) => error.errorType === 'SERVICE_UNAVAILABLE')
  if (done === 0 && unavailable !== undefined) throw IdentityError.fromBody(unavailable)
}

/**
 * The body of a failed item (`item` names what was done to it: `rename wallet`). Every failure
 * is told to `onItemFailure`; an unexpected (500) one, or an unavailable storage (503), also goes to `onError` with the call's
 * operation, request id and the error itself (its cause chain), like a whole request's 500.
 */
export function itemError(ctx: Pick<Runtime, 'onError' | 'onItemFailure'>, call: ItemCall, err: unknown, item: string): ErrorBody {
  const body = errorObject(err, item)
  const operation = call.operation ?? item
  const { requestId } = call
  ctx.onItemFailure({
    operation,
    item,
    errorType: body.errorType,
    statusCode: body.statusCode,
    ...(requestId !== undefined && { requestId }),
  })
  if (body.statusCode >= 500) ctx.onError(operation, err, { ...(requestId !== undefined && { requestId }), item })
  return body
}
