/**
 * Refresh tokens (RFC 6749 §6) for deferred issuance: a wallet collects a deferred credential long after its access
 * token expired. A token response whose grant covers a deferred configuration carries a `refresh_token`; the token
 * endpoint's `refresh_token` grant answers a new access token of the same grant (so the deferred transaction still
 * matches it) and a new refresh token, the old one consumed.
 *
 * A refresh token is a one-time value (kind `refresh-token`, keyed hash only), single use across processes, rotated
 * on each use, bound to the DPoP key of the grant when it has one (RFC 9449 §5), and good until the deferred
 * transaction's lifetime (the module's `deferredTtlSeconds`) from the first token: a rotation keeps that end. An
 * unknown, used, expired or other issuer's (so other tenant's) refresh token is `invalid_grant`; nothing is written.
 */
import type { OneTimeStore } from '../one-time/index.js'
import type { StorageAdapter } from '../storage/port.js'
import { ONE_TIME_KINDS, type AccessGrant, type TokenRedemption } from './grants.js'
import { authorizationServerMetadata } from './metadata.js'
import type { Oid4vciRuntime } from './module.js'
import { OAuthError } from './oauth-error.js'
import { configurationOf, type ConfigurationRecord } from './records.js'

/** What a refresh token's one-time value holds: the grant it renews and when the renewals end (UNIX ms). No secret. */
interface RefreshTokenData {
  grant: AccessGrant
  expiresAt: number
}

/** What the refresh grant uses of the service. */
export interface RefreshContext {
  storage: StorageAdapter
  oneTime: OneTimeStore
  oid4vci?: Oid4vciRuntime
  now: () => number
}

/** Until when (UNIX ms) a grant's refresh tokens are good: set when a configuration it covers is deferred. */
export function refreshableUntil(
  ctx: Pick<RefreshContext, 'now' | 'oid4vci'>,
  configurations: ReadonlyArray<Pick<ConfigurationRecord, 'deferred'> | undefined>,
): number | undefined {
  if (!ctx.oid4vci || !configurations.some((c) => c?.deferred === true)) return undefined
  return ctx.now() + ctx.oid4vci.options.deferredTtlSeconds * 1000
}

/** {@link refreshableUntil} of a grant's configurations, read from storage. */
export async function refreshableGrantUntil(ctx: RefreshContext, tenantId: string, grant: AccessGrant): Promise<number | undefined> {
  if (!ctx.oid4vci) return undefined
  return refreshableUntil(ctx, await Promise.all(grant.configurationIds.map((id) => configurationOf(ctx.storage, tenantId, id))))
}

/** Stores a new refresh token for `grant` (in the caller's transaction when `oneTime` is within one); returns it. */
export async function issueRefreshToken(
  ctx: Pick<RefreshContext, 'now' | 'oid4vci'>,
  oneTime: OneTimeStore,
  tenantId: string,
  grant: AccessGrant,
  expiresAt: number,
): Promise<string> {
  const token = ctx.oid4vci!.lib.randomToken()
  const data: RefreshTokenData = { grant: { ...grant }, expiresAt }
  await oneTime.issue(tenantId, ONE_TIME_KINDS.refreshToken, token, {
    ttlMs: Math.max(1, expiresAt - ctx.now()),
    data: { ...data },
  })
  return token
}

/**
 * The `refresh_token` grant: the token found by its keyed hash at this issuer, its DPoP binding checked, then in one
 * transaction consumed (once, across processes) and `finish` run with the same grant and the same end of renewals
 * (the caller stores the new access token and refresh token there): a refusal writes nothing.
 */
export async function redeemRefreshToken(
  ctx: RefreshContext,
  redemption: TokenRedemption,
  finish: (oneTime: OneTimeStore, grant: AccessGrant, refreshUntil: number) => Promise<void>,
): Promise<AccessGrant> {
  const { slug, tenantId, credentialIssuer, request, token, dpop } = redemption
  if (token.grant.type !== 'refresh_token') throw new OAuthError('unsupported_grant_type', 'not a refresh_token grant')
  const refreshToken = token.grant.refreshToken
  const unknown = () => new OAuthError('invalid_grant', 'the refresh token is unknown, used or expired')
  const seen = await ctx.oneTime.look(tenantId, ONE_TIME_KINDS.refreshToken, refreshToken)
  const data = seen?.data as RefreshTokenData | undefined
  if (!seen || !data || data.grant.issuer !== slug) throw unknown()
  const { grant } = data
  if (grant.jkt !== undefined && dpop?.jkt !== grant.jkt)
    throw new OAuthError('invalid_dpop_proof', 'the refresh token is bound to a DPoP key: a proof by that key is required')
  if (grant.jkt === undefined && dpop !== undefined)
    throw new OAuthError('invalid_dpop_proof', 'the refresh token is not DPoP-bound: its access tokens are Bearer tokens')
  await ctx.oid4vci!.protocol.token.verifyGrant(request, token, {
    metadata: authorizationServerMetadata(credentialIssuer, []),
    expiresAt: new Date(data.expiresAt),
  })
  await ctx.storage.transaction(async (tx) => {
    const oneTime = ctx.oneTime.within(tx)
    if ((await oneTime.consume(tenantId, ONE_TIME_KINDS.refreshToken, refreshToken, seen)) === undefined) throw unknown()
    await finish(oneTime, grant, data.expiresAt)
  })
  return grant
}
