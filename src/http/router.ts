/**
 * The Express router: the routes of the operation contracts (`src/operations/contracts.ts`) mapped onto
 * an {@link IdentityService}. For each request the headers are authenticated first — an
 * unknown or missing token is answered at once, before the body is received or parsed —
 * then the body (or query) goes to the operation, and the result or error body goes back
 * as JSON (an OAuth error body for operations declaring `errorFormat: 'oauth'`). No business rule lives here.
 */
import type { OutgoingHttpHeaders } from 'node:http'
import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express'
import type { AuthContext } from '../auth/context.js'
import type { z } from 'zod'
import { IdentityError } from '../errors.js'
import { MOUNT, type BodyType, type Contracts, type ErrorStatus, type OperationContract } from '../operations/contract.js'
import type { AuthenticatedCall, OperationDispatcher } from '../service/dispatcher.js'
import { CONTRACTS, type OperationName } from '../service/contracts.js'
import { toOAuthError, type OAuthError } from '../oid4vci/oauth-error.js'
import { invalid } from '../errors.js'
import { checkJsonText } from '../operations/check-json-text.js'
import { operationOf, routesOf, type SharedRoute } from '../operations/routes.js'
import type { IdentityService } from '../service/identity-service.js'
import { cors, type CorsOptions } from './cors.js'
import { httpError } from './errors.js'
import { openApiDocumentOf } from './openapi.js'
import { requestIdOf, type RequestFacts } from './request-facts.js'

export interface RouterOptions {
  /** Largest JSON body accepted (bytes or a size string like `'1mb'`). Default 1 MiB; larger bodies get 413. */
  bodyLimit?: number | string
  /** Serve the OpenAPI 3.1 document at `GET /openapi.json` (no auth). Default true. */
  openApiRoute?: boolean
  /**
   * Browser pages of these origins may call the routes (CORS: preflights answered, the exact origin
   * echoed); other origins get no CORS header, so browsers refuse them. Default: no origin.
   */
  cors?: CorsOptions
}

/** Options of {@link createWellKnownRouter}. */
export type WellKnownRouterOptions = Pick<RouterOptions, 'bodyLimit' | 'cors'>

/** What the router needs of the service: its dispatcher and configuration. */
interface Served {
  dispatcher: OperationDispatcher
  config: Readonly<{ publicUrl?: string; limits: { depth: number } }>
}

/** The request's headers, and what authenticators of protocol modules read of it besides (method, public URL, path parameters). */
function authOf(req: Request, res: Response, publicUrl?: string): AuthContext {
  const { route } = res.locals as Locals
  return {
    authorization: req.get('authorization') ?? undefined,
    didAuth: req.get('x-did-auth') ?? undefined,
    requestId: (res.locals as Locals).requestId,
    dpop: req.get('dpop') ?? undefined,
    method: req.method,
    url: publicUrlOf(req, publicUrl, route?.root === true),
    params: { ...(req.params as Record<string, string>) },
  }
}

/**
 * The URL of the request as the public sees it, without its query: `publicUrl` and the path under the mount (a root
 * route: `publicUrl`'s origin and the whole path); without `publicUrl`, the URL the request names.
 */
function publicUrlOf(req: Request, publicUrl: string | undefined, root: boolean): string | undefined {
  const path = (root ? req.originalUrl : req.url).split('?')[0]
  if (publicUrl !== undefined) return root ? new URL(publicUrl).origin + path : publicUrl.replace(/\/+$/, '') + path
  const host = req.get('host')
  return host === undefined ? undefined : `${req.protocol}://${host}${req.originalUrl.split('?')[0]}`
}

/** Where the authenticated call waits for its body, beside what loggers may read of the request. */
interface Locals extends RequestFacts {
  didvaultCall?: AuthenticatedCall
  /** The route the request's path names (set before Express decodes its parameters, {@link claimRoutes}). */
  route?: SharedRoute<OperationName>
  /** The media type `Accept` chose among the operation's (`media` of its contract). */
  mediaType?: string
  /** The body was a form (`application/x-www-form-urlencoded`): its fields are still to be checked against the request bounds. */
  formBody?: boolean
}

