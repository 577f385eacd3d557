/** Parses input with a schema; failures become 422 VALIDATION_ERROR naming the fields. */
import type { z } from 'zod'
import { invalid } from '../errors.js'

export function parse<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input ?? {})
  if (result.success) return result.data
  const detail = result.error.issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.join('.') : 'body'}: ${i.message}`)
    .join('; ')
  throw invalid(`invalid request: ${detail}`)
}
