/**
 * fast-check arbitraries from the JSON Schemas of an OpenAPI 3.1 document: values that conform to
 * a request schema (types, required and optional properties, bounds, patterns, enums), with every
 * string sometimes replaced by a value the test knows exists (a DID, an id, a token), so that
 * generated requests name real resources and reach the operations' handlers.
 */
import fc from 'fast-check'

/** A JSON Schema node as the document holds it. */
export type Schema = Record<string, any>

/** How generated values are shaped. */
export interface ArbitraryOptions {
  /** The OpenAPI document, for `$ref`s. */
  document: { components?: { schemas?: Record<string, Schema> } }
  /** Strings that name real resources (of this tenant and of another). */
  known: readonly string[]
}

/** Longest generated strings and arrays: a request stays small unless a mutation makes it huge. */
const MAX_STRING = 40
const MAX_ITEMS = 3
const MAX_DEPTH = 6

function resolve(schema: Schema, options: ArbitraryOptions): Schema {
  const ref = schema.$ref as string | undefined
  if (ref === undefined) return schema
  const name = ref.replace('#/components/schemas/', '')
  const target = options.document.components?.schemas?.[name]
  if (!target) throw new Error(`unresolved ${ref}`)
  return resolve(target, options)
}

/** A string of the schema: its pattern matched when it has one, within its length bounds. */
function stringOf(schema: Schema, options: ArbitraryOptions): fc.Arbitrary<string> {
  const min = (schema.minLength as number | undefined) ?? 0
  const max = Math.max(min, Math.min((schema.maxLength as number | undefined) ?? MAX_STRING, MAX_STRING))
  let own: fc.Arbitrary<string>
  if (schema.format === 'date-time') own = fc.date({ noInvalidDate: true }).map((d) => d.toISOString())
  else if (typeof schema.pattern === 'string') {
    try {
      own = fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length >= min && s.length <= (schema.maxLength ?? Infinity))
    } catch {
      own = fc.string({ minLength: min, maxLength: max })
    }
  } else own = fc.string({ minLength: min, maxLength: max })
  // Real resources, mostly: of the kind the pattern takes when it has one (DIDs for a DID).
  const pattern = typeof schema.pattern === 'string' ? new RegExp(schema.pattern) : undefined
  const fitting = options.known.filter((k) => pattern?.test(k) ?? true)
  if (fitting.length === 0) return own
  return fc.oneof({ weight: 1, arbitrary: own }, { weight: 3, arbitrary: fc.constantFrom(...fitting) })
}

function numberOf(schema: Schema): fc.Arbitrary<number> {
  const min = (schema.minimum as number | undefined) ?? (schema.exclusiveMinimum as number | undefined) ?? -1_000_000
  const max = (schema.maximum as number | undefined) ?? (schema.exclusiveMaximum as number | undefined) ?? 1_000_000_000_000_000
  if (schema.type === 'integer')
    return fc.integer({ min: Math.max(min, Number.MIN_SAFE_INTEGER), max: Math.min(max, Number.MAX_SAFE_INTEGER) })
  return fc.double({ min, max, noNaN: true, noDefaultInfinity: true })
}

function objectOf(schema: Schema, options: ArbitraryOptions, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const properties = (schema.properties ?? {}) as Record<string, Schema>
  const required = (schema.required ?? []) as string[]
  const model: Record<string, fc.Arbitrary<unknown>> = {}
  for (const [name, property] of Object.entries(properties)) model[name] = arbitraryOf(property, options, depth + 1)
  const known = fc.record(model, { requiredKeys: required.filter((name) => name in model) })
  if (Object.keys(properties).length > 0 || schema.additionalProperties === false) return known
  // A free-form object (e.g. a credential's payload).
  return fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 })
}

/** An arbitrary of values conforming to `schema` (approximately for `allOf` and `not`). */
export function arbitraryOf(schema: Schema, options: ArbitraryOptions, depth = 0): fc.Arbitrary<unknown> {
  const s = resolve(schema, options)
  if ('const' in s) return fc.constant(s.const)
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]))
  const union = (s.anyOf ?? s.oneOf) as Schema[] | undefined
  if (union) return fc.oneof(...union.map((option) => arbitraryOf(option, options, depth + 1)))
  if (Array.isArray(s.allOf)) return arbitraryOf(s.allOf[0] as Schema, options, depth + 1)
  if (Array.isArray(s.type)) return fc.oneof(...(s.type as string[]).map((type) => arbitraryOf({ ...s, type }, options, depth)))
  if (depth > MAX_DEPTH) return fc.constant(null)
  switch (s.type) {
    case 'string':
      return stringOf(s, options)
    case 'integer':
    case 'number':
      return numberOf(s)
    case 'boolean':
      return fc.boolean()
    case 'null':
      return fc.constant(null)
    case 'array': {
      const minLength = (s.minItems as number | undefined) ?? 0
      const maxLength = Math.max(minLength, Math.min((s.maxItems as number | undefined) ?? MAX_ITEMS, MAX_ITEMS))
      return fc.array(arbitraryOf((s.items ?? {}) as Schema, options, depth + 1), { minLength, maxLength })
    }
    case 'object':
      return objectOf(s, options, depth)
    default:
      return s.properties ? objectOf(s, options, depth) : fc.jsonValue({ maxDepth: 2 })
  }
}
