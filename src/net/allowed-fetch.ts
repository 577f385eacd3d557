/**
 * The one GET of an outside document (a status list, a did:web document): only from an origin
 * the operator allows ({@link AllowedOrigins}: nothing is sent to any other), within a timeout,
 * reading at most a byte cap, redirects not followed, `If-None-Match` when a version is known.
 * Every failure is a result naming why, never a throw.
 */
import type { AllowedOrigins } from './allowed-origins.js'
import { readCappedText } from './read-capped.js'

export interface AllowedFetchOptions {
  /** The `Accept` header. */
  accept: string
  /** Longest wait for the whole answer, ms. */
  timeoutMs: number
  /** Largest body read, bytes. */
  maxBytes: number
  /** The ETag of the copy held, sent as `If-None-Match` (a 304 is then `unchanged`). */
  etag?: string
}

/** What the GET found: a 200's body and headers, or (with an `etag`) a 304. */
export type AllowedFetchResult = { kind: 'body'; text: string; headers: Headers } | { kind: 'unchanged'; headers: Headers }

/**
 * Why nothing was read: the origin is not allowed (nothing was sent), the body is larger than
 * `maxBytes`, or the origin did not answer with one (`why`: no answer within the timeout,
 * unreachable, an HTTP status — a redirect named as not followed —, the answer cut off).
 */
export type AllowedFetchFailure = { failure: 'originNotAllowed' } | { failure: 'tooLarge' } | { failure: 'unavailable'; why: string }

/** GET `url` from an origin of `allowed`. Never throws. */
export async function fetchAllowed(
  url: URL,
  allowed: AllowedOrigins,
  options: AllowedFetchOptions,
): Promise<AllowedFetchResult | AllowedFetchFailure> {
  if (!allowed.allows(url)) return { failure: 'originNotAllowed' }
  const signal = AbortSignal.timeout(options.timeoutMs)
  const timedOut = `no answer within ${options.timeoutMs} ms`
  let response: Response
  try {
    response = await fetch(url, {
      headers: { accept: options.accept, ...(options.etag !== undefined && { 'if-none-match': options.etag }) },
      redirect: 'manual',
      signal,
    })
  } catch {
    return { failure: 'unavailable', why: signal.aborted ? timedOut : 'unreachable' }
  }
  if (response.status === 304 && options.etag !== undefined) return { kind: 'unchanged', headers: response.headers }
  if (response.status !== 200) {
    await response.body?.cancel().catch(() => undefined)
    const redirect = response.status >= 300 && response.status < 400 ? ' (redirects are not followed)' : ''
    return { failure: 'unavailable', why: `HTTP ${response.status}${redirect}` }
  }
  let text: string | undefined
  try {
    text = await readCappedText(response, options.maxBytes)
  } catch {
    return { failure: 'unavailable', why: signal.aborted ? timedOut : 'the answer was cut off' }
  }
  return text === undefined ? { failure: 'tooLarge' } : { kind: 'body', text, headers: response.headers }
}
