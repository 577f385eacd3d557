/** The spec's batch shape: items in, `{ results, errors }` out (DESIGN §3 batch rule). */
import { errorObject, IdentityError, type ErrorBody } from '../errors.js'
import type { Runtime } from './runtime.js'

/**
 * Runs `run` on each item in order. An item that fails is reported through `failed` (its
 * error body; unexpected failures also reach `onError`) and never undoes or blocks the others.
 * When no item could be done because storage is unavailable, the whole request fails with 503
 * ({@link assertSomethingDone}).
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
  const bodies: ErrorBody[] = []
  for (const item of items) {
    try {
      results.push(await run(item))
    } catch (err) {
      const body = itemError(ctx, err, operation)
      bodies.push(body)
      errors.push(failed(item, body))
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

/** The body of a failed batch item; an unexpected (500) failure or an unavailable storage (503) also goes to `onError`. */
export function itemError(ctx: Pick<Runtime, 'onError'>, err: unknown, operation: string): ErrorBody {
  const body = errorObject(err, operation)
  if (body.statusCode >= 500) ctx.onError(operation, err)
  return body
}
