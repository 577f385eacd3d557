/**
 * One GET of a status list credential from an allowed origin, through the one fetch helper of
 * outside documents ({@link fetchAllowed}: within a timeout, reading at most a byte cap,
 * redirects not followed), `If-None-Match` when a version is known. Every failure is a named
 * problem, never a throw.
 */
import type { StatusProblem } from './status-list-entry.js'
import { fetchAllowed } from '../net/allowed-fetch.js'
import type { AllowedOrigins } from '../net/allowed-origins.js'

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

const ACCEPT = [
  'application/vc+ld+json',
  'application/vc+jwt',
  'application/statuslist+jwt',
  'application/vc',
  'application/ld+json',
  'application/jwt',
  'application/json',
].join(', ')
const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/

/** `url`'s status list credential (a JWT, or a JSON object), from an origin of `allowed`. */
export async function fetchStatusList(url: URL, allowed: AllowedOrigins, options: ListFetchOptions): Promise<FetchedList | StatusProblem> {
  const fetched = await fetchAllowed(url, allowed, { accept: ACCEPT, ...options })
  if ('failure' in fetched) {
    if (fetched.failure === 'originNotAllowed') return originNotAllowed(url, allowed)
    return unavailable(fetched.failure === 'tooLarge' ? `the list is larger than ${options.maxBytes} bytes` : fetched.why)
  }
  const maxAgeSeconds = maxAgeOf(fetched.headers.get('cache-control'))
  if (fetched.kind === 'unchanged') return { kind: 'unchanged', maxAgeSeconds }
  const credential = credentialOf(fetched.text.trim())
  if (credential === undefined) return { reason: 'malformedList', error: 'status list: neither a JWT nor a JSON object' }
  const etag = fetched.headers.get('etag') ?? undefined
  return { kind: 'changed', credential, ...(etag !== undefined && { etag }), maxAgeSeconds }
}

/** The problem of a list whose origin is not in `allowed`. */
export const originNotAllowed = (url: URL, allowed: AllowedOrigins): StatusProblem => ({
  reason: 'originNotAllowed',
  error: `status list origin ${url.origin} is not allowed (${allowed.setting})`,
})

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
