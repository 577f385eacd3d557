/** The spec's batch shape: items in, `{ results, errors }` out (DESIGN §3 batch rule). */
import type { Caller } from '../auth/context.js'
import { errorObject, type ErrorBody } from '../errors.js'
import type { Runtime } from './runtime.js'

/** The call an item belongs to: its operation and request id (set on the caller by the dispatcher). */
export type ItemCall = Pick<Caller, 'operation' | 'requestId'>

/**
 * Runs `run` on each item in order. An item that fails is reported through `failed` (its
 * error body; see {@link itemError}) and never undoes or blocks the others.
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
  for (const each of items) {
    try {
      results.push(await run(each))
    } catch (err) {
      errors.push(failed(each, itemError(ctx, call, err, item)))
    }
  }
  return { results, errors }
}

/**
 * The body of a failed item (`item` names what was done to it: `rename wallet`). Every failure
 * is told to `onItemFailure`; an unexpected (500) one also goes to `onError` with the call's
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
  if (body.statusCode === 500) ctx.onError(operation, err, { ...(requestId !== undefined && { requestId }), item })
  return body
}
