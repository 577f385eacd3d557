/**
 * Tenants: the Base Auth Token names a tenant, and every record belongs to one.
 * The shipped resolver holds API keys as SHA-256 hashes only.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { UniqueConstraintError, type StorageAdapter } from '../storage/port.js'
import type { ApiKeyRecord } from '../storage/collections.js'

/** Maps a Base Auth Token to its tenant, or null when the token is unknown. */
export interface TenantResolver {
  authenticate(token: string): Promise<string | null>
}

const hashKey = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex')

/** A tenant id: letters, digits, `_`, `-`, `.`, at most 64 characters. */
export const TENANT_ID = /^[A-Za-z0-9_.-]{1,64}$/

/** API keys stored in the service's `apiKeys` collection as hashes. */
export class ApiKeyTenants implements TenantResolver {
  constructor(private readonly storage: StorageAdapter) {}

  async authenticate(token: string): Promise<string | null> {
    if (token.length < 16 || token.length > 512) return null
    const record = await this.storage.collection<ApiKeyRecord>('apiKeys').findOne({ field: 'hash', op: 'eq', value: hashKey(token) })
    return record ? record.tenantId : null
  }

  /** Creates a random key for `tenantId`; the key is returned once and only its hash is stored. */
  async createKey(tenantId: string): Promise<string> {
    const key = `dvk_${randomBytes(32).toString('base64url')}`
    await this.addKey(tenantId, key)
    return key
  }

  /** Registers a key chosen by the operator (e.g. from `DIDVAULT_API_KEYS`). Idempotent. */
  async addKey(tenantId: string, key: string): Promise<void> {
    if (!TENANT_ID.test(tenantId)) throw new Error(`invalid tenant id: ${tenantId}`)
    if (key.length < 16) throw new Error('API keys must be at least 16 characters')
    const hash = hashKey(key)
    const keys = this.storage.collection<ApiKeyRecord>('apiKeys')
    const check = async () => {
      const existing = await keys.findOne({ field: 'hash', op: 'eq', value: hash })
      if (existing && existing.tenantId !== tenantId) throw new Error('this API key is registered for another tenant')
      return existing !== undefined
    }
    if (await check()) return
    try {
      await keys.insert({ id: hash.slice(0, 32), tenantId, hash, createdAt: Date.now() })
    } catch (err) {
      // Another process registered the same key at the same moment: fine if it is the same tenant's.
      if (!(err instanceof UniqueConstraintError) || !(await check())) throw err
    }
  }

  /** Whether any key exists (the CLI creates a first one when none does). */
  async hasKeys(): Promise<boolean> {
    return (await this.storage.collection('apiKeys').count({ and: [] })) > 0
  }
}

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
