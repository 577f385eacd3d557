/**
 * `createClient`: the operations of a `didvault serve` (or of any app mounting `createRouter`)
 * as methods, generated from the same contracts as the service, so each has the name, input and
 * result type of `service.as(auth).<name>` and rejects with the same `IdentityError`.
 */
import type { AuthContext } from '../auth/context.js'
import type { z } from 'zod'
import type { BoundOperations, ClientContracts, Contracts, OperationContract } from '../operations/contract.js'
import { CLIENT_CONTRACTS } from '../service/client-contracts.js'
import { IdentityError } from '../errors.js'
import { httpRequestOf, type HttpRequest } from './http-request.js'
import { documentOutcomeOf, outcomeOf, resultOutcomeOf } from './http-response.js'
import { TransportError } from './transport-error.js'

type Contract = OperationContract<z.ZodObject, z.ZodType, z.ZodType>

/** The headers of a call, or a function giving them for each call (so tokens can be refreshed). */
export type AuthSource = AuthContext | (() => AuthContext | Promise<AuthContext>)

export interface ClientOptions {
  /** Where the routes are served: `http://127.0.0.1:8080`, or the mount point, e.g. `https://example.com/identity`. */
  baseUrl: string
  /** A Base Auth Token (an API key), sent as `Authorization: Bearer <apiKey>`. */
  apiKey?: string
  /** DID-auth token(s), comma-separated, sent as `x-did-auth`. */
  didAuth?: string
  /** Headers as `service.as` takes them, or a function returning them for each call; the fields it sets win over `apiKey` and `didAuth`. */
  auth?: AuthSource
  /** The `fetch` to use. Default: the global one (browsers, Node ≥ 18, Deno, Bun). */
  fetch?: typeof fetch
}

/**
 * The operations with the headers bound: the same methods, inputs and results as `IdentityService.as(auth)`, except
 * those whose clients are others (`client: false`: the OID4VCI endpoints wallets call).
 */
export type ClientOperations = BoundOperations<ClientContracts<typeof CLIENT_CONTRACTS>>

/** The OpenAPI 3.1 document the service publishes at `GET /openapi.json`. */
export interface OpenApiDocument {
  openapi: string
  info: { title: string; version: string; description?: string }
  paths: Record<string, Record<string, unknown>>
  components?: Record<string, unknown>
}

export type DidvaultClient = ClientOperations & {
  /**
   * The same operations with exactly these headers, like `service.as`:
   * `client.as({ authorization: 'Bearer <access JWT>' }).deleteClaims(…)`.
   */
  as(auth: AuthSource): ClientOperations
  /** The service's OpenAPI 3.1 document (no auth). */
  openApiDocument(): Promise<OpenApiDocument>
}

/**
 * A typed HTTP client of didvault's routes. Every call rejects with an `IdentityError` carrying
 * the service's error body (`statusCode`, `errorType`, `errorMessage`), or with a
 * {@link TransportError} when no answer of the service came back.
 */
export function createClient(options: ClientOptions): DidvaultClient {
  return clientOver(CLIENT_CONTRACTS, options)
}

