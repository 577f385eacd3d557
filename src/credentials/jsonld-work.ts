/**
 * What operations need of JSON-LD work bounds: each input given in a request checked before
 * anything else (422 naming it and the bound), and the caller's hasher, which canonicalizes in
 * the service's worker pool under the caller's tenant cap.
 */
import type { Caller } from '../auth/context.js'
import { jsonLdBoundsError } from '../proofs/jsonld/bounds.js'
import type { CanonicalHasher } from '../proofs/jsonld/canonical-hasher.js'
import { invalid } from '../errors.js'
import type { CredentialsContext } from './context.js'

/** The hasher of `caller`'s JSON-LD work: the service's bounds, its worker pool, the tenant's cap. */
export function jsonLdHasher(ctx: Pick<CredentialsContext, 'config' | 'jsonld'>, caller: Caller): CanonicalHasher {
  return ctx.jsonld.hasherFor(caller.tenantId, ctx.config.limits.jsonld)
}

/**
 * Refuses (422, `VALIDATION_ERROR`) a JSON-LD input over one of the service's bounds or holding
 * a `__proto__`, `constructor` or `prototype` key; the message starts with `field`.
 */
export function assertJsonLdInput(ctx: Pick<CredentialsContext, 'config'>, value: unknown, field: string): void {
  const refused = jsonLdBoundsError(value, ctx.config.limits.jsonld)
  if (refused !== undefined) throw invalid(`${field}: ${refused.message}`)
}
