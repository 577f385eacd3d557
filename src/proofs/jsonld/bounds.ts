/**
 * Work bounds of JSON-LD inputs, checked in one linear walk of the JSON value before any
 * JSON-LD processing: total values, longest array, longest string (and key), nesting depth,
 * and keys that are never accepted (`__proto__`, `constructor`, `prototype`).
 *
 * Why: jsonld's expansion and `toRDF` are not linear in every shape (the values of one
 * property are de-duplicated pairwise, so a 20,000-element array costs seconds), and jsonld
 * safe mode silently skips a `__proto__` key, which would leave it out of the signature. The
 * walk is iterative and stops at the first value over a bound, so neither a deep nor a
 * cyclic (embedded API) input can exhaust the stack or run forever.
 */
import { IdentityError } from '../../errors.js'
import { shown } from './errors.js'

/** Bounds of one JSON-LD document (a credential, or what a proof suite canonicalizes). */
export interface JsonLdLimits {
  /** Most values (objects, arrays, strings, numbers, booleans, nulls) in one document. */
  maxNodes: number
  /** Most elements of one array. */
  maxArrayLength: number
  /** Longest string value or object key, in UTF-16 code units. */
  maxStringLength: number
  /** Deepest nesting of objects and arrays (the document itself is level 1). */
  maxDepth: number
}

/**
 * The default bounds. A credential with 500 claims of 3 fields each has about 2,000 values;
 * the largest document these admit canonicalizes in about 1 s on one core (the costliest shape
 * known: 10 arrays of 1,000 values merged into one property of one node), well inside the
 * default deadline.
 */
export const DEFAULT_JSONLD_LIMITS: Readonly<JsonLdLimits> = Object.freeze({
  maxNodes: 10_000,
  maxArrayLength: 1_000,
  maxStringLength: 262_144,
  maxDepth: 32,
})

/**
 * Deepest nesting any request's JSON object may have, whatever the bounds: the ceiling of
 * `maxDepth` (jsonld recurses once per level, and a response may echo what it was given).
 */
export const MAX_JSON_DEPTH = 256

/** Highest value each bound may be configured to. */
export const JSONLD_CEILINGS: Readonly<JsonLdLimits> = {
  maxNodes: 1_000_000,
  maxArrayLength: 1_000_000,
  maxStringLength: 16_777_216,
  maxDepth: MAX_JSON_DEPTH,
}

/** Keys refused anywhere in a credential: they name or reach an object's prototype in JavaScript. */
const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype'])

/** What a failed check is named in a verification result: a bound, or a forbidden key. */
export type BoundsCheck = 'bounds' | 'keys'

/**
 * A JSON-LD input is over one of the {@link JsonLdLimits} (`check: "bounds"`, `limit` names
 * it) or holds a forbidden key (`check: "keys"`). A `VALIDATION_ERROR` (422).
 */
export class JsonLdBoundsError extends IdentityError {
  readonly check: BoundsCheck
  /** The bound exceeded (`check: "bounds"`). */
  readonly limit?: keyof JsonLdLimits

  constructor(check: BoundsCheck, message: string, limit?: keyof JsonLdLimits) {
    super('VALIDATION_ERROR', message)
    this.name = 'JsonLdBoundsError'
    this.check = check
    if (limit !== undefined) this.limit = limit
  }
}

/** A value on the walk, with how it was reached (for the error's path). */
interface Frame {
  value: unknown
  depth: number
  key?: string | number
  parent?: Frame
}

/** `credentialSubject.items[3]`-style path of a frame. */
function pathOf(frame: Frame): string {
  const keys: Array<string | number> = []
  for (let f: Frame | undefined = frame; f?.key !== undefined; f = f.parent) keys.push(f.key)
  let path = ''
  for (const key of keys.reverse()) path += typeof key === 'number' ? `[${key}]` : path === '' ? key : `.${key}`
  return path === '' ? 'the top level' : shown(path)
}

