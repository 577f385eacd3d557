/**
 * The issuer's access tokens are sealed, not stored: the token endpoint hands out its {@link AccessGrant} (with the
 * DPoP key's thumbprint `jkt` and the expiry) encrypted and authenticated under a key derived from the one-time hashing
 * key (`OneTimeStore.seal`, AES-256-GCM, purpose `access-token`), bound to the tenant and the issuer slug; the
 * access-token authenticator opens it with a computation, reading nothing. A forged, altered, expired, another
 * tenant's or another issuer's token opens to nothing: `invalid_token`. The grant's claims (personal data) are
 * encrypted; storage holds no token and no grant.
 */
import type { OneTimeStore } from '../one-time/index.js'
import { ONE_TIME_KINDS, type AccessGrant } from './grants.js'

/** A sealed access token of `tenantId`'s issuer `grant.issuer`, good for `ttlMs`. Writes nothing. */
export function sealAccessToken(oneTime: Pick<OneTimeStore, 'seal'>, tenantId: string, grant: AccessGrant, ttlMs: number): string {
  return oneTime.seal(ONE_TIME_KINDS.accessToken, [tenantId, grant.issuer], { ...grant }, ttlMs)
}

/** The grant of an access token sealed for `tenantId`'s issuer `slug` while it is live; undefined otherwise. */
export function openAccessToken(
  oneTime: Pick<OneTimeStore, 'unseal'>,
  tenantId: string,
  slug: string,
  token: string,
): AccessGrant | undefined {
  const grant = oneTime.unseal(ONE_TIME_KINDS.accessToken, [tenantId, slug], token) as AccessGrant | undefined
  // A token of another issuer is unknown here, whatever its tenant (the binding says so already; the grant agrees).
  return grant?.issuer === slug ? grant : undefined
}
