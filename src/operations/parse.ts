/** Parses input with a schema; failures become 422 VALIDATION_ERROR naming the fields. */
import type { z } from 'zod'
import { invalid } from '../errors.js'

export function parse<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const unstorable = findUnstorable(input)
  if (unstorable !== undefined)
    throw invalid(`invalid request: ${unstorable.path || 'body'}: ${unstorable.problem} is not accepted in strings`)
  const result = schema.safeParse(input ?? {})
  if (result.success) return result.data
  const detail = result.error.issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.join('.') : 'body'}: ${i.message}`)
    .join('; ')
  throw invalid(`invalid request: ${detail}`)
}

/** A lone surrogate: a UTF-16 code unit without its pair, which no UTF-8 (so no PostgreSQL `text` or `jsonb`) can hold. */
const LONE_SURROGATE = /\p{Cs}/u

const unstorable = (s: string) => s.includes('\u0000') || LONE_SURROGATE.test(s)

/**
 * The first string (value or key) holding U+0000 or a lone surrogate: its path, and which. Refused
 * on every backend alike because PostgreSQL stores neither in `text` or `jsonb`; no identifier,
 * credential or JWT needs them. Iterative (the depth of a body is not bounded here), and paths are
 * only built for the rare input that has one.
 */
export function findUnstorable(input: unknown): { path: string; problem: string } | undefined {
  const stack: unknown[] = [input]
  while (stack.length > 0) {
    const value = stack.pop()
    if (typeof value === 'string') {
      if (unstorable(value)) return found(pathTo(input, value) ?? [], value)
    } else if (typeof value === 'object' && value !== null) {
      for (const key in value) {
        if (unstorable(key)) return found(pathTo(input, key, true) ?? [], key)
        stack.push((value as Record<string, unknown>)[key])
      }
    }
  }
  return undefined
}

const found = (path: string[], text: string) => ({
  path: shown(path),
  problem: text.includes('\u0000') ? 'U+0000' : 'a lone surrogate (ill-formed UTF-16)',
})

/** The path to the string `target` (as a value, or as a key with `isKey`) in `input`: a second, rare walk. */
function pathTo(input: unknown, target: string, isKey = false): string[] | undefined {
  const stack: Array<[unknown, string[]]> = [[input, []]]
  while (stack.length > 0) {
    const [value, path] = stack.pop()!
    if (value === target && !isKey) return path
    if (typeof value !== 'object' || value === null) continue
    for (const key in value) {
      if (isKey && key === target) return [...path, key]
      stack.push([(value as Record<string, unknown>)[key], [...path, key]])
    }
  }
  return undefined
}

/** The path, U+0000 and lone surrogates escaped (`\u0000`, `\udc00`) so the message itself is well-formed. */
const shown = (path: string[]) =>
  path
    .join('.')
    .replaceAll('\u0000', '\\u0000')
    .replace(/\p{Cs}/gu, (c) => `\\u${c.charCodeAt(0).toString(16)}`)
