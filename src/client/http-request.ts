/**
 * An operation's call as an HTTP request, built from its contract the way the router reads it:
 * the canonical route, path parameters substituted (encoded), a GET's input as its query string,
 * any other method's as its JSON body (naming the operation on a route several share).
 */
import type { z } from 'zod'
import type { OperationContract } from '../operations/contract.js'
import { parse } from '../operations/parse.js'

type Contract = OperationContract<z.ZodObject, z.ZodType, z.ZodType>

/** What to send: method, path (with its query) below the base URL, and the JSON body if any. */
export interface HttpRequest {
  method: string
  path: string
  body?: string
}

/**
 * The request for `input` (path parameters and body or query in one object, as the service
 * methods take it). Path parameters are checked with the contract's schema first, as the service
 * does: without them there is no URL to send to (a missing one is the service's 422, raised here).
 */
export function httpRequestOf(contract: Contract, input: unknown): HttpRequest {
  const route = contract.routes[0]
  const fields = isPlainObject(input) ? input : {}
  const paramNames = new Set(Object.keys(contract.params?.shape ?? {}))
  const params = Object.fromEntries(Object.entries(fields).filter(([name]) => paramNames.has(name)))
  const rest = Object.fromEntries(Object.entries(fields).filter(([name]) => !paramNames.has(name)))
  if (contract.params) parse(contract.params, params)
  const path = route.path.replace(/:(\w+)/g, (_match, name: string) => encodeURIComponent(String(params[name])))
  if (route.method === 'get') return { method: 'GET', path: path + queryOf(rest) }
  // On a route several operations share, the body names this one.
  const named = route.discriminator ? { [route.discriminator.field]: route.discriminator.value } : {}
  return { method: route.method.toUpperCase(), path, body: JSON.stringify(isPlainObject(input) ? { ...named, ...rest } : input) }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * `?name=value&…` of a GET's input: arrays as repeated parameters (which the router reads as an
 * array), other values as strings, undefined ones left out. A one-element array arrives as one
 * value, as from any other caller: `ids` then splits it at commas.
 */
function queryOf(input: Record<string, unknown>): string {
  const query = new URLSearchParams()
  for (const [name, value] of Object.entries(input)) {
    for (const item of Array.isArray(value) ? value : [value]) if (item !== undefined) query.append(name, String(item))
  }
  const text = query.toString()
  return text === '' ? '' : `?${text}`
}
