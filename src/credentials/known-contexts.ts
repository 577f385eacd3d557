/**
 * The refinement of Sign Verifiable Credentials (see `OperationImplementation.refine`): every
 * context URL, global or per claim, is one this service has, bundled or registered with the
 * `contexts` option. Contexts are never fetched. The registry lives in the service, so the
 * browser-safe contract cannot check this.
 */
import { z } from 'zod'
import { getContext } from '../proofs/jsonld/contexts.js'
import type { ParsedInput } from '../operations/contract.js'
import type { CREDENTIAL_CONTRACTS } from './contracts.js'

const UNKNOWN_CONTEXT =
  'not a bundled or registered JSON-LD context (contexts are never fetched; register yours with the `contexts` option)'

export const knownContexts = z.custom<ParsedInput<(typeof CREDENTIAL_CONTRACTS)['signClaims']>>().superRefine((v, ctx) => {
  const check = (contexts: readonly unknown[] | undefined, path: PropertyKey[]) =>
    contexts?.forEach((context, j) => {
      if (typeof context === 'string' && getContext(context) === undefined) {
        ctx.addIssue({ code: 'custom', path: [...path, j], message: UNKNOWN_CONTEXT })
      }
    })
  check(v.context, ['context'])
  v.claims.forEach((claim, i) => check(claim.context, ['claims', i, 'context']))
})
