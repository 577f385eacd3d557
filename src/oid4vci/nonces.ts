/**
 * The issuer's `c_nonce`s (OID4VCI 1.0 §7): stateless until used. A nonce is `<expiry>.<random>.<mac>` — its expiry
 * (UNIX ms, base 36), 32 random bytes and a keyed hash of both under the service's one-time hashing key, bound to the
 * tenant — so the nonce endpoint writes nothing, and a forged, another tenant's or an expired nonce is refused by a
 * computation. A nonce is used once: the credential request that uses it remembers it in the one-time store (keyed hash
 * only, kind `c-nonce`, until its expiry) — its record inserted with the credentials and their audit records in one
 * `storage.insertAll` ({@link cNonceUses}); a second use conflicts with it, and nothing of that request is written.
 */
import { timingSafeEqual } from 'node:crypto'
import { ONE_TIME, type OneTimeRecord, type OneTimeStore } from '../one-time/index.js'
import type { CollectionWrite } from '../storage/port.js'
import { ONE_TIME_KINDS } from './grants.js'
import type { Oid4vciRuntime } from './module.js'

/** What nonces need of the service. */
export interface NonceContext {
  oneTime: OneTimeStore
  oid4vci: Oid4vciRuntime
  now: () => number
}

/** The purpose of the nonces' keyed hash (`OneTimeStore.keyed`). */
const PURPOSE = 'c-nonce'

/** A nonce of `tenantId` expiring at `expiresAt` (UNIX ms) made of `random`: what {@link issueCNonce} answers. */
export function mintCNonce(oneTime: Pick<OneTimeStore, 'keyed'>, tenantId: string, expiresAt: number, random: string): string {
  const body = `${expiresAt.toString(36)}.${random}`
  return `${body}.${oneTime.keyed(PURPOSE, tenantId, body)}`
}

/** A fresh `c_nonce` of the tenant's issuer, live for `nonceTtlSeconds`. Writes nothing. */
export function issueCNonce(ctx: NonceContext, tenantId: string): Promise<string> {
  const expiresAt = ctx.now() + ctx.oid4vci.options.nonceTtlSeconds * 1000
  return Promise.resolve(mintCNonce(ctx.oneTime, tenantId, expiresAt, ctx.oid4vci.lib.randomToken()))
}

/** The expiry of `nonce` when it is one of the tenant's and live at `now`; undefined otherwise (a computation). */
function expiryOf(oneTime: Pick<OneTimeStore, 'keyed'>, tenantId: string, nonce: string, now: number): number | undefined {
  const parts = nonce.split('.')
  if (parts.length !== 3 || !/^[0-9a-z]{1,12}$/.test(parts[0])) return undefined
  const expected = Buffer.from(oneTime.keyed(PURPOSE, tenantId, `${parts[0]}.${parts[1]}`))
  const given = Buffer.from(parts[2])
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined
  const expiresAt = parseInt(parts[0], 36)
  return expiresAt > now ? expiresAt : undefined
}

/** Whether every nonce is one of the tenant's, live (a computation: whether one was used is {@link consumeCNonces}'s). */
export function liveCNonces(ctx: Pick<NonceContext, 'oneTime' | 'now'>, tenantId: string, nonces: readonly string[]): boolean {
  const now = ctx.now()
  return nonces.every((nonce) => expiryOf(ctx.oneTime, tenantId, nonce, now) !== undefined)
}

/**
 * The one-time records that use `nonces` (as `rememberUntil` inserts them: each nonce once), or undefined when one is
 * not the tenant's or has expired. A computation: nothing is read or written.
 */
function cNonceRecords(
  ctx: Pick<NonceContext, 'oneTime' | 'now'>,
  tenantId: string,
  nonces: readonly string[],
): OneTimeRecord[] | undefined {
  const now = ctx.now()
  const records: OneTimeRecord[] = []
  for (const nonce of new Set(nonces)) {
    const expiresAt = expiryOf(ctx.oneTime, tenantId, nonce, now)
    const record = expiresAt === undefined ? undefined : ctx.oneTime.rememberedUntil(tenantId, ONE_TIME_KINDS.cNonce, nonce, expiresAt)
    if (record === undefined) return undefined
    records.push(record)
  }
  return records
}

/**
 * The records that use `nonces` ({@link cNonceRecords}), to insert with the writes the nonces were used for — one
 * `storage.insertAll`, where a unique conflict on the one-time collection (`isOneTimeTaken`) means a nonce was used
 * before and nothing is written. Undefined when one is not the tenant's or has expired (a computation: nothing is read
 * or written).
 */
export function cNonceUses(
  ctx: Pick<NonceContext, 'oneTime' | 'now'>,
  tenantId: string,
  nonces: readonly string[],
): CollectionWrite | undefined {
  const records = cNonceRecords(ctx, tenantId, nonces)
  return records && { collection: ONE_TIME.name, records }
}

/**
 * Uses the nonces (once, across processes: each remembered until its expiry); false when one is not the tenant's,
 * expired or used before, and then none is used. The records of {@link cNonceUses} in one unique insert of their own
 * (`OneTimeStore.rememberAll`: a deferred request's, before it stores its pending issuance; the credential request
 * inserts them with its credentials instead).
 */
export async function consumeCNonces(
  ctx: Pick<NonceContext, 'oneTime' | 'now'>,
  tenantId: string,
  nonces: readonly string[],
): Promise<boolean> {
  // The nonces carry their expiry: their records expire with them, so the unique insert alone decides (no read).
  const records = cNonceRecords(ctx, tenantId, nonces)
  return records !== undefined && (await ctx.oneTime.rememberAll(records))
}
