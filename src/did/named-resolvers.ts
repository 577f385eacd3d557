/**
 * The DID resolvers credential operations may name in `resolver` (DESIGN §4 `resolver`):
 * `default` is the service's own — its registries for did:ethr, did:key and did:jwk computed
 * offline by their DID methods (`did/methods/`), and did:web from the origins the operator
 * allows (`didWebOrigins`) — and the `resolvers` option of `IdentityService.create` adds others by name, such
 * as {@link universalResolver}. A name that is not configured is 422; no caller ever chooses
 * a host.
 */
import { type DIDResolutionOptions, type DIDResolutionResult, type Resolvable } from 'did-resolver'
import { invalid } from '../errors.js'
import { DidWebResolver, OFFLINE_METHODS } from './methods/index.js'
import { readCappedText } from '../net/read-capped.js'

/** The name of the service's own resolver. */
export const DEFAULT_RESOLVER = 'default'

const NAME = /^[A-Za-z0-9_.-]{1,50}$/

/** A resolver chosen by name. */
export interface NamedResolver {
  name: string
  resolver: Resolvable
}

/** The configured resolvers, by name. */
export class ClaimResolvers {
  readonly #byName = new Map<string, Resolvable>()
  readonly #web: DidWebResolver

  /**
   * @param own - the service's own resolver (its registries); `default` adds did:key and did:jwk to it
   * @param extra - more resolvers by name; `default` cannot be replaced
   * @param web - `default`'s did:web resolution (default: none allowed, every did:web not found)
   * @throws {TypeError} a name that is `default` or not 1–50 letters, digits, `_`, `.`, `-`
   */
  constructor(own: Resolvable, extra: Record<string, Resolvable> = {}, web = new DidWebResolver()) {
    this.#web = web
    this.#byName.set(DEFAULT_RESOLVER, withOfflineMethods(own))
    for (const [name, resolver] of Object.entries(extra)) {
      if (name === DEFAULT_RESOLVER)
        throw new TypeError('resolvers: "default" is the service’s own resolver and cannot be replaced; give yours another name')
      if (!NAME.test(name))
        throw new TypeError(`resolvers: invalid name ${JSON.stringify(name.slice(0, 60))} (1–50 letters, digits, _ . -)`)
      if (typeof resolver?.resolve !== 'function')
        throw new TypeError(`resolvers.${name}: must have a resolve(did) method (a did-resolver Resolvable)`)
      this.#byName.set(name, resolver)
    }
  }

