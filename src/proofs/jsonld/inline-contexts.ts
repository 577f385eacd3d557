/**
 * Limits of an inline (embedded) JSON-LD context given when signing: a context definition
 * object in `context`, standard JSON-LD, processed offline like any context (a URL it
 * references, through `@import` or a scoped `@context`, must be bundled or registered). The
 * credential it ends up in is bounded by the JSON-LD work bounds as a whole; these limits keep
 * each context itself small. Pure data checks, no imports: request schemas use them.
 */

/** Longest inline context, in characters of its JSON text. */
export const MAX_INLINE_CONTEXT_CHARS = 16_384

/** Most term definitions in one inline context, those of its scoped contexts included. */
export const MAX_INLINE_CONTEXT_TERMS = 256

/** A value on the walk, and whether it is a context definition (its non-keyword keys are terms). */
interface Frame {
  value: unknown
  isContext: boolean
}

/** Characters of a JSON scalar's text. */
const scalarChars = (value: unknown) => (typeof value === 'string' ? JSON.stringify(value).length : String(value).length)

/**
 * Why `context` is over an inline-context limit (the message names it), or undefined when it is
 * within both. One iterative walk that stops at the first limit exceeded, whatever the nesting.
 */
export function inlineContextProblem(context: Record<string, unknown>): string | undefined {
  let chars = 0
  let terms = 0
  const stack: Frame[] = [{ value: context, isContext: true }]
  for (let frame = stack.pop(); frame !== undefined; frame = stack.pop()) {
    const { value, isContext } = frame
    if (typeof value !== 'object' || value === null) {
      chars += scalarChars(value)
    } else if (Array.isArray(value)) {
      // `[a,b]`: brackets and commas; the elements of a `@context` array are contexts too.
      chars += 1 + Math.max(1, value.length)
      for (const item of value) stack.push({ value: item, isContext })
    } else {
      const keys = Object.keys(value)
      chars += 1 + Math.max(1, keys.length)
      for (const key of keys) {
        chars += JSON.stringify(key).length + 1
        if (isContext && !key.startsWith('@')) terms++
        stack.push({ value: (value as Record<string, unknown>)[key], isContext: key === '@context' })
      }
    }
    if (chars > MAX_INLINE_CONTEXT_CHARS) return `an inline context is over the limit of ${MAX_INLINE_CONTEXT_CHARS} characters of JSON`
    if (terms > MAX_INLINE_CONTEXT_TERMS) return `an inline context is over the limit of ${MAX_INLINE_CONTEXT_TERMS} term definitions`
  }
  return undefined
}
