/**
 * The Express router: the routes of the operation contracts (`src/operations/contracts.ts`) mapped onto
 * an {@link IdentityService}. For each request the headers are authenticated first — an
 * unknown or missing token is answered at once, before the body is received or parsed —
 * then the body (or query) goes to the operation, and the result or error body goes back
 * as JSON. No business rule lives here.
 */
import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express'
import type { AuthContext } from '../auth/context.js'
import type { z } from 'zod'
import { IdentityError } from '../errors.js'
import type { ErrorStatus, OperationContract } from '../operations/contract.js'
import type { AuthenticatedCall } from '../service/dispatcher.js'
import { CONTRACTS, type OperationName } from '../service/contracts.js'
import { checkJsonText } from '../operations/check-json-text.js'
import { operationOf, routesOf, type SharedRoute } from '../operations/routes.js'
import type { IdentityService } from '../service/identity-service.js'
import { cors, type CorsOptions } from './cors.js'
import { httpError } from './errors.js'
import { openApiDocument } from './openapi.js'
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

const authOf = (req: Request, res: Response): AuthContext => ({
  authorization: req.get('authorization') ?? undefined,
  didAuth: req.get('x-did-auth') ?? undefined,
  requestId: (res.locals as Locals).requestId,
})

/** Where the authenticated call waits for its body, beside what loggers may read of the request. */
interface Locals extends RequestFacts {
  didvaultCall?: AuthenticatedCall
  /** The route the request's path names (set before Express decodes its parameters, {@link claim}). */
  route?: SharedRoute<OperationName>
  /** The media type `Accept` chose among the operation's (`media` of its contract). */
  mediaType?: string
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
  (service: IdentityService, route: SharedRoute<OperationName>): RequestHandler =>
  async (req, res, next) => {
    const locals = res.locals as Locals
    locals.operation = route.operations[0].name
    try {
      locals.didvaultCall = await service.dispatcher.authenticate(locals.operation, authOf(req, res))
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
  (route: SharedRoute<OperationName>): RequestHandler =>
  async (req, res, next) => {
    try {
      const input = route.method === 'get' ? { ...(req.query as Record<string, unknown>) } : ((req.body as unknown) ?? {})
      const name = operationOf(route, input)
      ;(res.locals as Locals).operation = name
      // A body's text was checked against the request bounds before it was parsed (checkedJson).
      const inputChecked = route.method !== 'get'
      const contract: Contract = CONTRACTS[name]
      if (contract.media) (res.locals as Locals).mediaType = negotiate(req, Object.keys(contract.media))
      const result = await (res.locals as Locals).didvaultCall!.for(name).run(input, { ...req.params }, { inputChecked })
      if (contract.document === true) serveDocument(req, res, result as ServedDocument)
      else sendResult(res, contract, contract.outcome?.status(result) ?? 200, result)
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
 * yet still reaches {@link claim} of its route.
 */
function undecoded(path: string): RegExp {
  const parts = path.split(/(:\w+)/).map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
  return new RegExp(`^${parts.join('')}/?$`, 'i')
}

/** Records the route a request's path names before Express decodes its parameters, so its errors are answered as that route's. */
const claim =
  (route: SharedRoute<OperationName>): RequestHandler =>
  (_req, res, next) => {
    ;(res.locals as Locals).route = route
    next()
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
  if (status === 200) {
    const media = chosen === undefined ? undefined : contract.media?.[chosen]
    if (chosen !== undefined) res.set('content-type', chosen)
    res.status(200).json(media?.select ? media.select(result) : result)
    return
  }
  const declared = contract.errors[status as ErrorStatus]
  const types = (typeof declared === 'object' && declared.mediaTypes) || ['application/json']
  res.set('content-type', chosen !== undefined && types.includes(chosen) ? chosen : types[0])
  res.status(status).json(result)
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

/** Bodies must be JSON: a non-empty body of another content type is 422. */
function requireJson(req: Request, _res: Response, next: NextFunction) {
  const length = Number(req.get('content-length') ?? 0)
  const chunked = req.get('transfer-encoding') !== undefined
  if ((length > 0 || chunked) && !req.is('application/json')) {
    return next(new IdentityError('VALIDATION_ERROR', 'Content-Type must be application/json'))
  }
  next()
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
  const router = express.Router()
  router.use(identify)
  if (options.cors) router.use(cors(options.cors))
  const json = checkedJson(options.bodyLimit ?? '1mb', service.config.limits.depth)

  for (const route of routesOf(CONTRACTS)) {
    const body = route.method === 'get' ? [] : [requireJson, json]
    router[route.method](undecoded(route.path), claim(route))
    router[route.method](route.path, authenticate(service, route), ...body, run(route))
  }

  if (options.openApiRoute !== false) {
    let document: unknown
    router.get('/openapi.json', (_req, res) => {
      document ??= openApiDocument()
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
    const outcome = operation === undefined ? undefined : (CONTRACTS[operation] as Contract).outcome
    if (outcome) {
      const { status, result } = outcome.fromError(
        err instanceof IdentityError
          ? err
          : unrouted && (err as ExpressError).status === 400
            ? new IdentityError(
                'VALIDATION_ERROR',
                `invalid request: ${/:(\w+)/.exec(unrouted.path)?.[1] ?? 'path'}: not valid percent-encoded UTF-8`,
              )
            : IdentityError.fromBody(httpError(err)),
      )
      return sendResult(res, CONTRACTS[operation!], status, result)
    }
    const body = httpError(err)
    const text = JSON.stringify(body)
    // Written as is (no ETag to hash): a flood of refused requests costs as little as it can.
    res.writeHead(body.statusCode, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
      // Refused before its body was read (authentication, content type, size): close the connection
      // rather than receive and discard the rest of the body to keep it alive.
      ...(req.complete ? {} : { connection: 'close' }),
      // Storage (or an HSM) unreachable: worth another try shortly (DESIGN §3).
      ...(body.statusCode === 503 && { 'retry-after': RETRY_AFTER_SECONDS }),
    })
    res.end(text)
  })
  return router
}
