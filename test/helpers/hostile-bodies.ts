/**
 * Request bodies that cost a server the most for their size (issue 28 finding 1), as JSON text:
 * deep nesting, wide objects, many strings, U+0000 and lone surrogates placed last and deepest.
 * Shared by the tests (test/http/body-bounds*.test.ts) and the bench (bench/hostile-bodies.ts).
 */

/** `depth` levels of arrays (`[[…]]`) or objects (`{"a":{"a":…}}`) around the JSON text `leaf`. */
export function nested(depth: number, leaf: string, kind: 'arrays' | 'objects'): string {
  return kind === 'arrays' ? '['.repeat(depth) + leaf + ']'.repeat(depth) : '{"a":'.repeat(depth) + leaf + '}'.repeat(depth)
}

/** The probe's body: U+0000 in a string nested 25,000 arrays deep in `POST /wallet` (49 KiB). */
export const DEEP_NUL_BODY = `{"wallet":${nested(25_000, '"\\u0000"', 'arrays')}}`

/** Escaped JSON strings a body may not hold (value or key). */
export const NUL = '"\\u0000"'
export const LONE_SURROGATE = '"x\\ud800"'

export interface HostileBody {
  name: string
  /** The JSON text, at most the size asked for. */
  text: string
}

/**
 * Bodies of about `bytes` (never more) for `POST /wallet` that a server with `limits.depth` =
 * `depth` must still read: each within the depth, in the shapes that cost most — many chains
 * nested to the limit (arrays, objects), one object of tens of thousands of keys, an array of
 * hundreds of thousands of short strings — clean, and with U+0000 or a lone surrogate in the
 * last string of the deepest chain (the whole text is read before it is found).
 */
export function worstAdmittedBodies(bytes: number, depth: number): HostileBody[] {
  // `{"wallet":[ … ]}`: the array is level 2, so a chain in it may nest depth − 2 more levels.
  const chain = depth - 2
  const filled = (unit: string, last: string, open = '{"wallet":[', close = ']}') => {
    const count = Math.floor((bytes - open.length - close.length - last.length) / (unit.length + 1))
    return open + Array<string>(count).fill(unit).join(',') + ',' + last + close
  }
  const keys = (last: string) => {
    const open = '{"wallet":{'
    const parts: string[] = []
    let size = open.length + 2 + last.length
    for (let i = 0; size + 12 < bytes; i++) {
      const part = `"k${i}":0`
      parts.push(part)
      size += part.length + 1
    }
    return `${open}${parts.join(',')},${last}}}`
  }
  return [
    { name: 'chains of arrays', text: filled(nested(chain, '0', 'arrays'), nested(chain, '0', 'arrays')) },
    { name: 'chains of arrays, U+0000 last', text: filled(nested(chain, '0', 'arrays'), nested(chain, NUL, 'arrays')) },
    { name: 'chains of objects', text: filled(nested(chain, '0', 'objects'), nested(chain, '0', 'objects')) },
    {
      name: 'chains of objects, lone surrogate last',
      text: filled(nested(chain, '0', 'objects'), nested(chain, LONE_SURROGATE, 'objects')),
    },
    { name: 'unknown keys', text: keys('"last":0') },
    { name: 'unknown keys, U+0000 in the last key', text: keys('"last\\u0000":0') },
    { name: 'short strings', text: filled('"a"', '"a"') },
    { name: 'short strings, lone surrogate last', text: filled('"a"', LONE_SURROGATE) },
  ]
}

/** The message of a body nesting deeper than `limit`. */
export const TOO_DEEP = (limit: number) => `invalid request: body nests objects and arrays deeper than limits.depth = ${limit}`

/**
 * What the request check must answer for `value`, found independently of the service (a plain
 * recursive walk in the order of the JSON text): too deep, or the first string holding U+0000 or a
 * lone surrogate with its path, or nothing.
 */
export function expectedRefusal(value: unknown, limit: number): string | undefined {
  const shown = (s: string) => s.replaceAll('\u0000', '\\u0000').replace(/\p{Cs}/gu, (c) => `\\u${c.charCodeAt(0).toString(16)}`)
  const bad = (s: string) => (s.includes('\u0000') ? 'U+0000' : /\p{Cs}/u.test(s) ? 'a lone surrogate (ill-formed UTF-16)' : undefined)
  let deepest = 0
  let first: string | undefined
  const walk = (v: unknown, path: string[], depth: number) => {
    if (typeof v === 'string') {
      const problem = bad(v)
      if (problem && first === undefined)
        first = `invalid request: ${shown(path.join('.')) || 'body'}: ${problem} is not accepted in strings`
      return
    }
    if (typeof v !== 'object' || v === null) return
    deepest = Math.max(deepest, depth)
    for (const [k, child] of Object.entries(v)) {
      const problem = Array.isArray(v) ? undefined : bad(k)
      if (problem && first === undefined) first = `invalid request: ${shown([...path, k].join('.'))}: ${problem} is not accepted in strings`
      walk(child, [...path, k], depth + 1)
    }
  }
  walk(value, [], 1)
  return deepest > limit ? TOO_DEEP(limit) : first
}

/**
 * What `POST /wallet` must answer (its error message) for one of {@link worstAdmittedBodies}:
 * the request check's refusal, else the schema's (an array where the wallet object goes, or
 * unknown keys — named, but tens of thousands of them not echoed back).
 */
export function expectedWalletRefusal(value: unknown, limit: number): string {
  const wallet = (value as { wallet: unknown }).wallet
  return (
    expectedRefusal(value, limit) ??
    (Array.isArray(wallet)
      ? 'invalid request: wallet: Invalid input: expected object, received array'
      : `invalid request: wallet: Unrecognized keys: "k0", "k1", "k2", "k3", "k4" and ${Object.keys(wallet as object).length - 5} more`)
  )
}
