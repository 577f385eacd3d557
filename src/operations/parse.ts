/** Parses input with a schema; failures become 422 VALIDATION_ERROR naming the fields. */
import type { z } from 'zod'
import { invalid } from '../errors.js'
import { DEFAULT_DEPTH, tooDeep, unstorable, unstorableString } from './request-bounds.js'

/**
 * Checks `input` against the request bounds ({@link checkRequestValue}, nesting at most
 * `maxDepth`), then parses it with `schema`.
 */
export function parse<S extends z.ZodType>(schema: S, input: unknown, maxDepth = DEFAULT_DEPTH): z.output<S> {
  checkRequestValue(input, maxDepth)
  return parseChecked(schema, input)
}

/** Parses `input` with `schema` alone: for a value whose request bounds were checked already (its text, or the value it came from). */
export function parseChecked<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input ?? {}, { error: fewUnknownKeys })
  if (result.success) return result.data
  const detail = result.error.issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.join('.') : 'body'}: ${i.message}`)
    .join('; ')
  throw invalid(`invalid request: ${detail}`)
}

/** Unknown keys a message names at most, and the characters of each it shows. */
const UNKNOWN_KEYS_NAMED = 5
const UNKNOWN_KEY_SHOWN = 64

/**
 * The message of unknown keys naming only the first few, each cut short: a body of 80,000
 * unknown keys, or of one key of a megabyte, is not echoed back whole. Other issues keep zod's.
 */
function fewUnknownKeys(issue: z.core.$ZodRawIssue): string | undefined {
  if (issue.code !== 'unrecognized_keys') return undefined
  const { keys } = issue
  const named = keys.slice(0, UNKNOWN_KEYS_NAMED).map((k) => `"${k.length > UNKNOWN_KEY_SHOWN ? `${k.slice(0, UNKNOWN_KEY_SHOWN)}…` : k}"`)
  const more = keys.length > UNKNOWN_KEYS_NAMED ? ` and ${keys.length - UNKNOWN_KEYS_NAMED} more` : ''
  return `Unrecognized key${keys.length > 1 ? 's' : ''}: ${named.join(', ')}${more}`
}

/** A container being walked: its keys (an object's) or length (an array's), the next child, and its own key in its parent. */
interface Frame {
  value: object
  keys: string[] | undefined
  length: number
  next: number
  depth: number
  key: string | number
}

/**
 * Checks a request value as the HTTP layer checks a body's text (`check-json-text.ts`): objects
 * and arrays nest at most `maxDepth` levels (the value itself is level 1), and no string, value
 * or key, holds U+0000 or a lone surrogate; the first refused string is named by its path.
 * One walk in document order, iterative, testing strings only; the path is built only for a
 * string refused. A container met again (the embedded API takes shared and cyclic objects) is
 * walked again only when met deeper than before, so a cycle ends at `maxDepth` and the walk
 * visits each container at most `maxDepth` times.
 * `where` names the value in messages when it is not a request's (`jwt: payload`, for what a
 * credential's store decodes: the request check cannot see inside base64url).
 * @throws {IdentityError} 422 `VALIDATION_ERROR` naming `limits.depth`, or the refused string's path
 */
export function checkRequestValue(input: unknown, maxDepth: number, where?: string): void {
  if (typeof input === 'string' && unstorable(input)) throw unstorableString([], input, where)
  if (typeof input !== 'object' || input === null) return
  if (maxDepth < 1) throw tooDeep(maxDepth, where)
  const deepest = new Map<object, number>()
  const frames: Frame[] = [frameOf(input, 1, '')]
  while (frames.length > 0) {
    const frame = frames[frames.length - 1]
    if (frame.next === frame.length) {
      frames.pop()
      continue
    }
    const i = frame.next++
    const key = frame.keys === undefined ? i : frame.keys[i]
    if (typeof key === 'string' && unstorable(key)) throw unstorableString(pathOf(frames, key), key, where)
    const child = (frame.value as Record<string | number, unknown>)[key]
    if (typeof child === 'string') {
      if (unstorable(child)) throw unstorableString(pathOf(frames, key), child, where)
    } else if (typeof child === 'object' && child !== null) {
      const depth = frame.depth + 1
      if (depth > maxDepth) throw tooDeep(maxDepth, where)
      if ((deepest.get(child) ?? 0) >= depth) continue
      deepest.set(child, depth)
      frames.push(frameOf(child, depth, key))
    }
  }
}

function frameOf(value: object, depth: number, key: string | number): Frame {
  const keys = Array.isArray(value) ? undefined : Object.keys(value)
  return { value, keys, length: keys?.length ?? (value as unknown[]).length, next: 0, depth, key }
}

/** The path to `last` in the container on top of `frames`: the keys and indexes of the frames below it (the root's is none). */
const pathOf = (frames: Frame[], last: string | number) => [...frames.slice(1).map((f) => f.key), last]
