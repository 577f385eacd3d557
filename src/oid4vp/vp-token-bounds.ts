/**
 * The bounds of a wallet's `vp_token`, checked before any verification (the response endpoint runs it on the parsed
 * JSON): an object of credential query ids to arrays, at most `maxPresentations` presentations in all, JSON nested at
 * most `maxDepth` levels, no string longer than `maxStringChars`, at most `maxNodes` values. Iterative: a hostile
 * nesting cannot exhaust the stack. Browser-safe, no library.
 */

/** The bounds of {@link checkVpTokenBounds}; all but `maxPresentations` have defaults. */
export interface VpTokenBounds {
  /** Most presentations in the whole `vp_token` (`Oid4vpOptions.maxPresentations`). */
  maxPresentations: number
  /** Deepest nesting of the JSON, the `vp_token` object being level 1. Default 64. */
  maxDepth?: number
  /** Longest string (a compact SD-JWT or VP-JWT, a claim value). Default 1 MiB of characters. */
  maxStringChars?: number
  /** Most JSON values in all. Default 200,000. */
  maxNodes?: number
}

export const VP_TOKEN_BOUNDS_DEFAULTS = { maxDepth: 64, maxStringChars: 1024 * 1024, maxNodes: 200_000 } as const

/** Longest credential query id: DCQL ids are short alphanumeric strings. */
const MAX_ID_CHARS = 200

/**
 * Why `vpToken` is out of bounds, or undefined when it is within them. Checks the form only as far as counting needs
 * (an object whose values are arrays); the rest of the form is the evaluation's.
 */
export function checkVpTokenBounds(vpToken: unknown, bounds: VpTokenBounds): string | undefined {
  const { maxPresentations } = bounds
  const maxDepth = bounds.maxDepth ?? VP_TOKEN_BOUNDS_DEFAULTS.maxDepth
  const maxStringChars = bounds.maxStringChars ?? VP_TOKEN_BOUNDS_DEFAULTS.maxStringChars
  const maxNodes = bounds.maxNodes ?? VP_TOKEN_BOUNDS_DEFAULTS.maxNodes
  if (typeof vpToken !== 'object' || vpToken === null || Array.isArray(vpToken))
    return 'vp_token must be a JSON object of credential query ids to arrays of presentations'
  let presentations = 0
  for (const [id, value] of Object.entries(vpToken)) {
    if (id.length > MAX_ID_CHARS) return `vp_token: a credential query id is longer than ${MAX_ID_CHARS} characters`
    if (!Array.isArray(value)) return `vp_token: the value of '${shortId(id)}' must be an array of presentations`
    presentations += value.length
    if (presentations > maxPresentations) return `vp_token: more than ${maxPresentations} presentations`
  }
  // Depth first over an explicit stack: [value, depth].
  const stack: Array<[unknown, number]> = [[vpToken, 1]]
  let nodes = 0
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!
    if (++nodes > maxNodes) return `vp_token: more than ${maxNodes} JSON values`
    if (typeof value === 'string') {
      if (value.length > maxStringChars) return `vp_token: a string is longer than ${maxStringChars} characters`
      continue
    }
    if (typeof value !== 'object' || value === null) continue
    if (depth > maxDepth) return `vp_token: nested deeper than ${maxDepth} levels`
    const children = Array.isArray(value) ? value : Object.entries(value).flat()
    for (const child of children) stack.push([child, depth + 1])
  }
  return undefined
}

const shortId = (id: string) => (id.length > 40 ? `${id.slice(0, 40)}…` : id)
