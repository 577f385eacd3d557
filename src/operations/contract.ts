/**
 * What an operation promises callers, apart from how it is carried out: summary, auth
 * requirement, routes, input and response schemas, batch field, example. The service, the
 * Express router, the OpenAPI document and the HTTP client (`didvault/client`) are all derived
 * from contracts. This module and the contracts import no Node built-in, crypto or storage code,
 * so the client bundles for browsers; `define.ts` pairs each contract with its handler.
 */
import type { z } from 'zod'
import type { AuthContext, AuthRequirement } from '../auth/context.js'
import type { IdentityError } from '../errors.js'

/** An HTTP route of an operation (Express path syntax: `:vaultID`). */
export interface Route {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete'
  path: string
  /**
   * On a route several operations share (`PATCH /claims`): the body field naming this one and its
   * value there (`{ field: 'operation', value: 'verify' }`). Routed through it, the field is required.
   */
  discriminator?: { field: string; value: string }
  /**
   * Served from the host root, not under the router's mount: `createWellKnownRouter` mounts exactly these routes
   * (`app.use(createWellKnownRouter(service))`), `createRouter` none of them. The path is absolute; {@link MOUNT}
   * in it stands for the path of the service's `publicUrl` (RFC 8414 §3.1's inserted well-known locations).
   */
  root?: true
}

/**
 * In the path of a {@link Route.root} route: the path of the service's `publicUrl` (`/identity` for
 * `https://issuer.example/identity`, empty for a host root), where the router is mounted.
 */
export const MOUNT = '{mount}'

/** A media type an operation's request body may be sent in. */
export type BodyType = 'application/json' | 'application/x-www-form-urlencoded'

/** The error statuses an operation may answer with. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 406 | 409 | 410 | 413 | 422 | 500 | 501 | 503

/**
 * An error answer whose body is not the spec's error body: a protocol's own (a DID resolution result, an OAuth
 * error), in its media types.
 */
export interface ErrorResponse {
  description: string
  /** The body at this status. */
  schema: z.ZodType
  /** Its media types (all JSON), the first the default; default `application/json`. */
  mediaTypes?: [string, ...string[]]
}

/**
 * What each error status of an operation means, for its callers (and the OpenAPI document): a description, when the
 * body is the spec's error body `{ statusCode, errorType, errorMessage }`, or an {@link ErrorResponse} with its own.
 */
export type ErrorResponses = Partial<Record<ErrorStatus, string | ErrorResponse>>

/**
 * A media type the 200 answer of an operation may be sent in (chosen by the request's `Accept`): a JSON body, the
 * result itself unless `select` takes it from the result.
 */
export interface MediaType<T = unknown> {
  /** The body in this media type; default: the response schema. */
  schema?: z.ZodType
  /** The body, from the operation's result; default: the result. */
  select?(result: T): unknown
}

/**
 * How an operation answers when its protocol defines its own answers, errors included (DID resolution; OAuth): every
 * outcome is a result — the service method resolves to it, never rejects — sent over HTTP at the status it names.
 */
export interface Outcome<T> {
  /** The HTTP status of a result (200, or a status declared in `errors`). */
  status(result: T): number
  /** The result an error of the operation becomes (a refused input, storage unavailable, a failure), and its status. */
  fromError(error: IdentityError): { status: number; result: T }
}

/**
 * Every operation reads or writes storage: when it cannot be reached (or cannot take writes), the answer is 503, with
 * `Retry-After` over HTTP.
 */
/** Headers of answers that carry credentials, tokens or nonces: never cached (RFC 6749 §5.1, OID4VCI 1.0 §7.2). */
export const NO_STORE_HEADERS: Readonly<Record<string, string>> = { 'Cache-Control': 'no-store', Pragma: 'no-cache' }

export const UNAVAILABLE_ERRORS = {
  503: 'SERVICE_UNAVAILABLE: the storage cannot be reached or cannot take writes now; retry after `Retry-After` seconds',
} as const
const AUTH_ERRORS = { 403: 'UNAUTHENTICATED: missing or invalid token; FORBIDDEN: authenticated but not allowed' } as const
const INPUT_ERRORS = {
  422: 'VALIDATION_ERROR, NOT_FOUND (unknown to this tenant) or CONFLICT',
  500: 'INTERNAL_ERROR (the message carries no detail)',
  ...UNAVAILABLE_ERRORS,
} as const

