/**
 * The Express middleware `didvault serve` puts before the router: gives each request its id
 * (the caller's `x-request-id` when it is a plain token, else a new UUID; returned in
 * `x-request-id`, and handed to the operation by the router), and once the response is over
 * writes one log record and counts it in the metrics: request id, tenant (when authenticated),
 * operation, method, path (no query string), status and duration. At `debug` the record also
 * carries the request headers, credentials redacted; bodies are never logged.
 */
import type { RequestHandler } from 'express'
import { requestIdOf, type RequestFacts } from '../http/request-facts.js'
import { REQUEST_REDACT_PATHS, type Logger } from './logger.js'
import { escapeText } from '../text/escape.js'
import { NO_OPERATION, type ServiceMetrics } from './metrics.js'

/** Longer paths are cut in the log (a path is the caller's text). */
const MAX_LOGGED_PATH = 512

/**
 * The path of a request URL, without its query string, at most {@link MAX_LOGGED_PATH} characters,
 * escaped (`text/escape.ts`: raw bytes of a request line arrive as C1 controls).
 */
export function loggedPath(url: string): string {
  const end = url.indexOf('?')
  const path = end === -1 ? url : url.slice(0, end)
  return escapeText(path.length > MAX_LOGGED_PATH ? `${path.slice(0, MAX_LOGGED_PATH)}…` : path)
}

/** The middleware; `metrics` (optional) counts each request and its latency by operation and status. */
export function requestLog(logger: Logger, metrics?: ServiceMetrics): RequestHandler {
  // The record's fields are the service's own (ids, names, numbers), its headers the only secrets: redacting only
  // them spares every request line the walk of every secret path a record may hold.
  const requests = logger.child({}, { redact: { paths: [...REQUEST_REDACT_PATHS], censor: '[redacted]' } })
  return (req, res, next) => {
    const start = performance.now()
    const facts = res.locals as RequestFacts
    const requestId = (facts.requestId = requestIdOf(req.get('x-request-id')))
    res.setHeader('x-request-id', requestId)
    res.once('close', () => {
      const ms = performance.now() - start
      const status = res.statusCode
      metrics?.request(facts.operation ?? NO_OPERATION, status, ms / 1000)
      const level = status >= 500 ? 'error' : 'info'
      if (!requests.isLevelEnabled(level)) return
      const record: Record<string, unknown> = {
        requestId,
        tenant: facts.tenantId || undefined,
        operation: facts.operation,
        method: req.method,
        path: loggedPath(req.originalUrl),
        status,
        durationMs: Math.round(ms * 100) / 100,
      }
      if (!res.writableFinished) record.aborted = true
      if (requests.isLevelEnabled('debug')) record.headers = req.headers
      requests[level](record, 'request')
    })
    next()
  }
}
