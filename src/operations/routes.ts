/**
 * The HTTP routes of a table of contracts, each with the operations it carries: one, or several
 * sharing the route and told apart by a body field (`PATCH /claims` by `operation`). The router,
 * the OpenAPI document and the HTTP client all read the routes from here. Browser-safe.
 */
import { invalid } from '../errors.js'
import type { AuthRequirement } from '../auth/context.js'
import type { Contracts, Route } from './contract.js'

/** An operation reached through a route, with the value of the route's discriminator that names it. */
export interface RoutedOperation<N extends string = string> {
  name: N
  /** Its value of the route's discriminator field; undefined on a route of one operation. */
  value?: string
  /** Which of the operation's routes this is: 0 for its canonical route, then its aliases. */
  alias: number
}

/** A route and the operations it carries. */
export interface SharedRoute<N extends string = string> {
  method: Route['method']
  path: string
  /** Served from the host root (`createWellKnownRouter`), not under the router's mount ({@link Route.root}). */
  root?: true
  /** What every operation of the route asks of the headers (the same for all: they are checked before the body names one). */
  auth: AuthRequirement
  /** The body field naming the operation, when several share the route. */
  discriminator?: string
  operations: Array<RoutedOperation<N>>
}

/**
 * Every route of `contracts`, in table order. Throws a `TypeError` on a table whose routes are
 * ambiguous: operations sharing a route without one discriminator field, with repeated values
 * of it, or with different auth requirements.
 */
export function routesOf<C extends Contracts>(contracts: C): Array<SharedRoute<keyof C & string>> {
  const byKey = new Map<string, SharedRoute<keyof C & string>>()
  for (const [name, contract] of Object.entries(contracts) as Array<[keyof C & string, C[keyof C]]>) {
    contract.routes.forEach((route, i) => {
      const key = `${route.root === true ? 'root ' : ''}${route.method} ${route.path}`
      const shared = byKey.get(key)
      const operation = { name, value: route.discriminator?.value, alias: i }
      if (!shared) {
        const discriminator = route.discriminator?.field
        const root = route.root === true ? { root: true as const } : {}
        byKey.set(key, { method: route.method, path: route.path, ...root, auth: contract.auth, discriminator, operations: [operation] })
        return
      }
      const field = route.discriminator?.field
      if (shared.discriminator === undefined || field !== shared.discriminator) {
        throw new TypeError(`${key}: operations sharing a route must each name the same discriminator field (${name})`)
      }
      if (shared.operations.some((o) => o.value === operation.value))
        throw new TypeError(`${key}: ${field} = ${operation.value} names two operations`)
      if (shared.auth !== contract.auth)
        throw new TypeError(`${key}: operations sharing a route must ask the same of the headers (${name})`)
      shared.operations.push(operation)
    })
  }
  return [...byKey.values()]
}

/**
 * The operation a request on `route` is for: the only one, or the one its body's discriminator
 * field names (a 422 naming the field and its values otherwise).
 */
export function operationOf<N extends string>(route: SharedRoute<N>, body: unknown): N {
  if (route.discriminator === undefined) return route.operations[0].name
  const value = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[route.discriminator] : undefined
  const operation = route.operations.find((o) => o.value === value)
  if (!operation) throw invalid(`${route.discriminator}: must be one of ${route.operations.map((o) => JSON.stringify(o.value)).join(', ')}`)
  return operation.name
}