/** The errors of an authenticated operation read from its query (a GET). */
export const QUERY_ERRORS: ErrorResponses = { ...AUTH_ERRORS, ...INPUT_ERRORS }
/** The errors of an authenticated operation with a JSON body. */
export const BODY_ERRORS: ErrorResponses = { ...QUERY_ERRORS, 413: 'PAYLOAD_TOO_LARGE: the body is over the limit (1 MiB by default)' }

/** An empty path-parameter object, for operations without path parameters. */
type NoParams = z.ZodObject<Record<never, never>>

export interface OperationContract<
  P extends z.ZodObject = NoParams,
  I extends z.ZodType = z.ZodType,
  R extends z.ZodType = z.ZodType,
  A extends AuthRequirement = AuthRequirement,
> {
  /** The spec's name of the operation (also the name its unexpected failures are logged under). */
  summary: string
  description?: string
  /** What the caller must present (the spec's Authentication table). */
  auth: A
  /** The group the operation is listed under (OpenAPI tag). */
  tag: string
  /** Every error status the operation answers with, what it means there and, when not the spec's error body, its body. */
  errors: ErrorResponses
  /** The first route is the canonical one; the others are aliases. A GET's input is its query, any other method's its JSON body. */
  routes: [Route, ...Route[]]
  /** Path parameters (strings), merged into the input of the service method. */
  params?: P
  /**
   * The request body (or query) schema: its shape as the wire carries it. Checks that need the
   * service's state or code are the operation's (`OperationImplementation.refine`).
   */
  input: I
  /** The field(s) of the input holding the batch items; their lengths are checked against the configured batch limit. */
  batch?: string | string[]
  /** The 200 response body. */
  response: R
  /**
   * The media types of the 200 answer, by name (JSON ones; the first the default, sent when `Accept` is absent or
   * admits any). Over HTTP the router picks the one `Accept` prefers, and answers 406 when it admits none; the client
   * asks for the first. Default: `application/json` only, whatever `Accept` says.
   */
  media?: Record<string, MediaType<z.output<R>>>
  /** Answers that are results whatever happened (see {@link Outcome}); without it, failures reject with `IdentityError`. */
  outcome?: Outcome<z.output<R>>
  /** A request body (or query) that the operation accepts, shown in the OpenAPI document. */
  example?: z.input<I>
  /**
   * The response is a document served as itself: over HTTP, the `document` of the result
   * (`{ document, contentType, etag, maxAge }`) is the body, with its `Content-Type`, `ETag` and
   * `Cache-Control: public, max-age`, and 304 when `If-None-Match` names its ETag.
   */
  document?: boolean
  /**
   * The audit action of an operation that changes what the tenant holds: when its policy refuses
   * a caller (403 FORBIDDEN), the dispatcher records the refusal in the tenant's audit trail,
   * with `target` the type of what it was on and `targetField` the input field naming it.
   */
  audit?: { action: string; target: string; targetField?: string }
  /**
   * The media types the body may be sent in (default JSON only). A form body
   * (`application/x-www-form-urlencoded`) becomes an object of strings: no nesting, a repeated parameter refused,
   * bounded like JSON bodies.
   */
  bodyTypes?: [BodyType, ...BodyType[]]
  /**
   * The answers of every error of the operation, over HTTP and from the service method: `'oauth'` — the OAuth 2.0
   * error body `{ error, error_description, ... }` (RFC 6749 §5.2, RFC 6750 §3) with `Cache-Control: no-store`,
   * the statuses 400, 401 (with `WWW-Authenticate`), 403, 404, 406, 413, 500 and 503, and its errors are
   * `OAuthError`s. Default: the spec's error body.
   */
  errorFormat?: 'oauth'
  /** `false`: not a method of `didvault/client` (an endpoint of a protocol whose clients are others: wallets). */
  client?: false
  /** Headers of the 200 answer, from the result (`Cache-Control`, `ETag`, `DPoP-Nonce`). */
  responseHeaders?(result: z.output<R>): Record<string, string>
  /**
   * `true`: over HTTP a success is `204 No Content`, without a body (the service method still resolves to the result,
   * an empty object); the OpenAPI document says 204 instead of 200.
   */
  noContent?: true
  /** The status of a success over HTTP, when not 200: 201 (RFC 9126's pushed authorization response). */
  successStatus?: 201
  // ---- helper "deferred"
  /**
   * A success whose status depends on the result: 202 Accepted (OID4VCI 1.0 §8.3, §9.2: a deferred credential
   * response, `transaction_id` and `interval`), else the success status. Its headers and body are a success's.
   */
  acceptedWhen?(result: z.output<R>): boolean
  /**
   * The answer is a redirect of the user agent (an OAuth authorization endpoint): over HTTP, 302 Found to the
   * `location` of the result (`{ location }`), no body, `Cache-Control: no-store`; the service method resolves to the
   * result. Errors that cannot be redirected (an unknown client or request) are answered as the contract's errors.
   */
  redirect?: true
}