/** Gives the request its id (unless a middleware before did) and returns it in `x-request-id`. */
function identify(req: Request, res: Response, next: NextFunction) {
  const locals = res.locals as Locals
  if (locals.requestId === undefined) {
    locals.requestId = requestIdOf(req.headers['x-request-id'] as string | undefined)
    res.setHeader('x-request-id', locals.requestId)
  }
  next()
}

/**
 * Authenticates the request's headers for the route's operations (they ask the same of them); on
 * failure the error is answered without reading the body.
 */
const authenticate =
  (service: Served, route: SharedRoute<OperationName>): RequestHandler =>
  async (req, res, next) => {
    const locals = res.locals as Locals
    locals.operation = route.operations[0].name
    try {
      locals.didvaultCall = await service.dispatcher.authenticate(locals.operation, authOf(req, res, service.config.publicUrl))
      locals.tenantId = locals.didvaultCall.tenantId
      next()
    } catch (err) {
      next(err)
    }
  }

/**
 * Runs the authenticated call — of the operation the body names, on a shared route — with the
 * body (or a GET's query) and the path parameters, and answers 200 with its result.
 */
const run =
  (route: SharedRoute<OperationName>, contracts: Contracts): RequestHandler =>
  async (req, res, next) => {
    try {
      const input = route.method === 'get' ? { ...(req.query as Record<string, unknown>) } : ((req.body as unknown) ?? {})
      const name = operationOf(route, input)
      ;(res.locals as Locals).operation = name
      // A JSON body's text was checked against the request bounds before it was parsed (checkedJson); a form's fields were not.
      const inputChecked = route.method !== 'get' && (res.locals as Locals).formBody !== true
      const contract: Contract = contracts[name]
      if (contract.media) (res.locals as Locals).mediaType = negotiate(req, Object.keys(contract.media))
      const result = await (res.locals as Locals).didvaultCall!.for(name).run(input, { ...req.params }, { inputChecked })
      if (contract.document === true) serveDocument(req, res, result as ServedDocument)
      else if (contract.redirect === true) redirectTo(res, (result as { location: string }).location)
      else sendResult(res, contract, contract.outcome?.status(result) ?? successStatusOf(contract, result), result)
    } catch (err) {
      next(err)
    }
  }

type Contract = OperationContract<z.ZodObject, z.ZodType, z.ZodType>

/** An error Express raised itself, with its HTTP status (a path parameter it could not decode is 400). */
interface ExpressError {
  status?: number
}

/**
 * A route's path as a RegExp that captures nothing, so Express matches it without decoding a parameter: a request
 * whose parameter is not valid percent-encoded UTF-8 fails in Express's routing, before the route's own handlers run,
 * yet still reaches {@link claimRoutes} for its route.
 */
function undecoded(path: string, mount: string): RegExp {
  const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  const parts = path
    .split(/(:\w+|\{mount\})/)
    .map((part) => (part === MOUNT ? literal(mount) : part.startsWith(':') ? '[^/]+' : literal(part)))
  return new RegExp(`^${parts.join('')}/?$`, 'i')
}

/**
 * Records the route a request's method and path name before Express decodes its parameters, so its errors are
 * answered as that route's: one layer testing every route's undecoded pattern (the last that matches wins, as it
 * did with a claiming layer per route), rather than a layer per route for each request to walk.
 */
function claimRoutes(routes: ReadonlyArray<SharedRoute<OperationName>>, mount: string): RequestHandler {
  const claims = routes.map((route) => ({ route, method: route.method.toUpperCase(), pattern: undecoded(route.path, mount) }))
  return (req, res, next) => {
    // Express answers HEAD with a GET route.
    const method = req.method === 'HEAD' ? 'GET' : req.method
    for (const { route, method: routeMethod, pattern } of claims) {
      if (routeMethod === method && pattern.test(req.path)) (res.locals as Locals).route = route
    }
    next()
  }
}

