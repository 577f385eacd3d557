/**
 * How an operation is declared: once, with everything the service, the router and the
 * OpenAPI document derive from it — input schemas, auth requirement, routes, response
 * schema, handler.
 */
import type { z } from 'zod'
import type { AuthRequirement, Caller } from '../auth/context.js'
import type { OperationContext } from './context.js'

/** An HTTP route of an operation (Express path syntax: `:vaultID`). */
export interface Route {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete'
  path: string
}

/** An empty path-parameter object, for operations without path parameters. */
type NoParams = z.ZodObject<{}>

export interface OperationDefinition<P extends z.ZodObject = NoParams, I extends z.ZodType = z.ZodType, R extends z.ZodType = z.ZodType> {
  /** The spec's name of the operation (also the name its unexpected failures are logged under). */
  summary: string
  description?: string
  /** What the caller must present (the spec's Authentication table). */
  auth: AuthRequirement
  /** The first route is the canonical one; the others are aliases. A GET's input is its query, any other method's its JSON body. */
  routes: [Route, ...Route[]]
  /** Path parameters (strings), merged into the input of the service method. */
  params?: P
  /** The request body (or query) schema. */
  input: I
  /** The field(s) of the input holding the batch items; their lengths are checked against the configured batch limit. */
  batch?: string | string[]
  /** The 200 response body. */
  response: R
  /** A request body (or query) that the operation accepts, shown in the OpenAPI document. */
  example?: z.input<I>
  handler: (ctx: OperationContext, caller: Caller, input: (keyof P['shape'] extends never ? unknown : z.output<P>) & z.output<I>) => Promise<z.output<R>>
}

/** Declares an operation, keeping its schemas' types. */
export function defineOperation<I extends z.ZodType, R extends z.ZodType, P extends z.ZodObject = NoParams>(definition: OperationDefinition<P, I, R>): OperationDefinition<P, I, R> {
  return definition
}

/** The input of a body schema; one with no fields (`z.strictObject({})`, inferred as an index signature of `never`) is `{}`. */
type BodyInput<I extends z.ZodType> = string extends keyof z.input<I> ? (z.input<I> extends Record<string, never> ? {} : z.input<I>) : z.input<I>

/** The input a service method takes for an operation: path parameters and body (or query) in one object. */
export type OperationInput<D> = D extends OperationDefinition<infer P, infer I, z.ZodType> ? (keyof P['shape'] extends never ? unknown : z.input<P>) & BodyInput<I> : never
/** The response body an operation resolves to. */
export type OperationOutput<D> = D extends OperationDefinition<z.ZodObject, z.ZodType, infer R> ? z.output<R> : never
