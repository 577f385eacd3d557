/**
 * One GET of a status list credential from an allowed origin: within a timeout, reading at most
 * a byte cap, redirects not followed, `If-None-Match` when a version is known. Every failure is
 * a named problem, never a throw.
 */
import type { StatusProblem } from './status-list-entry.js'
import { readCappedText } from '../net/read-capped.js'

/** What the fetch found. */
export type FetchedList =
  | { kind: 'changed'; credential: string | Record<string, unknown>; etag?: string; maxAgeSeconds: number }
  | { kind: 'unchanged'; maxAgeSeconds: number }

export interface ListFetchOptions {
  timeoutMs: number
  maxBytes: number
  /** The ETag of the copy held, sent as `If-None-Match`. */
  etag?: string
}

const ACCEPT = 'application/vc+ld+json, application/vc+jwt, application/vc, application/ld+json, application/jwt, application/json'
const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/

/** `url`'s status list credential (a JWT, or a JSON object). */
export async function fetchStatusList(url: URL, options: ListFetchOptions): Promise<FetchedList | StatusProblem> {
  const signal = AbortSignal.timeout(options.timeoutMs)
  let response: Response
  try {
    response = await fetch(url, {
      headers: { accept: ACCEPT, ...(options.etag !== undefined && { 'if-none-match': options.etag }) },
      redirect: 'manual',
      signal,
    })
  } catch {
    return unavailable(signal.aborted ? `no answer within ${options.timeoutMs} ms` : 'unreachable')
  }
  const maxAgeSeconds = maxAgeOf(response.headers.get('cache-control'))
  if (response.status === 304 && options.etag !== undefined) return { kind: 'unchanged', maxAgeSeconds }
  if (response.status !== 200) {
    await response.body?.cancel().catch(() => undefined)
    const redirect = response.status >= 300 && response.status < 400 ? ' (redirects are not followed)' : ''
    return unavailable(`HTTP ${response.status}${redirect}`)
  }
  let body: string | undefined
  try {
    body = await readCappedText(response, options.maxBytes)
  } catch {
    return unavailable(signal.aborted ? `no answer within ${options.timeoutMs} ms` : 'the answer was cut off')
  }
  if (body === undefined) return unavailable(`the list is larger than ${options.maxBytes} bytes`)
  const credential = credentialOf(body.trim())
  if (credential === undefined) return { reason: 'malformedList', error: 'status list: neither a JWT nor a JSON object' }
  const etag = response.headers.get('etag') ?? undefined
  return { kind: 'changed', credential, ...(etag !== undefined && { etag }), maxAgeSeconds }
}

const unavailable = (why: string): StatusProblem => ({ reason: 'listUnavailable', error: `status list: ${why}` })

function credentialOf(body: string): string | Record<string, unknown> | undefined {
  if (JWT.test(body)) return body
  try {
    const parsed: unknown = JSON.parse(body)
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}

/** Seconds a response may be reused per its `Cache-Control` (`max-age`; 0 with `no-store`, `no-cache` or none). */
export function maxAgeOf(cacheControl: string | null): number {
  if (cacheControl === null) return 0
  const directives = cacheControl
    .toLowerCase()
    .split(',')
    .map((d) => d.trim())
  if (directives.some((d) => d === 'no-store' || d === 'no-cache')) return 0
  const maxAge = directives.find((d) => d.startsWith('max-age='))
  const seconds = maxAge === undefined ? 0 : Number(maxAge.slice('max-age='.length))
  return Number.isInteger(seconds) && seconds > 0 ? seconds : 0
}
