/**
 * Claim paths as JSON pointers (RFC 6901): `/address/street`, `/nationalities/1`; `~1` stands for `/` and `~0` for `~`
 * in a segment. What `disclose` names, at issue and at presentation.
 */
import { invalid } from '../../../errors.js'
import { MAX_DEPTH } from './limits.js'

/**
 * The segments of `pointer`.
 * @throws {IdentityError} 422 for a pointer that is not `/`-rooted, is empty, or is deeper than {@link MAX_DEPTH}
 */
export function parsePointer(pointer: unknown): string[] {
  if (typeof pointer !== 'string' || !pointer.startsWith('/'))
    throw invalid(`disclose: a path is a JSON pointer such as "/address/street", not ${JSON.stringify(pointer)?.slice(0, 60)}`)
  const raw = pointer.slice(1).split('/')
  if (raw.length > MAX_DEPTH) throw invalid(`disclose: a path has at most ${MAX_DEPTH} segments`)
  if (/~[^01]|~$/.test(pointer)) throw invalid(`disclose: ${pointer.slice(0, 60)} has an escape other than ~0 or ~1`)
  return raw.map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
}

/** The JSON pointer of `segments`. */
export const formatPointer = (segments: readonly string[]): string =>
  segments.map((segment) => `/${segment.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('')

/** Whether `segment` names an element of an array of `length` elements: a decimal index without leading zeros. */
export const isArrayIndex = (segment: string, length: number): boolean => /^(0|[1-9][0-9]{0,8})$/.test(segment) && Number(segment) < length
