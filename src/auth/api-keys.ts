/**
 * The shipped {@link TenantResolver}: API keys kept in the `apiKeys` collection as keyed
 * hashes only (DESIGN §4 *API keys*).
 *
 * Stored hash = HMAC-SHA-256(k, SHA-256(key)). `k` is 32 random bytes sealed by the keyring
 * in `meta/apiKeyHashing` (so master-key rotation reseals it and keys keep working); a copy of
 * the database without the master key cannot test guesses of a key offline. Databases of
 * earlier releases held SHA-256(key): {@link ApiKeyTenants.open} rewrites those rows once.
 * A revoked key leaves its keyed hash in `meta` (`apiKeyRevoked:<hash>`), so that it is never
 * registered again: revocation is permanent, whatever `DIDVAULT_API_KEYS` still lists.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto'
import type { Keyring } from '../keys/keyring.js'
import { UniqueConstraintError, type Collection, type StorageAdapter } from '../storage/port.js'
import { type ApiKeyRecord } from './records.js'
import { sealedHashingKey } from '../custody/hashing-key.js'
import type { MetaRecord } from '../custody/records.js'
import type { TenantResolver } from './tenants.js'
import { API_KEYS } from './records.js'
import { collectionOf } from '../storage/declaration.js'

/** A tenant id: letters, digits, `_`, `-`, `.`, at most 64 characters. */
export const TENANT_ID = /^[A-Za-z0-9_.-]{1,64}$/

/** What an operator sees of a key: never the key or its hash. */
export interface ApiKeyInfo {
  id: string
  tenantId: string
  label?: string
  /** ISO 8601. */
  createdAt: string
  /** ISO 8601; updated at most once a minute per key. */
  lastUsedAt?: string
}

/** A key as created: `key` is shown this once. */
export interface CreatedApiKey extends ApiKeyInfo {
  key: string
}

const HASHING_RECORD = { tenantId: '_system', id: 'apiKeyHashing' }
/** The `meta` record left by a revoked key: its keyed hash (in the id), never the key. */
const tombstoneId = (hash: string) => `apiKeyRevoked:${hash}`
const SCHEME = 'hmac-sha256'
/** How often `lastUsedAt` is written for one key, at most. */
const LAST_USED_EVERY_MS = 60_000
const MAX_LABEL = 200

/** What stays of a revoked key, so that it is never registered again. */
interface TombstoneMeta extends MetaRecord {
  keyId: string
  keyTenantId: string
}

/** {@link ApiKeyTenants.add} of a key that was revoked: revocation is permanent. Names the key's id, never the key. */
export class ApiKeyRevokedError extends Error {
  constructor(
    readonly keyId: string,
    readonly tenantId: string,
  ) {
    super(`API key ${keyId} of tenant "${tenantId}" was revoked: a revoked key is never registered again`)
    this.name = 'ApiKeyRevokedError'
  }
}

const sha256 = (key: string) => createHash('sha256').update(key, 'utf8').digest()

/**
 * Records a key's creation or revocation inside the transaction that makes it (the service
 * appends it to the audit trail's system chain): the key's id and tenant, never the key.
 */
export type ApiKeyJournal = (tx: StorageAdapter, act: { action: 'apiKey.create' | 'apiKey.revoke'; keyId: string }) => Promise<void>

/** API keys of the service's storage: authenticate, create, add, list, revoke. */
export class ApiKeyTenants implements TenantResolver {
  readonly #storage: StorageAdapter
  readonly #keys: Collection<ApiKeyRecord>
  readonly #hmacKey: Buffer
  readonly #now: () => number
  readonly #journal: ApiKeyJournal

  private constructor(storage: StorageAdapter, hmacKey: Buffer, now: () => number, journal: ApiKeyJournal) {
    this.#storage = storage
    this.#keys = collectionOf(storage, API_KEYS)
    this.#hmacKey = hmacKey
    this.#now = now
    this.#journal = journal
  }

  /**
   * Loads (or creates) the sealed hashing key and migrates unkeyed hashes of earlier releases.
   * `journal` records each key created or revoked, in the same transaction.
   */
  static async open(
    storage: StorageAdapter,
    keyring: Keyring,
    now: () => number = Date.now,
    journal: ApiKeyJournal = async () => {},
  ): Promise<ApiKeyTenants> {
    const tenants = new ApiKeyTenants(storage, await sealedHashingKey(storage, keyring, HASHING_RECORD.id), now, journal)
    await tenants.#migrateUnkeyed(storage)
    return tenants
  }

