/** Refinement helper: batch items that repeat an earlier one (by a key such as a DID's principal) are 422s naming them. */
import type { z } from 'zod'

/** Adds an issue at `pathOf(i)` for every item whose key an earlier item had. */
export function noDuplicates<T>(
  ctx: z.RefinementCtx,
  items: readonly T[],
  key: (item: T) => string,
  pathOf: (i: number) => PropertyKey[],
  message: string,
): void {
  const seen = new Set<string>()
  items.forEach((item, i) => {
    const k = key(item)
    if (seen.has(k)) ctx.addIssue({ code: 'custom', path: pathOf(i), message })
    seen.add(k)
  })
}

export const DUPLICATE = 'duplicate of an earlier item'
