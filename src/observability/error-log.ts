/** The service's `onError` as log records: the operation, the request's id, and the error's message and stack with secrets redacted. */
import type { ErrorInfo } from '../operations/runtime.js'
import { describeError, type Redactor } from '../service/error-log.js'
import type { Logger } from './logger.js'

/**
 * An `IdentityServiceOptions.onError` writing one `error` record per unexpected failure:
 * `{ operation, requestId, err }`, `err` being {@link describeError}'s text (each error of the
 * `cause` chain with its stack, secrets redacted by `redact`).
 */
export function errorLogger(logger: Logger, redact: Redactor): (operation: string, error: unknown, info?: ErrorInfo) => void {
  return (operation, error, info) => {
    logger.error({ operation, requestId: info?.requestId, err: describeError(error, redact) }, `didvault: ${operation} failed`)
  }
}
