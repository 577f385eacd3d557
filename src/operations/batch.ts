/** The spec's batch shape: items in, `{ results, errors }` out (DESIGN §3 batch rule). */
import { errorObject, type ErrorBody } from '../errors.js'
import type { Runtime } from './runtime.js'

/**
 * Runs `run` on each item in order. An item that fails is reported through `failed` (its
 * error body; unexpected failures also reach `onError`) and never undoes or blocks the others.
 */
export async function forEachItem<I, R, E>(
  ctx: Pick<Runtime, 'onError'>,
  operation: string,
  items: readonly I[],
  run: (item: I) => Promise<R>,
  failed: (item: I, error: ErrorBody) => E,
): Promise<{ results: R[]; errors: E[] }> {
  const results: R[] = []
  const errors: E[] = []
  for (const item of items) {
    try {
      results.push(await run(item))
    } catch (err) {
      errors.push(failed(item, itemError(ctx, err, operation)))
    }
  }
  return { results, errors }
}

/** The body of a failed batch item; an unexpected (500) failure also goes to `onError`. */
export function itemError(ctx: Pick<Runtime, 'onError'>, err: unknown, operation: string): ErrorBody {
  const body = errorObject(err, operation)
  if (body.statusCode === 500) ctx.onError(operation, err)
  return body
}