/** The media type of `types` that `Accept` prefers (the first when it admits any); 406 when it admits none. */
function negotiate(req: Request, types: string[]): string {
  const chosen = req.accepts(types)
  if (chosen === false) {
    throw new IdentityError('VALIDATION_ERROR', `representationNotSupported: Accept admits none of ${types.join(', ')}`, 406)
  }
  return chosen
}

/**
 * Answers `result` at `status`: a 200 in the media type `Accept` chose (its body selected from the result), another
 * status in the media types its contract declares for it (the chosen one when it is among them).
 */
function sendResult(res: Response, contract: Contract, status: number, result: unknown): void {
  const chosen = (res.locals as Locals).mediaType
  if (contract.media) res.vary('Accept')
  if (status === 503) res.set('retry-after', RETRY_AFTER_SECONDS)
  if (status === (contract.successStatus ?? 200) || (status === 202 && contract.acceptedWhen !== undefined)) {
    if (contract.responseHeaders) res.set(contract.responseHeaders(result))
    if (contract.noContent === true) {
      res.status(204).end()
      return
    }
    if (chosen === undefined && res.req.method !== 'GET' && res.req.method !== 'HEAD') {
      writeJson(res, status, result)
      return
    }
    const media = chosen === undefined ? undefined : contract.media?.[chosen]
    if (chosen !== undefined) res.set('content-type', chosen)
    res.status(status).json(media?.select ? media.select(result) : result)
    return
  }
  const declared = contract.errors[status as ErrorStatus]
  const types = (typeof declared === 'object' && declared.mediaTypes) || ['application/json']
  res.set('content-type', chosen !== undefined && types.includes(chosen) ? chosen : types[0])
  res.status(status).json(result)
}

/**
 * Answers `body` as JSON with its length and `headers`, written as is: without the ETag `res.json` computes over every
 * answer, a hash of the body that only a conditional GET can use (answers to other requests, and refusals).
 */
function writeJson(res: Response, status: number, body: unknown, headers: OutgoingHttpHeaders = {}): void {
  const text = JSON.stringify(body) ?? ''
  res.writeHead(status, { ...headers, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) })
  res.end(text)
}

/** The status of a success: 202 when the contract says the result is accepted for later (`acceptedWhen`). */
function successStatusOf(contract: Contract, result: unknown): number {
  if (contract.acceptedWhen?.(result) === true) return 202
  return contract.successStatus ?? 200
}

/** Redirects the user agent (`redirect: true`): 302 Found, no body, never cached (the location may carry a code). */
function redirectTo(res: Response, location: string): void {
  res.set('cache-control', 'no-store')
  res.status(302).location(location).end()
}

/** The result of an operation whose contract serves a document (`document: true`). */
interface ServedDocument {
  document: string | object
  contentType: string
  etag: string
  maxAge: number
}

/** Answers with the document itself, its type, ETag and cache lifetime; 304 when the caller has that ETag. */
function serveDocument(req: Request, res: Response, served: ServedDocument): void {
  res.set('ETag', served.etag)
  res.set('Cache-Control', `public, max-age=${served.maxAge}`)
  const known = (req.get('if-none-match') ?? '').split(',').map((tag) => tag.trim())
  if (known.includes(served.etag) || known.includes('*')) {
    res.status(304).end()
    return
  }
  const body = typeof served.document === 'string' ? served.document : JSON.stringify(served.document)
  res.status(200).type(served.contentType).send(body)
}

/** Bodies must be of the route's media types (JSON unless its contract says otherwise): a non-empty body of another is 422. */
const requireType =
  (types: BodyType[]): RequestHandler =>
  (req, _res, next) => {
    const length = Number(req.get('content-length') ?? 0)
    const chunked = req.get('transfer-encoding') !== undefined
    if ((length > 0 || chunked) && !req.is(types)) {
      return next(new IdentityError('VALIDATION_ERROR', `Content-Type must be ${types.join(' or ')}`))
    }
    next()
  }

const FORM = 'application/x-www-form-urlencoded'

