/**
 * The Credential Issuer a public wallet-facing request is for (PAR, authorization, the login page's return): the
 * issuer its path names (`:issuer`) — whose tenant the operation acts for — and the request's method, public URL and
 * `DPoP` header (a DPoP proof's `htm`/`htu`), read from the request the handler is given. No `publicUrl` or an unknown
 * slug: 404. Nothing here authenticates anybody: PKCE, the pushed request and the login assertion do.
 */
import type { AuthContext } from '../auth/context.js'
import type { StorageAdapter } from '../storage/port.js'
import { credentialIssuerOf } from './issuer-url.js'
import { OAuthError } from './oauth-error.js'
import type { WalletRequest } from './protocol/index.js'
import { issuerBySlug } from './records.js'

/** A wallet's request to a Credential Issuer. */
export interface WalletCall {
  /** The tenant whose issuer the path names. */
  tenantId: string
  /** The issuer slug. */
  issuer: string
  /** The Credential Issuer Identifier. */
  credentialIssuer: string
  request: WalletRequest
}

/** The issuer of the request's path and the request as a DPoP proof sees it. */
export async function walletCallOf(
  ctx: { storage: StorageAdapter; config: { publicUrl?: string } },
  auth: AuthContext,
): Promise<WalletCall> {
  const slug = auth.params?.issuer
  const { publicUrl } = ctx.config
  const issuer = slug === undefined || publicUrl === undefined ? undefined : await issuerBySlug(ctx.storage, slug)
  if (!issuer || publicUrl === undefined) throw new OAuthError('invalid_request', 'no such credential issuer', 404)
  return {
    tenantId: issuer.tenantId,
    issuer: issuer.slug,
    credentialIssuer: credentialIssuerOf(publicUrl, issuer.slug),
    request: { method: auth.method ?? 'GET', url: auth.url ?? '', ...(auth.dpop !== undefined && { dpop: auth.dpop }) },
  }
}
