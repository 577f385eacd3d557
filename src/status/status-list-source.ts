/**
 * Where status lists come from. A list under the service's own `publicUrl`
 * (`<publicUrl>/status/<listId>`) is not fetched nor its signature read: its entries are read
 * from storage through {@link OwnStatusLists}, as they are now (so a credential verifies from
 * the moment it is issued, and a change counts from the moment it is made, before the list is
 * published or signed again). Any other list only from an origin the operator allows
 * (`statusListOrigins`), fetched ({@link fetchStatusList}) and kept for its `Cache-Control:
 * max-age`, revalidated with its ETag. A fetch that fails is not made again for
 * `negativeCacheMs`: the failure is the answer meanwhile. No request ever goes to an origin not
 * allowed: a caller's credential names the URL, the operator names the origins.
 */
import { createHash } from 'node:crypto'
import { BoundedCache } from './status-list-cache.js'
import type { StatusProblem } from './status-list-entry.js'
import { fetchStatusList, originNotAllowed } from './status-list-fetch.js'
import { AllowedOrigins } from '../net/allowed-origins.js'

/** One entry of one of the service's own lists, as stored now. */
export interface OwnListEntry {
  /** The list's issuer DID, as its published list names it. */
  issuer: string
  /** The list's status purpose. */
  purpose: string
  /** Entries in the list. */
  size: number
  /** The entry's bit: false for an index no credential holds (or beyond `size`). */
  value: boolean
  /** A Token Status List entry's value (0 valid, 1 invalid, 2 suspended); absent: `value` as 0 or 1. */
  status?: number
}

/** The lists this service publishes, read from its storage (the status domain's `StoredStatusLists` implements it). */
export interface OwnStatusLists {
  /** Entry `index` of list `listId` as stored now; undefined when there is no such list. */
  entry(listId: string, index: number): Promise<OwnListEntry | undefined>
}

/** A list credential, with a version that changes whenever its content does. */
export interface HeldList {
  credential: string | Record<string, unknown>
  version: string
}

export interface StatusListSourceOptions {
  /** The service's public base URL (absolute, no trailing slash), under which its own lists are published. */
  publicUrl?: string
  /** The service's own lists; absent: a list under `publicUrl` is not found. */
  own?: OwnStatusLists
  /** Origins (`scheme://host[:port]`) foreign lists may be fetched from. */
  origins: readonly string[]
  timeoutMs: number
  maxBytes: number
  /** Most foreign lists kept (and most failures). */
  cacheSize: number
  /** How long a failed fetch is the answer without asking again, ms (0: not kept). */
  negativeCacheMs: number
}

interface Cached extends HeldList {
  etag?: string
  /** Until when (ms, the service's clock) it is used without asking its origin. */
  freshUntil: number
}

/** The longest a fetched list is kept without asking again, whatever its `max-age`: a day. */
const MAX_AGE_CAP_SECONDS = 86_400
const OWN_PATH = '/status/'

export class StatusListSource {
  readonly #origins: AllowedOrigins
  readonly #cache: BoundedCache<string, Cached>
  readonly #failures: BoundedCache<string, { problem: StatusProblem; until: number }>
  readonly #inFlight = new Map<string, Promise<HeldList | StatusProblem>>()

  constructor(readonly options: StatusListSourceOptions) {
    this.#origins = new AllowedOrigins('statusListOrigins', options.origins)
    this.#cache = new BoundedCache(options.cacheSize)
    this.#failures = new BoundedCache(options.cacheSize)
  }

  /** Whether reading `url` fetches it from an allowed origin (not the service's own list, nor a refused origin). */
  isFetched(url: URL): boolean {
    return !this.#isOwn(url.href) && this.#origins.allows(url)
  }

  #isOwn(href: string): boolean {
    const { publicUrl } = this.options
    return publicUrl !== undefined && href.startsWith(`${publicUrl}${OWN_PATH}`)
  }

  /** The id of the service's own list `url` names (`<publicUrl>/status/<listId>`); undefined when it names no own list. */
  ownListId(url: URL): string | undefined {
    const href = url.href.split('#')[0]
    return this.#isOwn(href) ? href.slice(this.options.publicUrl!.length + OWN_PATH.length) : undefined
  }

  /** Entry `index` of the service's own list `listId`, as stored now, or why it cannot be had. Never throws. */
  async ownEntry(listId: string, index: number): Promise<OwnListEntry | StatusProblem> {
    const notFound: StatusProblem = { reason: 'listUnavailable', error: 'status list: not found among the service’s lists' }
    if (this.options.own === undefined || !/^[A-Za-z0-9._~-]{1,200}$/.test(listId)) return notFound
    try {
      return (await this.options.own.entry(listId, index)) ?? notFound
    } catch {
      return { reason: 'listUnavailable', error: 'status list: the service’s storage failed' }
    }
  }

  /** The list credential at `url`, of an allowed origin (not the service's own), or why it cannot be had. Never throws. */
  async get(url: URL, now: number): Promise<HeldList | StatusProblem> {
    const href = url.href.split('#')[0]
    if (!this.#origins.allows(url) || this.#isOwn(href)) return originNotAllowed(url, this.#origins)
    const cached = this.#cache.get(href)
    if (cached !== undefined && now < cached.freshUntil) return cached
    const failed = this.#failures.get(href)
    if (failed !== undefined && now < failed.until) return failed.problem
    let pending = this.#inFlight.get(href)
    if (pending === undefined) {
      pending = this.#fetch(url, href, cached, now).finally(() => this.#inFlight.delete(href))
      this.#inFlight.set(href, pending)
    }
    return pending
  }

  async #fetch(url: URL, href: string, cached: Cached | undefined, now: number): Promise<HeldList | StatusProblem> {
    const { timeoutMs, maxBytes } = this.options
    const fetched = await fetchStatusList(url, this.#origins, {
      timeoutMs,
      maxBytes,
      ...(cached?.etag !== undefined && { etag: cached.etag }),
    })
    if ('reason' in fetched) {
      const { negativeCacheMs } = this.options
      const kept = `${fetched.error} (not asked again for ${negativeCacheMs} ms: statusLists.negativeCacheMs)`
      if (negativeCacheMs > 0) this.#failures.set(href, { problem: { ...fetched, error: kept }, until: now + negativeCacheMs })
      return fetched
    }
    const freshUntil = now + Math.min(fetched.maxAgeSeconds, MAX_AGE_CAP_SECONDS) * 1000
    const next: Cached =
      fetched.kind === 'unchanged'
        ? { ...cached!, freshUntil }
        : { credential: fetched.credential, version: versionOf(href, fetched.credential), etag: fetched.etag, freshUntil }
    this.#cache.set(href, next)
    return next
  }
}

/** A version naming the list's URL and content (a digest: an ETag is the origin's word, the content is what is verified). */
function versionOf(href: string, credential: string | Record<string, unknown>): string {
  const text = typeof credential === 'string' ? credential : JSON.stringify(credential)
  return `${href} ${createHash('sha256').update(text).digest('base64url')}`
}
