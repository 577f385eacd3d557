/**
 * The authenticator of the issuer's unauthenticated wallet-facing endpoints that need the request itself (requirement
 * `oid4vci-wallet`: PAR, authorization): no credential is checked; the Credential Issuer the path names gives the
 * tenant, and the request's method, public URL and `DPoP` header ride on the caller for the operation (DPoP `htu`).
 * No `publicUrl` or an unknown slug: 404.
 */
import type { AuthContext, Caller } from '../auth/context.js'
import type { StorageAdapter } from '../storage/port.js'
import { credentialIssuerOf } from './issuer-url.js'
import { OAuthError } from './oauth-error.js'
import type { WalletRequest } from './protocol/index.js'
import { issuerBySlug } from './records.js'

/** What an `oid4vci-wallet` caller carries. */
export interface WalletCall {
  /** The issuer slug. */
  issuer: string
  /** The Credential Issuer Identifier. */
  credentialIssuer: string
  request: WalletRequest
}

/** Finds the issuer of the request's path; its tenant is the caller's. */
export async function authenticateWallet(
  ctx: { storage: StorageAdapter; config: { publicUrl?: string } },
  auth: AuthContext,
): Promise<Caller> {
  const slug = auth.params?.issuer
  const { publicUrl } = ctx.config
  const issuer = slug === undefined || publicUrl === undefined ? undefined : await issuerBySlug(ctx.storage, slug)
  if (!issuer || publicUrl === undefined) throw new OAuthError('invalid_request', 'no such credential issuer', 404)
  const wallet: WalletCall = {
    issuer: issuer.slug,
    credentialIssuer: credentialIssuerOf(publicUrl, issuer.slug),
    request: { method: auth.method ?? 'GET', url: auth.url ?? '', ...(auth.dpop !== undefined && { dpop: auth.dpop }) },
  }
  return { tenantId: issuer.tenantId, dids: [], addresses: [], wallet }
}

/** The wallet request of a caller {@link authenticateWallet} made; a refusal for any other caller. */
export function walletCallOf(caller: Caller): WalletCall {
  const wallet = caller.wallet as WalletCall | undefined
  if (wallet === undefined || typeof wallet.issuer !== 'string') throw new OAuthError('invalid_request', 'no such credential issuer', 404)
  return wallet
}
