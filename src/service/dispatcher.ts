/**
 * Runs the operations of {@link OPERATIONS}: authenticate (from the headers alone), then parse
 * the input with the operation's schemas, then the handler. Transports that must answer an
 * unauthenticated request before reading its body (the Express router) take the two steps
 * apart: {@link OperationDispatcher.authenticate} first, {@link AuthenticatedCall.run} once
 * the body is in.
 */
import { randomUUID } from 'node:crypto'
import type { Authenticator } from '../auth/authenticator.js'
import type { AuthContext, AuthenticateFunction, Caller, RegisteredAuthRequirement } from '../auth/context.js'
import { toOAuthError } from '../oid4vci/oauth-error.js'
import { IdentityError, invalid, toIdentityError } from '../errors.js'
import { parse, parseChecked } from '../operations/parse.js'
import { InvalidCursorError } from '../storage/port.js'
import type { ServiceContext } from './context.js'
import type { OperationName } from './contracts.js'
import type { OperationDefinition } from '../operations/define.js'
import type { OperationContract } from '../operations/contract.js'
import type { z } from 'zod'
import { OPERATIONS } from './table.js'
import type { AuditAct } from '../audit/trail.js'
import { itemRefusals, requestRefusal } from './refusals.js'

type Definition = OperationDefinition<OperationContract<z.ZodObject, z.ZodType, z.ZodType>, ServiceContext>

/** Operation definitions by name: the table, or (tests of transports) the table and more. */
export type OperationTable = Readonly<Record<string, Definition>>

/** A request whose headers were authenticated; its input has not been looked at yet. */
export class AuthenticatedCall {
  readonly #dispatcher: OperationDispatcher
  readonly #name: OperationName
  readonly #caller: Caller
  /** The request's headers, for the challenge of an OAuth error (`WWW-Authenticate`); never for access decisions. */
  readonly #auth: AuthContext

  /** @internal Made by {@link OperationDispatcher.authenticate} only. */
  constructor(dispatcher: OperationDispatcher, name: OperationName, caller: Caller, auth: AuthContext, key: symbol) {
    if (key !== CALL_KEY) throw new TypeError('AuthenticatedCall is made by OperationDispatcher.authenticate')
    this.#dispatcher = dispatcher
    this.#name = name
    this.#caller = caller
    this.#auth = auth
  }

  /** The tenant the headers authenticated ('' for a public operation). */
  get tenantId(): string {
    return this.#caller.tenantId
  }

  /**
   * Checks `input` (the body, or the query of a GET) and `params` (path parameters) against the
   * request bounds (`limits.depth`; no U+0000 or lone surrogate in a string), parses them, then
   * runs the operation. Rejects with an `IdentityError`.
   * @param options.inputChecked - the transport checked the text `input` was parsed from with
   *   `checkJsonText` (as the router does for bodies), so `input` is not walked again
   */
  run(input: unknown, params?: Record<string, unknown>, options: { inputChecked?: boolean } = {}): Promise<unknown> {
    return this.#dispatcher.execute(this.#name, this.#caller, input, params, options.inputChecked === true, this.#auth)
  }

