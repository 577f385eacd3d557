/**
 * The one walk that bounds a JSON-LD input before any JSON-LD work (`bounds.ts`): what it
 * counts, what it refuses and how it names it, and that hostile shapes (deep, cyclic, huge)
 * end it quickly without exhausting the stack.
 */
import { describe, expect, it } from 'vitest'
import {
  DEFAULT_JSONLD_LIMITS,
  JsonLdBoundsError,
  jsonLdBoundsError,
  jsonLdLimitsOf,
  measureJsonLd,
} from '../../src/proofs/jsonld/bounds.js'

const LIMITS = { maxNodes: 20, maxArrayLength: 5, maxStringLength: 10, maxDepth: 4 }

/** The error the walk finds in `value`, under {@link LIMITS}. */
function refusal(value: unknown): JsonLdBoundsError {
  const error = jsonLdBoundsError(value, LIMITS)
  if (!(error instanceof JsonLdBoundsError)) throw new Error(`expected a refusal of ${JSON.stringify(value)}`)
  return error
}

describe('measureJsonLd', () => {
  it('counts every value, the document itself included; keys are not values', () => {
    expect(measureJsonLd({}, LIMITS)).toBe(1)
    expect(measureJsonLd({ a: 1, b: 'x', c: null, d: true }, LIMITS)).toBe(5)
    expect(measureJsonLd({ a: [1, 2, { b: [] }] }, LIMITS)).toBe(6)
  })

  it('admits each bound exactly at its value', () => {
    expect(measureJsonLd({ a: [1, 2, 3, 4, 5] }, LIMITS)).toBe(7)
    expect(measureJsonLd({ s: 'x'.repeat(10), ['k'.repeat(10)]: 1 }, LIMITS)).toBe(3)
    expect(measureJsonLd({ a: { b: { c: { d: 1 } } } }, LIMITS)).toBe(5)
    expect(measureJsonLd(Object.fromEntries(Array.from({ length: 19 }, (_, i) => [`k${i}`, i])), LIMITS)).toBe(20)
  })
})

describe('jsonLdBoundsError', () => {
  it('names the bound, its value, what exceeded it and where', () => {
    expect(refusal({ a: { list: [1, 2, 3, 4, 5, 6] } })).toMatchObject({
      check: 'bounds',
      limit: 'maxArrayLength',
      statusCode: 422,
      errorType: 'VALIDATION_ERROR',
      message: 'an array of 6 elements (at a.list) is over the limit maxArrayLength = 5',
    })
    const overString = (what: string) => `${what} is over the limit maxStringLength = 10`
    expect(refusal({ items: [{ s: 'x'.repeat(11) }] }).message).toBe(overString('a string of 11 characters (at items[0].s)'))
    expect(refusal({ ['k'.repeat(11)]: 1 }).message).toBe(overString('a key of 11 characters (at the top level)'))
    expect(refusal({ a: { b: { c: { d: {} } } } }).message).toBe('nesting 5 levels deep (at a.b.c.d) is over the limit maxDepth = 4')
    const wide = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, i]))
    const message = 'more than 20 values (counted up to the top level) is over the limit maxNodes = 20'
    expect(refusal(wide)).toMatchObject({ limit: 'maxNodes', message })
  })

  it('refuses __proto__, constructor and prototype keys anywhere, as own properties (what JSON.parse makes)', () => {
    for (const key of ['__proto__', 'constructor', 'prototype']) {
      const value = JSON.parse(`{"a":[{"b":{"${key}":{"isAdmin":true}}}]}`)
      const message = `the key "${key}" is refused (at a[0].b): __proto__, constructor and prototype are never accepted in a credential`
      expect(refusal(value)).toMatchObject({ check: 'keys', message })
      expect(refusal(JSON.parse(`{"${key}":1}`)).check).toBe('keys')
    }
    // Names that only contain them are ordinary keys.
    expect(jsonLdBoundsError({ proto: 1, constructors: 2, __proto: 3 }, DEFAULT_JSONLD_LIMITS)).toBeUndefined()
  })

  it('ends quickly on hostile shapes: a million-level nesting, a cycle (embedded API), a huge array', () => {
    let deep: unknown = 1
    for (let i = 0; i < 1_000_000; i++) deep = [deep]
    expect(jsonLdBoundsError(deep, DEFAULT_JSONLD_LIMITS)?.limit).toBe('maxDepth')
    const cyclic: Record<string, unknown> = { a: 1 }
    cyclic.self = cyclic
    expect(jsonLdBoundsError(cyclic, DEFAULT_JSONLD_LIMITS)?.check).toBe('bounds')
    expect(jsonLdBoundsError({ nums: new Array(20_000).fill(0) }, DEFAULT_JSONLD_LIMITS)?.limit).toBe('maxArrayLength')
    const wide = Object.fromEntries(Array.from({ length: 900 }, (_, i) => [`k${i}`, new Array(1_000).fill(i)]))
    expect(jsonLdBoundsError(wide, DEFAULT_JSONLD_LIMITS)?.limit).toBe('maxNodes')
  })
})

describe('jsonLdLimitsOf', () => {
  it('fills in the defaults and refuses bounds that are not positive integers within their ceiling', () => {
    expect(jsonLdLimitsOf()).toEqual({ maxNodes: 10_000, maxArrayLength: 1_000, maxStringLength: 262_144, maxDepth: 32 })
    expect(jsonLdLimitsOf({ maxNodes: 500 })).toEqual({ ...DEFAULT_JSONLD_LIMITS, maxNodes: 500 })
    expect(() => jsonLdLimitsOf({ maxNodes: 0 })).toThrow(/limits\.jsonld\.maxNodes must be an integer from 1 to/)
    expect(() => jsonLdLimitsOf({ maxArrayLength: 1.5 })).toThrow(/limits\.jsonld\.maxArrayLength/)
    expect(() => jsonLdLimitsOf({ maxDepth: 257 })).toThrow(/limits\.jsonld\.maxDepth must be an integer from 1 to 256/)
  })
})
