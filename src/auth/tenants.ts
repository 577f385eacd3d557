/**
 * Tenants: the Base Auth Token names a tenant, and every record belongs to one. The shipped
 * resolver over stored API keys is `ApiKeyTenants` (auth/api-keys).
 */
import { createHash, timingSafeEqual } from 'node:crypto'

/** Maps a Base Auth Token to its tenant, or null when the token is unknown. */
export interface TenantResolver {
  authenticate(token: string): Promise<string | null>
  /** Optional: the tenant and the id of the key (audit records name it), instead of {@link authenticate}. */
  identify?(token: string): Promise<{ tenantId: string; keyId: string } | null>
}

/**
 * The tenant id of the audit trail's system chain (acts of no tenant): no tenant may be named so
 * (`@` is not allowed in the ids of API keys, and the authenticator refuses a resolver returning it).
 */
export const SYSTEM_TENANT = '@system'

const hashKey = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex')

/** A fixed token → tenant map, for tests and embedding. Compares in constant time. */
export function staticTenants(map: Record<string, string>): TenantResolver {
  const entries = Object.entries(map).map(([token, tenant]) => [Buffer.from(hashKey(token), 'hex'), tenant] as const)
  return {
    async authenticate(token) {
      const h = Buffer.from(hashKey(token), 'hex')
      const hit = entries.find(([k]) => timingSafeEqual(k, h))
      return hit ? hit[1] : null
    },
  }
}

/** The token of an `Authorization` header: `Bearer <token>` or the bare token. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header || header.length > MAX_AUTHORIZATION) return undefined
  const trimmed = header.trim()
  const token = /^bearer\s/i.test(trimmed) ? trimmed.slice(7).trim() : trimmed
  return token.length > 0 ? token : undefined
}

/** Longest `Authorization` value looked at (an Access Token JWT is well under it). */
const MAX_AUTHORIZATION = 16 * 1024
