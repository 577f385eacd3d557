/**
 * Resolution of did:web DIDs the service does not hold: the document fetched from the URL the
 * DID names ({@link didWebUrl}), only when its origin is one the operator allows
 * (`didWebOrigins`), through the one fetch helper of outside documents ({@link fetchAllowed}:
 * https — loopback http never matches a did:web URL —, a timeout, a size cap, no redirects) and
 * under a per-request budget ({@link RequestFetches}: each document read once per request, a cap
 * on distinct documents, one deadline). A DID under the service's own `publicUrl` is never
 * fetched: it is answered by `own` (the service's storage), or not found. Every failure is a
 * resolution result naming why (`invalidDid`, `notFound`), never a throw.
 */
import type { DIDDocument, DIDResolutionResult, Resolvable } from 'did-resolver'
import { fetchAllowed } from '../../../net/allowed-fetch.js'
import { AllowedOrigins } from '../../../net/allowed-origins.js'
import { Exceeded, RequestFetches } from '../../../net/request-fetches.js'
import { didOfDidUrl, didWebUrl } from './did-web-url.js'

/** Options of {@link DidWebResolver}. */
export interface DidWebResolverOptions {
  /** Origins (`https://host[:port]`) documents may be fetched from (`didWebOrigins`). Default: none. */
  origins?: readonly string[]
  /** The service's public base URL: a DID whose document URL is under it is the service's own, never fetched. */
  publicUrl?: string
  /** Resolves the service's own did:web DIDs from its storage; absent: they are not found. */
  own?: Resolvable
  /** Longest wait for a document, ms (default 5 s). */
  timeoutMs?: number
  /** Largest document read, bytes (default 256 KiB). */
  maxBytes?: number
  /** Most distinct documents one request fetches (default 8). */
  maxDocumentsPerRequest?: number
  /** One deadline for all the documents a request fetches, ms from its first (default 10 s). */
  requestDeadlineMs?: number
}

const ACCEPT = 'application/did+ld+json, application/did+json;q=0.9, application/json;q=0.5'
const SETTING = 'didWebOrigins'

const failure = (error: 'invalidDid' | 'notFound', message: string): DIDResolutionResult => ({
  didResolutionMetadata: { error, message },
  didDocument: null,
  didDocumentMetadata: {},
})

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** did:web resolution of DIDs the service does not hold, from allowed origins only. */
export class DidWebResolver {
  readonly #origins: AllowedOrigins
  readonly #publicUrl: string | undefined
  readonly #timeoutMs: number
  readonly #maxBytes: number
  readonly #maxDocuments: number
  readonly #deadlineMs: number

  /** @throws {TypeError} an origin that is not https (or http on loopback) naming `didWebOrigins`, or a bad bound */
  constructor(readonly options: DidWebResolverOptions = {}) {
    this.#origins = new AllowedOrigins(SETTING, options.origins ?? [])
    // Without its scheme: a did:web names a host and path, which are the service's whatever scheme it is reached by.
    this.#publicUrl = options.publicUrl?.replace(/\/+$/, '').replace(/^https?:/, '')
    this.#timeoutMs = bound('timeoutMs', options.timeoutMs ?? 5_000)
    this.#maxBytes = bound('maxBytes', options.maxBytes ?? 256 * 1024)
    this.#maxDocuments = bound('maxDocumentsPerRequest', options.maxDocumentsPerRequest ?? 8)
    this.#deadlineMs = bound('requestDeadlineMs', options.requestDeadlineMs ?? 10_000)
  }

  /**
   * A resolver of one request: its fetches share one budget (`maxDocumentsPerRequest`,
   * `requestDeadlineMs`); give every resolution of the request to it.
   */
  forRequest(fetches = new RequestFetches({ maxKeys: this.#maxDocuments, deadlineMs: this.#deadlineMs })): Resolvable {
    return { resolve: (didUrl) => this.#resolve(didUrl, fetches) }
  }

  async #resolve(didUrl: string, fetches: RequestFetches): Promise<DIDResolutionResult> {
    const did = didOfDidUrl(didUrl)
    const url = didWebUrl(did)
    if (!(url instanceof URL)) return failure('invalidDid', `did:web: ${url.invalid}`)
    if (this.#publicUrl !== undefined && url.href.slice('https:'.length).startsWith(`${this.#publicUrl}/`)) return this.#resolveOwn(didUrl)
    if (!this.#origins.allows(url)) return failure('notFound', `did:web: origin ${url.origin} is not allowed (${SETTING})`)
    const read = await fetches.get(`did:web ${url.href}`, () => this.#fetch(did, url))
    if (!(read instanceof Exceeded)) return read
    return failure(
      'notFound',
      read.limit === 'maxKeys'
        ? `did:web: this request already read ${fetches.limits.maxKeys} did:web documents (maxDocumentsPerRequest)`
        : `did:web: the request’s did:web reads took longer than ${fetches.limits.deadlineMs} ms (requestDeadlineMs)`,
    )
  }

  async #resolveOwn(didUrl: string): Promise<DIDResolutionResult> {
    const notOwn = failure('notFound', 'did:web: under the service’s publicUrl and not among its DIDs')
    if (this.options.own === undefined) return notOwn
    try {
      return await this.options.own.resolve(didUrl)
    } catch {
      return notOwn
    }
  }

  async #fetch(did: string, url: URL): Promise<DIDResolutionResult> {
    const fetched = await fetchAllowed(url, this.#origins, { accept: ACCEPT, timeoutMs: this.#timeoutMs, maxBytes: this.#maxBytes })
    // No ETag is sent, so there is no 304 to expect: `unchanged` cannot come.
    if ('failure' in fetched || fetched.kind === 'unchanged') {
      if (!('failure' in fetched)) return failure('notFound', `did:web: ${url.href}: HTTP 304 to a request without a version`)
      if (fetched.failure === 'originNotAllowed') return failure('notFound', `did:web: origin ${url.origin} is not allowed (${SETTING})`)
      const why = fetched.failure === 'tooLarge' ? `the document is larger than ${this.#maxBytes} bytes` : fetched.why
      return failure('notFound', `did:web: ${url.href}: ${why}`)
    }
    let document: unknown
    try {
      document = JSON.parse(fetched.text)
    } catch {
      return failure('notFound', `did:web: ${url.href}: not a JSON document`)
    }
    if (!isObject(document)) return failure('notFound', `did:web: ${url.href}: not a JSON object`)
    if (document.id !== did) return failure('notFound', `did:web: ${url.href}: the document’s id is not ${did}`)
    const contentType = document['@context'] === undefined ? 'application/did+json' : 'application/did+ld+json'
    return { didResolutionMetadata: { contentType }, didDocument: document as unknown as DIDDocument, didDocumentMetadata: {} }
  }
}

/** `value` when it is a positive integer. @throws {TypeError} naming the option otherwise */
function bound(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new TypeError(`didWeb.${name}: must be a positive integer`)
  return value
}