/**
 * The form body parser (`application/x-www-form-urlencoded`, UTF-8 only, the same byte limit as JSON): the body
 * becomes an object of strings — no nesting or arrays, and a parameter given twice is refused (422, or
 * `invalid_request`). Its fields are checked against the request bounds by the dispatcher.
 */
function formBody(limit: number | string): RequestHandler[] {
  const text = express.text({
    limit,
    type: FORM,
    verify: (_req, _res, _bytes, encoding) => {
      if (encoding !== 'utf-8' && encoding !== 'utf8')
        throw Object.assign(new Error('unsupported charset'), { type: 'charset.unsupported' })
    },
  })
  const fields: RequestHandler = (req, res, next) => {
    if (typeof req.body !== 'string' || !req.is(FORM)) return next()
    const seen = new Map<string, string>()
    for (const [name, value] of new URLSearchParams(req.body)) {
      if (seen.has(name)) return next(invalid(`${name}: a parameter may be given once`))
      seen.set(name, value)
    }
    // Own properties even for `__proto__` (fromEntries defines them), never the prototype.
    req.body = Object.fromEntries(seen)
    ;(res.locals as Locals).formBody = true
    next()
  }
  return [text, fields]
}

/** The media types a route's body may be sent in: those its operations declare (JSON by default). */
function bodyTypesOf(route: SharedRoute<OperationName>, contracts: Contracts): BodyType[] {
  return [...new Set(route.operations.flatMap((o) => contracts[o.name].bodyTypes ?? ['application/json' as const]))]
}

/**
 * The JSON body parser: the text is checked against the request bounds — nesting at most
 * `depth` (`limits.depth`), no U+0000 or lone surrogate in a string — before `JSON.parse`
 * builds it, so neither time nor stack grows with a body's nesting. UTF-8 only (RFC 8259 §8.1):
 * the check reads bytes, and another charset is 422 like any unsupported one.
 */
function checkedJson(limit: number | string, depth: number): RequestHandler {
  return express.json({
    limit,
    strict: true,
    type: 'application/json',
    verify: (_req, _res, bytes, encoding) => {
      if (encoding !== 'utf-8' && encoding !== 'utf8')
        throw Object.assign(new Error('unsupported charset'), { type: 'charset.unsupported' })
      checkJsonText(bytes, depth)
    },
  })
}

/** `Retry-After` of a 503 `SERVICE_UNAVAILABLE`: a retry within seconds is cheap, and finds the storage back or fails fast. */
const RETRY_AFTER_SECONDS = '1'

/** Creates the router; mount it where you like: `app.use('/identity', createRouter(service))`. */
export function createRouter(service: IdentityService, options: RouterOptions = {}): Router {
  return routerOver(service, CONTRACTS, options)
}

/**
 * Creates the router of the routes served from the host root (the inserted well-known locations of RFC 8414 §3.1,
 * `/.well-known/openid-credential-issuer/<publicUrl path>/oid4vci/<issuer>`), which a router mounted under a path
 * cannot answer: `app.use(createWellKnownRouter(service))`, beside `app.use('/identity', createRouter(service))`.
 * Their paths take the path of the service's `publicUrl`.
 */
export function createWellKnownRouter(service: IdentityService, options: WellKnownRouterOptions = {}): Router {
  return routerOver(service, CONTRACTS, { ...options, openApiRoute: false }, 'root')
}

/**
 * @internal The router of the routes of `contracts` (the table, or in tests the table and operations of their own,
 * which `service.dispatcher` must run): those under the mount, or (`'root'`) those served from the host root.
 */
