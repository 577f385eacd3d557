/**
 * TODO(lead, at the merge of helper "vp-evaluate"): DELETE THIS FILE. It stands in for `checkVpTokenBounds`
 * (src/oid4vp/vp-token-bounds.ts) and `evaluateVpToken` (src/oid4vp/evaluate.ts) until those are merged; then the two
 * imports of `responses.ts` name those files instead (the signatures are the ones the common brief gives), the
 * `vi.mock` of test/oid4vp/responses.test.ts names `../../src/oid4vp/evaluate.js`, and its `it.todo` is written.
 */
import type { Caller } from '../auth/context.js'
import type { PresentationOutcome } from './outcome-schemas.js'

/** Stand-in of vp-evaluate's context type. */
export type EvaluateContext = object

/** Minimal stand-in of the bounds check: the count of presentations only (vp-evaluate's also bounds nesting and sizes). */
export function checkVpTokenBounds(vpToken: unknown, bounds: { maxPresentations: number }): string | undefined {
  if (typeof vpToken !== 'object' || vpToken === null || Array.isArray(vpToken)) return 'vp_token must be a JSON object'
  let count = 0
  for (const presentations of Object.values(vpToken)) count += Array.isArray(presentations) ? presentations.length : 1
  return count > bounds.maxPresentations ? `vp_token holds more than ${bounds.maxPresentations} presentations` : undefined
}

/** Stand-in of the evaluation: not merged yet, so nothing is ever verified here. */
export function evaluateVpToken(
  _ctx: EvaluateContext,
  _caller: Caller,
  _request: { dcqlQuery: Record<string, unknown>; nonce: string; clientId: string; transactionData?: string[] },
  _vpToken: unknown,
): Promise<PresentationOutcome> {
  return Promise.reject(new Error('evaluateVpToken is not merged yet (src/oid4vp/evaluate.ts of helper vp-evaluate)'))
}
