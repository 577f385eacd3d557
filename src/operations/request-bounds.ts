/**
 * What every request value must keep to, whatever its operation, before any schema sees it: a
 * nesting of objects and arrays at most `limits.depth` deep (the body itself is level 1), and no
 * string (value or key) holding U+0000 or a lone surrogate. Checked on the JSON text of an HTTP
 * body before `JSON.parse` builds it (`check-json-text.ts`), and on the objects of the embedded
 * API (`parse.ts`); both refuse with the same 422s, built here. Without the depth bound a 49 KiB
 * body nesting 25,000 arrays held the event loop for seconds.
 */
import { invalid, type IdentityError } from '../errors.js'

/** The default of `limits.depth`. */
export const DEFAULT_DEPTH = 64

/** Highest `limits.depth` may be configured to. */
export const MAX_DEPTH = 1_024

/**
 * How much deeper than a JSON-LD document (`limits.jsonld.maxDepth`) a body must be allowed to
 * nest: a credential sits a few levels down in the bodies that carry one (`claims[i].jsonld`).
 */
export const DEPTH_MARGIN = 16

/** The 422 of a request (or the value `where` names) nesting objects and arrays deeper than `limit` levels. */
export const tooDeep = (limit: number, where = 'invalid request: body'): IdentityError =>
  invalid(`${where} nests objects and arrays deeper than limits.depth = ${limit}`)

/**
 * Why `depth` cannot be `limits.depth` beside `limits.jsonld.maxDepth = jsonldMaxDepth` (to
 * follow "limits.depth "), or undefined when it can: an integer from 1 to {@link MAX_DEPTH}, and
 * {@link depthMarginProblem}.
 */
export function depthProblem(depth: number, jsonldMaxDepth: number): string | undefined {
  if (!Number.isInteger(depth) || depth < 1 || depth > MAX_DEPTH) return `must be an integer from 1 to ${MAX_DEPTH}, got ${String(depth)}`
  return depthMarginProblem(depth, jsonldMaxDepth)
}

/**
 * Why `depth` is too shallow beside `limits.jsonld.maxDepth = jsonldMaxDepth`, or undefined: it
 * must be at least `jsonldMaxDepth` + {@link DEPTH_MARGIN}, so every credential the JSON-LD
 * bounds admit fits in a body.
 */
export function depthMarginProblem(depth: number, jsonldMaxDepth: number): string | undefined {
  const least = jsonldMaxDepth + DEPTH_MARGIN
  if (depth < least)
    return `must be at least limits.jsonld.maxDepth + ${DEPTH_MARGIN} = ${jsonldMaxDepth} + ${DEPTH_MARGIN} = ${least}, got ${depth}`
  return undefined
}

/** A lone surrogate: a UTF-16 code unit without its pair, which no UTF-8 (so no PostgreSQL `text` or `jsonb`) can hold. */
const LONE_SURROGATE = /\p{Cs}/u

/**
 * Whether `text` holds U+0000 or a lone surrogate. Refused on every backend alike because
 * PostgreSQL stores neither in `text` or `jsonb`; no identifier, credential or JWT needs them.
 */
export const unstorable = (text: string): boolean => text.includes('\u0000') || LONE_SURROGATE.test(text)

/**
 * The 422 of the unstorable string `text` (a value, or a key) at `path` (the keys and indexes
 * leading to it) in a request, or in the value `where` names.
 */
export function unstorableString(path: ReadonlyArray<string | number>, text: string, where?: string): IdentityError {
  const problem = text.includes('\u0000') ? 'U+0000' : 'a lone surrogate (ill-formed UTF-16)'
  const named = shown(path)
  const at = where === undefined ? `invalid request: ${named || 'body'}` : named === '' ? where : `${where}.${named}`
  return invalid(`${at}: ${problem} is not accepted in strings`)
}

/**
 * The 422 of an object of the body with a member named twice: `JSON.parse` keeps the last one, another reader the
 * first, so a signed document could be checked over one reading and used over another.
 */
export function duplicateMember(path: ReadonlyArray<string | number>): IdentityError {
  return invalid(`invalid request: ${shown(path)}: a member appears twice in one object`)
}

/** The path, U+0000 and lone surrogates escaped (`\u0000`, `\udc00`) so the message itself is well-formed. */
const shown = (path: ReadonlyArray<string | number>) =>
  path
    .join('.')
    .replaceAll('\u0000', '\\u0000')
    .replace(/\p{Cs}/gu, (c) => `\\u${c.charCodeAt(0).toString(16)}`)