export function routerOver(service: Served, contracts: Contracts, options: RouterOptions = {}, which: 'mount' | 'root' = 'mount'): Router {
  const router = express.Router()
  router.use(identify)
  if (options.cors) router.use(cors(options.cors))
  const limit = options.bodyLimit ?? '1mb'
  const json = checkedJson(limit, service.config.limits.depth)
  const form = formBody(limit)
  const mount = which === 'root' ? mountPathOf(service.config.publicUrl) : ''

  const routes = (routesOf(contracts) as Array<SharedRoute<OperationName>>).filter((route) => (route.root === true) === (which === 'root'))
  // Every route is claimed before any is matched with its parameters: Express decodes a layer's parameters before it
  // checks the method, so the GET of a path that a POST shares (the OID4VP request_uri) would fail a POST's
  // undecodable parameter before the POST's claim ran.
  router.use(claimRoutes(routes, mount))
  for (const route of routes) {
    const types = bodyTypesOf(route, contracts)
    const body =
      route.method === 'get'
        ? []
        : [requireType(types), ...(types.includes('application/json') ? [json] : []), ...(types.includes(FORM) ? form : [])]
    router[route.method](expressPath(route.path, mount), authenticate(service, route), ...body, run(route, contracts))
  }

  if (which === 'mount' && options.openApiRoute !== false) {
    let document: unknown
    router.get('/openapi.json', (_req, res) => {
      document ??= openApiDocumentOf(contracts)
      res.status(200).json(document)
    })
  }

  // Errors of this router only (authentication, body parsing, operations); other routes of the app are untouched.
  router.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    // An operation whose answers are all results (DID resolution) answers its errors as results too, even those
    // Express raised while routing, before the route's handlers ran (the route was claimed by its path).
    const { operation: handled, route } = res.locals as Locals
    const unrouted = handled === undefined ? route : undefined
    const operation = handled ?? unrouted?.operations[0].name
    const contract = operation === undefined ? undefined : (contracts[operation] as Contract)
    const error = (): IdentityError =>
      err instanceof IdentityError
        ? err
        : unrouted && (err as ExpressError).status === 400
          ? new IdentityError(
              'VALIDATION_ERROR',
              `invalid request: ${/:(\w+)/.exec(unrouted.path)?.[1] ?? 'path'}: not valid percent-encoded UTF-8`,
            )
          : IdentityError.fromBody(httpError(err))
    if (contract?.outcome) {
      const { status, result } = contract.outcome.fromError(error())
      return sendResult(res, contract, status, result)
    }
    // Errors of operations answering OAuth errors (the dispatcher made theirs OAuthErrors already; the body parsers' not).
    if (contract?.errorFormat === 'oauth')
      return sendOAuthError(req, res, toOAuthError(error(), authOf(req, res, service.config.publicUrl)))
    const body = httpError(err)
    // Written as is (no ETag to hash): a flood of refused requests costs as little as it can.
    writeJson(res, body.statusCode, body, {
      // Refused before its body was read (authentication, content type, size): close the connection
      // rather than receive and discard the rest of the body to keep it alive.
      ...(req.complete ? {} : { connection: 'close' }),
      // Storage (or an HSM) unreachable: worth another try shortly (DESIGN §3).
      ...(body.statusCode === 503 && { 'retry-after': RETRY_AFTER_SECONDS }),
    })
  })
  return router
}

/**
 * An OAuth error answer: its status, `{ error, error_description, ... }`, its headers (`WWW-Authenticate`,
 * `DPoP-Nonce`) and `Cache-Control: no-store` (RFC 6749 §5.1); `Retry-After` on a 503.
 */
function sendOAuthError(req: Request, res: Response, error: OAuthError): void {
  writeJson(res, error.statusCode, error.oauthBody(), {
    ...error.headers,
    'cache-control': 'no-store',
    ...(req.complete ? {} : { connection: 'close' }),
    ...(error.statusCode === 503 && { 'retry-after': RETRY_AFTER_SECONDS }),
  })
}

/** The path of `publicUrl` where the router is mounted (no trailing slash; empty for a host root or no `publicUrl`). */
function mountPathOf(publicUrl: string | undefined): string {
  return publicUrl === undefined ? '' : new URL(publicUrl).pathname.replace(/\/+$/, '')
}

/** A route's path in Express's syntax: {@link MOUNT} replaced by `mount`, whose characters Express would read as syntax escaped. */
const expressPath = (path: string, mount: string) => path.split(MOUNT).join(mount.replace(/[{}()[\]+?!:*\\]/g, '\\$&'))
