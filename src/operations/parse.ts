/** Parses input with a schema; failures become 422 VALIDATION_ERROR naming the fields. */
import type { z } from 'zod'
import { invalid } from '../errors.js'

export function parse<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const nul = pathOfNul(input)
  if (nul !== undefined) throw invalid(`invalid request: ${nul || 'body'}: U+0000 is not accepted in strings`)
  const result = schema.safeParse(input ?? {})
  if (result.success) return result.data
  const detail = result.error.issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.join('.') : 'body'}: ${i.message}`)
    .join('; ')
  throw invalid(`invalid request: ${detail}`)
}

/**
 * The path of the first string (value or key) holding U+0000, or `undefined`. Refused on every
 * backend alike because PostgreSQL stores no U+0000 in `text` or `jsonb`; no identifier,
 * credential or JWT needs it. Iterative (the depth of a body is not bounded here), and paths are
 * only built for the rare input that has one.
 */
function pathOfNul(input: unknown): string | undefined {
  const stack: unknown[] = [input]
  while (stack.length > 0) {
    const value = stack.pop()
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return shown(pathTo(input, value) ?? [])
    } else if (typeof value === 'object' && value !== null) {
      for (const key in value) {
        if (key.includes('\u0000')) return shown(pathTo(input, key, true) ?? [])
        stack.push((value as Record<string, unknown>)[key])
      }
    }
  }
  return undefined
}

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

const shown = (path: string[]) => path.join('.').replaceAll('\u0000', '\\u0000')