/** @internal The client of the operations of `contracts` (the table, or in tests the table and operations of their own). */
export function clientOver<C extends Contracts>(
  contracts: C,
  options: ClientOptions,
): BoundOperations<ClientContracts<C>> & {
  as(auth: AuthSource): BoundOperations<ClientContracts<C>>
  openApiDocument(): Promise<OpenApiDocument>
} {
  type Operations = BoundOperations<ClientContracts<C>>
  const base = options.baseUrl.replace(/\/+$/, '')
  const fetchFn: typeof fetch = options.fetch ?? ((input, init) => fetch(input, init))

  /** Sends `request` and reads the answer as `contract` says (a served document, results by media type, or JSON and error bodies). */
  async function send(request: HttpRequest, auth: AuthContext, contract?: Contract): Promise<unknown> {
    const headers: Record<string, string> = {}
    // An operation with media types is asked for its first: the result, as the service method resolves to it.
    const media = Object.keys(contract?.media ?? {})
    if (media.length > 0) headers.accept = media[0]
    if (auth.authorization !== undefined) headers.authorization = auth.authorization
    if (auth.didAuth !== undefined) headers['x-did-auth'] = auth.didAuth
    if (request.body !== undefined) headers['content-type'] = 'application/json'
    const what = `${request.method} ${request.path.split('?')[0]}`
    let response: Response
    try {
      // Never followed: a redirect would carry the API key, DID-auth tokens and the body to wherever it points.
      response = await fetchFn(base + request.path, { method: request.method, headers, body: request.body, redirect: 'manual' })
    } catch (err) {
      throw new TransportError(`${what}: no response from ${base} (${err instanceof Error ? err.message : String(err)})`, { cause: err })
    }
    if (isRedirect(response)) throw redirectError(response, what)
    if (contract?.document === true) return documentOutcomeOf(response, what)
    return contract?.outcome ? resultOutcomeOf(response, what, contract) : outcomeOf(response, what)
  }

  /** The operations, each sending the headers of `source` over `defaults`. */
  const bind = (source: AuthSource, defaults: AuthContext = {}): Operations => {
    const operations: Record<string, (input?: unknown) => Promise<unknown>> = {}
    for (const name of Object.keys(contracts)) {
      const contract: Contract = contracts[name]
      // Endpoints of a protocol whose clients are others (wallets) are no methods.
      if (contract.client === false) continue
      operations[name] = async (input) => {
        // A public operation (DID resolution) is sent without the caller's headers.
        const auth = contract.auth === 'public' ? {} : { ...defaults, ...definedFields(await authOf(source)) }
        let request: HttpRequest
        try {
          request = httpRequestOf(contract, input ?? {})
        } catch (err) {
          // A path parameter refused before sending: an operation answering results answers this as one too.
          if (contract.outcome && err instanceof IdentityError) return contract.outcome.fromError(err).result
          throw err
        }
        return send(request, auth, contract)
      }
    }
    return operations as Operations
  }

  const defaults: AuthContext = {
    ...(options.apiKey !== undefined && { authorization: `Bearer ${options.apiKey}` }),
    ...(options.didAuth !== undefined && { didAuth: options.didAuth }),
  }
  return Object.assign(bind(options.auth ?? {}, defaults), {
    as: (auth: AuthSource) => bind(auth),
    openApiDocument: () => send({ method: 'GET', path: '/openapi.json' }, {}) as Promise<OpenApiDocument>,
  })
}

/** A redirect answered instead of followed: a 3xx, or a browser's opaque one (`redirect: 'manual'` hides its status). */
function isRedirect(response: Response): boolean {
  return response.type === 'opaqueredirect' || [301, 302, 303, 307, 308].includes(response.status)
}

function redirectError(response: Response, what: string): TransportError {
  const location = response.headers.get('location')
  const to = location === null ? '' : ` to ${originOf(location, response.url)}`
  return new TransportError(
    `${what}: the server answered a redirect${to}; didvault's client follows none ` +
      `(credentials and the body would go with it): set baseUrl to where the service is`,
    { status: response.status === 0 ? undefined : response.status },
  )
}

/** The origin a `Location` points to (never its path or query, which may carry anything). */
function originOf(location: string, base: string): string {
  try {
    return new URL(location, base || undefined).origin
  } catch {
    return 'an address that does not parse'
  }
}

async function authOf(source: AuthSource): Promise<AuthContext> {
  return typeof source === 'function' ? source() : source
}

/** The fields of `auth` that are set (an `undefined` field does not unset a default). */
function definedFields(auth: AuthContext): AuthContext {
  return Object.fromEntries(Object.entries(auth).filter(([, value]) => value !== undefined))
}
