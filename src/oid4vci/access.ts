/**
 * The access-token authenticator of the OID4VCI issuer (requirement `oid4vci-access`): from the headers alone —
 * before the body is read — the issuer the path names, the access token (`Authorization: DPoP …` or `Bearer …`)
 * opened as the sealed grant it is (`access-tokens.ts`: no read), and for a DPoP-bound token the DPoP proof of this
 * request (method, URL, `ath`, bound key; its `jti` remembered once across processes). The caller is the issuer's tenant, with the grant.
 */
import type { AuthContext } from '../auth/context.js'
import type { OneTimeStore } from '../one-time/index.js'
import type { StorageAdapter } from '../storage/port.js'
import { openAccessToken } from './access-tokens.js'
import { ONE_TIME_KINDS, type AccessCaller, type AccessGrant } from './grants.js'
import type { Oid4vciRuntime } from './module.js'
import { OAuthError } from './oauth-error.js'
import { issuerBySlug } from './records.js'

/** What the authenticator reads. */
export interface AccessContext {
  storage: StorageAdapter
  oneTime: OneTimeStore
  oid4vci: Oid4vciRuntime
}

/** Authenticates an OID4VCI resource request (credential, deferred credential, notification endpoints). */
export async function authenticateAccess(ctx: AccessContext, auth: AuthContext): Promise<AccessCaller> {
  const slug = auth.params?.issuer
  const issuer = slug === undefined ? undefined : await issuerBySlug(ctx.storage, slug)
  if (!issuer) throw new OAuthError('invalid_request', 'no such credential issuer', 404)
  const request = { method: auth.method ?? 'POST', url: auth.url ?? '', dpop: auth.dpop, authorization: auth.authorization }
  const verified = await ctx.oid4vci.lib.verifyResourceRequest<AccessGrant>(
    request,
    (token) => Promise.resolve(openAccessToken(ctx.oneTime, issuer.tenantId, issuer.slug, token)),
    ctx.oid4vci.protocol.dpop,
  )
  if (verified.dpop) {
    const fresh = await ctx.oneTime.remember(
      issuer.tenantId,
      ONE_TIME_KINDS.dpopJti,
      verified.dpop.jti,
      Math.max(1, verified.dpop.expiresAt.getTime() - Date.now()),
    )
    if (!fresh)
      throw new OAuthError('invalid_dpop_proof', 'the DPoP proof was used before', 401, {
        headers: { 'WWW-Authenticate': 'DPoP error="invalid_dpop_proof"' },
      })
  }
  return { tenantId: issuer.tenantId, dids: [], addresses: [], grant: verified.record }
}
