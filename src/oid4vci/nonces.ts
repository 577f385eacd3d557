/**
 * The issuer's `c_nonce`s (OID4VCI 1.0 §7): random values kept in the one-time store (keyed hash only, kind `c-nonce`)
 * for `nonceTtlSeconds`, each taken once by the key proofs of one credential request.
 */
import type { OneTimeSeen, OneTimeStore } from '../one-time/index.js'
import { ONE_TIME_KINDS } from './grants.js'
import type { Oid4vciRuntime } from './module.js'

/** What nonces need of the service. */
export interface NonceContext {
  oneTime: OneTimeStore
  oid4vci: Oid4vciRuntime
}

/** A fresh `c_nonce` of the tenant's issuer, live for `nonceTtlSeconds`. */
export async function issueCNonce(ctx: NonceContext, tenantId: string): Promise<string> {
  const nonce = ctx.oid4vci.lib.randomToken()
  await ctx.oneTime.issue(tenantId, ONE_TIME_KINDS.cNonce, nonce, { ttlMs: ctx.oid4vci.options.nonceTtlSeconds * 1000 })
  return nonce
}

/**
 * Takes each nonce out (once, across processes); false when one is unknown, used or expired. `seen`: what
 * {@link liveCNonces} found of them (not read again).
 */
export async function consumeCNonces(
  ctx: Pick<NonceContext, 'oneTime'>,
  tenantId: string,
  nonces: readonly string[],
  seen?: readonly OneTimeSeen[],
): Promise<boolean> {
  for (const [i, nonce] of nonces.entries()) {
    if ((await ctx.oneTime.consume(tenantId, ONE_TIME_KINDS.cNonce, nonce, seen?.[i])) === undefined) return false
  }
  return true
}

/** Each nonce while live (a look, taking none: {@link consumeCNonces} takes them); undefined when one is not. */
export async function liveCNonces(
  ctx: Pick<NonceContext, 'oneTime'>,
  tenantId: string,
  nonces: readonly string[],
): Promise<OneTimeSeen[] | undefined> {
  const seen: OneTimeSeen[] = []
  for (const nonce of nonces) {
    const live = await ctx.oneTime.look(tenantId, ONE_TIME_KINDS.cNonce, nonce)
    if (live === undefined) return undefined
    seen.push(live)
  }
  return seen
}