  /**
   * The same caller, for operation `name` instead: one sharing this one's route, told apart by
   * the body (so it asks the same of the headers, which were checked before the body was read).
   */
  for(name: OperationName): AuthenticatedCall {
    if (name === this.#name) return this
    if (this.#dispatcher.definition(name).auth !== this.#dispatcher.definition(this.#name).auth)
      throw new TypeError(`${name} does not ask what ${this.#name} asks of the headers`)
    return new AuthenticatedCall(this.#dispatcher, name, this.#caller, this.#auth, CALL_KEY)
  }
}

const CALL_KEY = Symbol('AuthenticatedCall')

export class OperationDispatcher {
  readonly #operations: OperationTable

  constructor(
    private readonly ctx: ServiceContext,
    private readonly authenticator: Authenticator,
    operations: OperationTable = OPERATIONS,
  ) {
    this.#operations = operations
  }

  /**
   * @internal A dispatcher of the same service running these operations too, with these authentication functions
   * too: tests of the transports (router, OpenAPI, client) over operations of their own.
   */
  withOperations(
    operations: OperationTable,
    authenticators: Partial<Record<RegisteredAuthRequirement, AuthenticateFunction>> = {},
  ): OperationDispatcher {
    return new OperationDispatcher(this.ctx, this.authenticator.with(authenticators), { ...this.#operations, ...operations })
  }

  /** Authenticates the headers for operation `name`; nothing else of the request is read. */
  async authenticate(name: OperationName, auth: AuthContext): Promise<AuthenticatedCall> {
    const definition = this.definition(name)
    const caller = await this.#guard(name, definition, () => this.authenticator.authenticate(auth, definition.auth), auth)
    // Audit records of one call share its id: an embedded call without one gets one here.
    return new AuthenticatedCall(this, name, { ...caller, requestId: auth.requestId ?? randomUUID() }, auth, CALL_KEY)
  }

  /**
   * The embedded form: path parameters and body in one `input` object. An operation whose contract has an `outcome`
   * resolves to the result its errors become, never rejects.
   */
  async call(name: OperationName, input: unknown, auth: AuthContext): Promise<unknown> {
    const definition = this.definition(name)
    try {
      const call = await this.authenticate(name, auth ?? {})
      const { params, rest } = splitParams(definition, input)
      return await call.run(rest, params)
    } catch (err) {
      if (definition.outcome && err instanceof IdentityError) return definition.outcome.fromError(err).result
      throw err
    }
  }

  /** @internal Runs an operation for an authenticated caller (through {@link AuthenticatedCall.run}). */
  execute(
    name: OperationName,
    authenticated: Caller,
    input: unknown,
    params: Record<string, unknown> | undefined,
    inputChecked: boolean,
    auth: AuthContext = {},
  ): Promise<unknown> {
    const definition = this.definition(name)
    // The handler's failed items are logged and counted under the operation's name and the request's id.
    const caller: Caller = { ...authenticated, operation: name }
    return this.#guard(
      name,
      definition,
      () => {
        const { depth } = this.ctx.config.limits
        const parsed = {
          ...((inputChecked ? parseChecked(definition.input, input) : parse(definition.input, input, depth)) as object),
          ...(definition.params ? parse(definition.params, params ?? {}, depth) : {}),
        }
        for (const field of [definition.batch ?? []].flat()) {
          const items = (parsed as Record<string, unknown>)[field]
          const max = this.ctx.config.limits.batch
          if (Array.isArray(items) && items.length > max) throw invalid(`${field}: at most ${max} items per request`)
        }
        const refined = definition.refine ? parseChecked(definition.refine, parsed) : parsed
        return definition.handler(this.ctx, caller, refined, auth).then(
          async (result) => {
            await this.#record(name, caller, itemRefusals(definition, refined, result))
            return result
          },
          async (err: unknown) => {
            await this.#record(name, caller, requestRefusal(definition.audit, refined, err))
            throw err
          },
        )
      },
      { ...auth, requestId: caller.requestId },
    )
  }

  /** Records refusals in the caller's audit trail (a failure to is the operator's to see, not the caller's). */
  async #record(name: OperationName, caller: Caller, acts: AuditAct[]): Promise<void> {
    if (acts.length > 0)
      await this.ctx.audit.record(caller, acts).catch((failure: unknown) => this.ctx.onError(name, failure, infoOf(caller.requestId)))
  }

  /** @internal The definition of operation `name` (a `TypeError` for a name the table does not have). */
  definition(name: OperationName): Definition {
    const definition = this.#operations[name]
    if (!definition || !Object.hasOwn(this.#operations, name)) throw new TypeError(`unknown operation ${String(name)}`)
    return definition
  }

  /**
   * Runs `fn`, turning whatever it throws into an IdentityError; unexpected failures go to
   * `onError` under the operation's name (the response's message names its summary). An operation answering OAuth
   * errors (`errorFormat: 'oauth'`) rejects with an `OAuthError`, its challenge in the scheme of `auth`.
   */
  async #guard<R>(name: OperationName, definition: Definition, fn: () => Promise<R>, auth: AuthContext): Promise<R> {
    try {
      return await fn()
    } catch (err) {
      // A cursor the caller edited or took from another listing is the caller's mistake.
      const error = err instanceof InvalidCursorError ? invalid(`cursor: ${err.message}`) : toIdentityError(err, definition.summary)
      // Unexpected failures and an unavailable storage (its cause, for the operator) go to onError.
      if (error.statusCode >= 500) this.ctx.onError(name, err, infoOf(auth.requestId))
      throw definition.errorFormat === 'oauth' ? toOAuthError(error, auth) : error
    }
  }
}

const infoOf = (requestId: string | undefined) => (requestId === undefined ? undefined : { requestId })

/** Splits an embedded call's input into the path parameters the operation declares and the rest (its body or query). */
function splitParams(definition: Definition, input: unknown): { params: Record<string, unknown>; rest: unknown } {
  if (!definition.params || input === null || typeof input !== 'object' || Array.isArray(input)) return { params: {}, rest: input }
  const names = new Set(Object.keys(definition.params.shape))
  const params: Record<string, unknown> = {}
  const rest: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(input)) (names.has(k) ? params : rest)[k] = v
  return { params, rest }
}