/** Declares an operation's contract, keeping its schemas' types (and `client: false`, which the client's type reads). */
export function defineContract<
  I extends z.ZodType,
  R extends z.ZodType,
  P extends z.ZodObject = NoParams,
  A extends AuthRequirement = AuthRequirement,
>(contract: OperationContract<P, I, R, A> & { client: false }): OperationContract<P, I, R, A> & { client: false }
export function defineContract<
  I extends z.ZodType,
  R extends z.ZodType,
  P extends z.ZodObject = NoParams,
  A extends AuthRequirement = AuthRequirement,
>(contract: OperationContract<P, I, R, A>): OperationContract<P, I, R, A>
export function defineContract<
  I extends z.ZodType,
  R extends z.ZodType,
  P extends z.ZodObject = NoParams,
  A extends AuthRequirement = AuthRequirement,
>(contract: OperationContract<P, I, R, A>): OperationContract<P, I, R, A> {
  return contract
}

/** The input of a body schema; one with no fields (`z.strictObject({})`, inferred as an index signature of `never`) is `{}`. */
type BodyInput<I extends z.ZodType> = string extends keyof z.input<I>
  ? z.input<I> extends Record<string, never>
    ? Record<never, never>
    : z.input<I>
  : z.input<I>

/** The input a caller gives for an operation: path parameters and body (or query) in one object. */
export type OperationInput<C> =
  C extends OperationContract<infer P, infer I, z.ZodType> ? (keyof P['shape'] extends never ? unknown : z.input<P>) & BodyInput<I> : never
/** The input as the operation's handler receives it: path parameters and body (or query), parsed. */
export type ParsedInput<C> =
  C extends OperationContract<infer P, infer I, z.ZodType> ? (keyof P['shape'] extends never ? unknown : z.output<P>) & z.output<I> : never
/** The response body an operation resolves to. */
export type OperationOutput<C> = C extends OperationContract<z.ZodObject, z.ZodType, infer R> ? z.output<R> : never

/** Contracts by operation name. */
export type Contracts = Record<string, OperationContract<z.ZodObject, z.ZodType, z.ZodType>>

/** The contracts of a table that are methods of `didvault/client`: all but those declaring `client: false`. */
export type ClientContracts<C extends Contracts> = { [K in keyof C as C[K] extends { client: false } ? never : K]: C[K] }

/** One method per operation taking its input and the request's headers: `service.<name>(input, auth)` (a public operation needs none). */
export type OperationMethods<C extends Contracts> = {
  [K in keyof C]: C[K]['auth'] extends 'public'
    ? (input: OperationInput<C[K]>, auth?: AuthContext) => Promise<OperationOutput<C[K]>>
    : (input: OperationInput<C[K]>, auth: AuthContext) => Promise<OperationOutput<C[K]>>
}

/** One method per operation with the headers bound once (`service.as(auth)`, the HTTP client); inputs that may be empty are optional. */
export type BoundOperations<C extends Contracts> = {
  [K in keyof C]: Record<never, never> extends OperationInput<C[K]>
    ? (input?: OperationInput<C[K]>) => Promise<OperationOutput<C[K]>>
    : (input: OperationInput<C[K]>) => Promise<OperationOutput<C[K]>>
}