function overBound(limit: keyof JsonLdLimits, limits: JsonLdLimits, what: string): JsonLdBoundsError {
  return new JsonLdBoundsError('bounds', `${what} is over the limit ${limit} = ${limits[limit]}`, limit)
}

function forbidden(key: string, at: string): JsonLdBoundsError {
  const why = '__proto__, constructor and prototype are never accepted in a credential'
  return new JsonLdBoundsError('keys', `the key ${JSON.stringify(key)} is refused (at ${at}): ${why}`)
}

/**
 * Why `value` may not be processed as JSON-LD under `limits`, or undefined when it may: the
 * first bound it exceeds, or its first forbidden key.
 */
export function jsonLdBoundsError(value: unknown, limits: JsonLdLimits): JsonLdBoundsError | undefined {
  const measured = measureJsonLd(value, limits)
  return typeof measured === 'number' ? undefined : measured
}

/**
 * The number of values in `value` (objects, arrays and every scalar, itself included) when it
 * is within `limits`, else why not: the first bound it exceeds, or its first forbidden key.
 * Linear in the size of the value, and never more than `maxNodes` values are visited.
 */
export function measureJsonLd(value: unknown, limits: JsonLdLimits): number | JsonLdBoundsError {
  let nodes = 1
  const stack: Frame[] = [{ value, depth: 1 }]
  for (let frame = stack.pop(); frame !== undefined; frame = stack.pop()) {
    const v = frame.value
    const at = pathOf.bind(undefined, frame)
    if (typeof v === 'string') {
      if (v.length > limits.maxStringLength) return overBound('maxStringLength', limits, `a string of ${v.length} characters (at ${at()})`)
      continue
    }
    if (typeof v !== 'object' || v === null) continue
    if (frame.depth > limits.maxDepth) return overBound('maxDepth', limits, `nesting ${frame.depth} levels deep (at ${at()})`)
    const depth = frame.depth + 1
    if (Array.isArray(v)) {
      if (v.length > limits.maxArrayLength) return overBound('maxArrayLength', limits, `an array of ${v.length} elements (at ${at()})`)
      nodes += v.length
      if (nodes > limits.maxNodes) return overBound('maxNodes', limits, `more than ${limits.maxNodes} values (counted up to ${at()})`)
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], depth, key: i, parent: frame })
      continue
    }
    const keys = Object.keys(v)
    nodes += keys.length
    if (nodes > limits.maxNodes) return overBound('maxNodes', limits, `more than ${limits.maxNodes} values (counted up to ${at()})`)
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i]
      if (FORBIDDEN_KEYS.has(key)) return forbidden(key, at())
      if (key.length > limits.maxStringLength) return overBound('maxStringLength', limits, `a key of ${key.length} characters (at ${at()})`)
      stack.push({ value: (v as Record<string, unknown>)[key], depth, key, parent: frame })
    }
  }
  return nodes
}

/**
 * `limits` with the defaults filled in, each a positive integer within its ceiling.
 *
 * @throws {TypeError} naming the first bound that is not
 */
export function jsonLdLimitsOf(limits: Partial<JsonLdLimits> = {}): JsonLdLimits {
  const filled = { ...DEFAULT_JSONLD_LIMITS, ...limits }
  for (const name of Object.keys(DEFAULT_JSONLD_LIMITS) as Array<keyof JsonLdLimits>) {
    const value = filled[name]
    if (!Number.isSafeInteger(value) || value < 1 || value > JSONLD_CEILINGS[name]) {
      throw new TypeError(`limits.jsonld.${name} must be an integer from 1 to ${JSONLD_CEILINGS[name]}, got ${String(value)}`)
    }
  }
  const { maxNodes, maxArrayLength, maxStringLength, maxDepth } = filled
  return { maxNodes, maxArrayLength, maxStringLength, maxDepth }
}
