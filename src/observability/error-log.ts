/** The service's `onError` as log records: the operation, the request's id, and the error's message and stack with secrets redacted. */
import type { ErrorInfo } from '../operations/runtime.js'
import { describeError, failureTitle, type Redactor } from '../service/error-log.js'
import type { Logger } from './logger.js'

/**
 * An `IdentityServiceOptions.onError` writing one `error` record per unexpected failure:
 * `{ operation, requestId, item?, err }` — `operation` the table's name (`createVault`, as in the
 * request records), `item` the part that failed inside a 200 answer (a batch item), `err`
 * {@link describeError}'s text (each error of the `cause` chain with its stack, secrets redacted by `redact`).
 */
export function errorLogger(logger: Logger, redact: Redactor): (operation: string, error: unknown, info?: ErrorInfo) => void {
  return (operation, error, info) => {
    const record = {
      operation,
      requestId: info?.requestId,
      ...(info?.item !== undefined && { item: info.item }),
      err: describeError(error, redact),
    }
    logger.error(record, `didvault: ${failureTitle(operation, info)}`)
  }
}