  #hash(key: string): string {
    return this.#keyed(sha256(key))
  }

  #keyed(digest: Buffer): string {
    return createHmac('sha256', this.#hmacKey).update(digest).digest('hex')
  }

  async authenticate(token: string): Promise<string | null> {
    return (await this.identify(token))?.tenantId ?? null
  }

  /** The tenant of `token` and the id of its key (what audit records name), or null when it is no key. */
  async identify(token: string): Promise<{ tenantId: string; keyId: string } | null> {
    if (token.length < 16 || token.length > 512) return null
    const record = await this.#keys.findOne({ field: 'hash', op: 'eq', value: this.#hash(token) })
    if (!record) return null
    const now = this.#now()
    if (record.lastUsedAt === undefined || now - record.lastUsedAt >= LAST_USED_EVERY_MS) {
      // Bookkeeping only: a failed write must not fail the request.
      await this.#keys.update(record.id, { lastUsedAt: now }).catch(() => undefined)
    }
    return { tenantId: record.tenantId, keyId: record.id }
  }

  /** Creates a random key for `tenantId`; the key is returned once and only its keyed hash is stored. */
  async create(tenantId: string, options: { label?: string } = {}): Promise<CreatedApiKey> {
    const key = `dvk_${randomBytes(32).toString('base64url')}`
    const record = await this.#insert(tenantId, key, options.label)
    return { ...infoOf(record), key }
  }

  /**
   * Registers a key chosen by the operator (e.g. from `DIDVAULT_API_KEYS`). Idempotent for the same
   * tenant. A key revoked before is refused for good: {@link ApiKeyRevokedError}.
   */
  async add(tenantId: string, key: string, options: { label?: string } = {}): Promise<ApiKeyInfo> {
    if (key.length < 16 || key.length > 512) throw new Error('API keys must be 16 to 512 characters')
    const hash = this.#hash(key)
    await this.#assertNotRevoked(this.#storage, hash)
    const existing = async () => {
      const found = await this.#keys.findOne({ field: 'hash', op: 'eq', value: hash })
      if (found && found.tenantId !== tenantId) throw new Error('this API key is registered for another tenant')
      return found
    }
    const found = await existing()
    if (found) return infoOf(found)
    try {
      return infoOf(await this.#insert(tenantId, key, options.label, true))
    } catch (err) {
      // Another process registered the same key at the same moment: fine if it is the same tenant's.
      const raced = err instanceof UniqueConstraintError ? await existing() : undefined
      if (!raced) throw err
      return infoOf(raced)
    }
  }

  async #assertNotRevoked(storage: StorageAdapter, hash: string): Promise<void> {
    const tombstone = await storage.collection<TombstoneMeta>('meta').get(tombstoneId(hash))
    if (tombstone) throw new ApiKeyRevokedError(tombstone.keyId, tombstone.keyTenantId)
  }

  /** Stores a key's record; `operatorChosen`: checked against the revoked keys again inside the transaction (a revocation meanwhile). */
  async #insert(tenantId: string, key: string, label: string | undefined, operatorChosen = false): Promise<ApiKeyRecord> {
    if (!TENANT_ID.test(tenantId)) throw new Error(`invalid tenant id ${JSON.stringify(tenantId)}: letters, digits, _ - . (at most 64)`)
    if (label !== undefined && (label.length > MAX_LABEL || /\p{Cc}/u.test(label))) {
      throw new Error(`a label is at most ${MAX_LABEL} characters without control characters`)
    }
    const record: ApiKeyRecord = {
      id: newKeyId(),
      tenantId,
      hash: this.#hash(key),
      scheme: SCHEME,
      createdAt: this.#now(),
      ...(label ? { label } : {}),
    }
    await this.#storage.transaction(async (tx) => {
      if (operatorChosen) await this.#assertNotRevoked(tx, record.hash)
      await collectionOf(tx, API_KEYS).insert(record)
      await this.#journal(tx, { action: 'apiKey.create', keyId: record.id })
    })
    return record
  }

  /** Every key (of one tenant when given), oldest first. */
  async list(options: { tenantId?: string } = {}): Promise<ApiKeyInfo[]> {
    const where = options.tenantId === undefined ? { and: [] } : { field: 'tenantId', op: 'eq' as const, value: options.tenantId }
    const out: ApiKeyInfo[] = []
    let cursor: string | undefined
    do {
      const page = await this.#keys.find(where, { limit: 500, cursor, orderBy: { field: 'createdAt' } })
      out.push(...page.items.map(infoOf))
      cursor = page.nextCursor
    } while (cursor)
    return out
  }

  /**
   * Deletes a key by id; requests with it are refused from the next one on, for good: its keyed
   * hash stays behind (in `meta`), so that {@link add} never registers it again. Whether it existed.
   */
  async revoke(id: string): Promise<boolean> {
    return this.#storage.transaction(async (tx) => {
      const keys = collectionOf(tx, API_KEYS)
      const record = await keys.get(id)
      if (!record || !(await keys.delete(id))) return false
      const tombstone: TombstoneMeta = {
        id: tombstoneId(record.hash),
        tenantId: HASHING_RECORD.tenantId,
        createdAt: this.#now(),
        keyId: id,
        keyTenantId: record.tenantId,
      }
      await tx.collection<TombstoneMeta>('meta').insert(tombstone)
      await this.#journal(tx, { action: 'apiKey.revoke', keyId: id })
      return true
    })
  }

  /** Whether any key exists (the CLI creates a first one when none does). */
  async hasKeys(): Promise<boolean> {
    return (await this.#keys.count({ and: [] })) > 0
  }

  /** Rewrites rows holding SHA-256(key) (earlier releases) as keyed hashes under new ids, each in one transaction. */
  async #migrateUnkeyed(storage: StorageAdapter): Promise<void> {
    // eq null matches a missing field on every adapter, and (unlike exists) uses the index.
    const legacy = { field: 'scheme', op: 'eq' as const, value: null }
    for (;;) {
      const page = await this.#keys.find(legacy, { limit: 100 })
      if (page.items.length === 0) return
      for (const row of page.items) {
        await storage.transaction(async (tx) => {
          const keys = collectionOf(tx, API_KEYS)
          const current = await keys.get(row.id)
          // Another process migrated it meanwhile.
          if (!current || current.scheme !== undefined) return
          await keys.delete(row.id)
          await keys.insert({ ...current, id: newKeyId(), hash: this.#keyed(Buffer.from(current.hash, 'hex')), scheme: SCHEME })
        })
      }
    }
  }
}

const newKeyId = () => `key_${randomBytes(9).toString('base64url')}`

function infoOf(record: ApiKeyRecord): ApiKeyInfo {
  return {
    id: record.id,
    tenantId: record.tenantId,
    ...(record.label ? { label: record.label } : {}),
    createdAt: new Date(record.createdAt).toISOString(),
    ...(record.lastUsedAt !== undefined ? { lastUsedAt: new Date(record.lastUsedAt).toISOString() } : {}),
  }
}
