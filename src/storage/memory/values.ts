/** How the memory adapter compares field values: the same order and equality as SQLite and MongoDB. */
import type { Scalar } from '../port.js'

/** Type classes in sort order: null/absent < numbers < strings < booleans (MongoDB's order). */
export function typeRank(value: unknown): number {
  if (value === undefined || value === null) return 0
  if (typeof value === 'number') return 1
  if (typeof value === 'string') return 2
  if (typeof value === 'boolean') return 3
  return 4
}

/** Compares strings by code point, as SQLite (UTF-8 bytes) and MongoDB do; `<` compares UTF-16 units. */
export function compareStrings(a: string, b: string): number {
  const length = Math.min(a.length, b.length)
  for (let i = 0; i < length; i++) {
    const x = a.codePointAt(i)!
    const y = b.codePointAt(i)!
    if (x !== y) return x - y
    if (x > 0xffff) i++
  }
  return a.length - b.length
}

/** Total order of field values, across types by {@link typeRank}. */
export function compareValues(a: unknown, b: unknown): number {
  const rank = typeRank(a) - typeRank(b)
  if (rank !== 0) return rank
  if (typeof a === 'number') return a - (b as number)
  if (typeof a === 'string') return compareStrings(a, b as string)
  if (typeof a === 'boolean') return Number(a) - Number(b)
  return a === undefined || a === null ? 0 : compareStrings(JSON.stringify(a), JSON.stringify(b))
}

/** `eq` semantics: same JSON type and value; `null` matches null or absent. */
export function equals(value: unknown, expected: Scalar): boolean {
  return expected === null ? value === undefined || value === null : value === expected
}

/** Range semantics: only values of the operand's JSON type compare (never null). */
export function inRange(value: unknown, op: 'gt' | 'gte' | 'lt' | 'lte', bound: Scalar): boolean {
  if (bound === null || typeRank(value) !== typeRank(bound)) return false
  const order = compareValues(value, bound)
  return op === 'gt' ? order > 0 : op === 'gte' ? order >= 0 : op === 'lt' ? order < 0 : order <= 0
}