  /** The names configured, `default` first. */
  get names(): string[] {
    return [...this.#byName.keys()]
  }

  /**
   * The resolver named `name` (default: `default`) for one request: `default`'s did:web reads share
   * one budget per call; 422 for a name not configured.
   */
  get(name: string = DEFAULT_RESOLVER): NamedResolver {
    const resolver = this.#byName.get(name)
    if (!resolver) throw invalid(`resolver: unknown resolver ${JSON.stringify(name.slice(0, 60))} (configured: ${this.names.join(', ')})`)
    return { name, resolver: name === DEFAULT_RESOLVER ? withDidWeb(resolver, this.#web.forRequest()) : resolver }
  }
}

/** `own`, with the DIDs of the methods derived from their key (did:key, did:jwk) resolved offline; every other DID goes to `own`. */
function withOfflineMethods(own: Resolvable): Resolvable {
  return {
    resolve: (didUrl, options) => {
      const method = OFFLINE_METHODS.find((m) => didUrl.startsWith(`did:${m.name}:`))
      return method ? method.resolve(didUrl, options) : own.resolve(didUrl, options)
    },
  }
}

/** `other`, with did:web DIDs resolved by `web`. */
function withDidWeb(other: Resolvable, web: Resolvable): Resolvable {
  return { resolve: (didUrl, options) => (didUrl.startsWith('did:web:') ? web.resolve(didUrl, options) : other.resolve(didUrl, options)) }
}

/** Options of {@link universalResolver}. */
export interface UniversalResolverOptions {
  /** Base URL of the endpoint; DIDs are resolved at `<url>/1.0/identifiers/<did>`. */
  url: string
  /** Longest wait for an answer, ms (default 10 s). */
  timeoutMs?: number
  /** Largest answer read, bytes (default 1 MiB). */
  maxBytes?: number
}

/**
 * A did-resolver `Resolvable` over a DIF Universal Resolver endpoint (`GET
 * /1.0/identifiers/{did}`, as a Universal Resolver or a didvault router serves it). Failures
 * (unreachable, timeout, not found, a malformed answer) resolve to a result whose
 * `didResolutionMetadata.error` says why; nothing is thrown. Redirects are not followed.
 */
export function universalResolver(options: UniversalResolverOptions): Resolvable {
  const base = new URL(options.url)
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new TypeError('universalResolver: url must be http(s)')
  const root = base.href.replace(/\/+$/, '')
  const timeoutMs = options.timeoutMs ?? 10_000
  const maxBytes = options.maxBytes ?? 1024 * 1024
  return {
    async resolve(didUrl: string, _options?: DIDResolutionOptions): Promise<DIDResolutionResult> {
      const did = didUrl.split(/[#?]/)[0]
      let response: Response
      try {
        response = await fetch(`${root}/1.0/identifiers/${encodeURIComponent(did)}`, {
          headers: {
            accept:
              'application/did-resolution, application/ld+json;profile="https://w3id.org/did-resolution";q=0.9, application/json;q=0.5',
          },
          redirect: 'error',
          signal: AbortSignal.timeout(timeoutMs),
        })
      } catch (err) {
        const timedOut = err instanceof Error && err.name === 'TimeoutError'
        return failure(
          'internalError',
          timedOut ? `universal resolver: no answer within ${timeoutMs} ms` : 'universal resolver: unreachable',
        )
      }
      const body = await readJson(response, maxBytes)
      return resultOf(response.status, body)
    },
  }
}

function failure(error: string, message: string): DIDResolutionResult {
  return { didResolutionMetadata: { error, message }, didDocument: null, didDocumentMetadata: {} }
}

/** The JSON body, or undefined when it is not JSON or over `maxBytes`. */
async function readJson(response: Response, maxBytes: number): Promise<unknown> {
  const text = await readCappedText(response, maxBytes)
  if (!text) return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** The resolution error an HTTP status of the W3C binding stands for, when the body does not name one. */
const ERROR_OF_STATUS: Record<number, string> = {
  400: 'invalidDid',
  404: 'notFound',
  406: 'representationNotSupported',
  501: 'methodNotSupported',
}

/**
 * A resolution result from a Universal Resolver answer (W3C DID Resolution HTTP(S) binding): the result a body names,
 * its document at 200 and at 410 (a deactivated DID, `didDocumentMetadata.deactivated` set), its
 * `didResolutionMetadata.error` at any status; a body without a result is the error of its status (a didvault before
 * 0.3 answered its error body, whose message starts with the resolution error).
 */
function resultOf(status: number, body: unknown): DIDResolutionResult {
  const byStatus = ERROR_OF_STATUS[status] ?? 'internalError'
  if (!isObject(body)) return failure(byStatus, `universal resolver: HTTP ${status} without a JSON resolution result`)
  const metadata = isObject(body.didResolutionMetadata) ? body.didResolutionMetadata : {}
  if (typeof metadata.error === 'string') {
    return failure(metadata.error, typeof metadata.message === 'string' ? metadata.message : `universal resolver: ${metadata.error}`)
  }
  if ((status === 200 || status === 410) && isObject(body.didDocument) && typeof body.didDocument.id === 'string') {
    const documentMetadata = isObject(body.didDocumentMetadata) ? body.didDocumentMetadata : {}
    return {
      didResolutionMetadata: metadata,
      didDocument: body.didDocument as unknown as DIDResolutionResult['didDocument'],
      didDocumentMetadata: status === 410 ? { ...documentMetadata, deactivated: true } : documentMetadata,
    }
  }
  const named = typeof body.errorMessage === 'string' ? /^([A-Za-z]{1,40}): /.exec(body.errorMessage)?.[1] : undefined
  const error = named ?? (body.errorType === 'NOT_FOUND' ? 'notFound' : byStatus)
  return failure(error, `universal resolver: HTTP ${status} (${error})`)
}
