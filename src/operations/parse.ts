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
 * credential or JWT needs it. Iterative: the depth of a body is not bounded here.
 */
function pathOfNul(input: unknown): string | undefined {
  const stack: Array<[unknown, string]> = [[input, '']]
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [value, path] = next
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return shown(path)
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, child] of Object.entries(value)) {
        const at = path ? `${path}.${key}` : key
        if (key.includes('\u0000')) return shown(at)
        stack.push([child, at])
      }
    }
  }
  return undefined
}

const shown = (path: string) => path.replaceAll('\u0000', '\\u0000')
