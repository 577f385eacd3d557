/**
 * API keys (DESIGN §4 *API keys*): keyed hashes only, the migration of earlier releases'
 * unkeyed rows, revocation, rotation, and two processes agreeing on the hashing key — on real
 * SQLite files, reading their bytes.
 */
import { createHash } from 'node:crypto'
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { IdentityService, createMemoryStorage, randomMasterKey } from '../../src/index.js'
import { ApiKeyRevokedError } from '../../src/auth/api-keys.js'
import { createSqliteStorage } from '../../src/storage/sqlite/index.js'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'didvault-keys-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex')
const bytes = (db: string) => Buffer.concat([db, `${db}-wal`].filter(existsSync).map((f) => readFileSync(f)))
const open = (path: string, masterKey: string | Uint8Array, now?: () => number) =>
  IdentityService.create({ storage: createSqliteStorage({ path }), masterKey, now })
const MASTER = '22'.repeat(32)

describe('API keys', () => {
  it('create → authenticate as its tenant; the database holds neither the key nor its SHA-256', async () => {
    const db = join(dir, 'k.db')
    const service = await open(db, MASTER)
    const created = await service.apiKeys!.create('acme', { label: 'ci runner' })
    expect(created).toMatchObject({
      tenantId: 'acme',
      label: 'ci runner',
      id: expect.stringMatching(/^key_/),
      key: expect.stringMatching(/^dvk_/),
    })
    expect(await service.apiKeys!.authenticate(created.key)).toBe('acme')
    expect(await service.apiKeys!.authenticate(created.key + 'x')).toBeNull()
    expect(await service.apiKeys!.authenticate('short')).toBeNull()
    await service.close()
    const stored = bytes(db)
    for (const needle of [created.key, sha256(created.key), sha256(created.key).slice(0, 32)]) expect(stored.includes(needle)).toBe(false)
  })

  it('list shows id, tenant, label, created and last used — never the key or its hash', async () => {
    let clock = Date.parse('2026-01-01T00:00:00Z')
    const service = await IdentityService.create({ storage: createMemoryStorage(), masterKey: randomMasterKey(), now: () => clock })
    const a = await service.apiKeys!.create('acme')
    clock += 1000
    const b = await service.apiKeys!.create('beta', { label: 'b' })
    expect(await service.apiKeys!.list()).toEqual([
      { id: a.id, tenantId: 'acme', createdAt: '2026-01-01T00:00:00.000Z' },
      { id: b.id, tenantId: 'beta', label: 'b', createdAt: '2026-01-01T00:00:01.000Z' },
    ])
    expect((await service.apiKeys!.list({ tenantId: 'beta' })).map((k) => k.id)).toEqual([b.id])
    expect(await service.apiKeys!.list({ tenantId: 'nobody' })).toEqual([])
  })

  it('lastUsedAt is written on use, at most once a minute', async () => {
    let clock = Date.parse('2026-01-01T00:00:00Z')
    const service = await IdentityService.create({ storage: createMemoryStorage(), masterKey: randomMasterKey(), now: () => clock })
    const { key, id } = await service.apiKeys!.create('acme')
    const lastUsed = async () => (await service.apiKeys!.list()).find((k) => k.id === id)!.lastUsedAt
    expect(await lastUsed()).toBeUndefined()
    await service.apiKeys!.authenticate(key)
    expect(await lastUsed()).toBe('2026-01-01T00:00:00.000Z')
    clock += 59_000
    await service.apiKeys!.authenticate(key)
    expect(await lastUsed()).toBe('2026-01-01T00:00:00.000Z')
    clock += 1_000
    await service.apiKeys!.authenticate(key)
    expect(await lastUsed()).toBe('2026-01-01T00:01:00.000Z')
  })

  it('revoke: the key is refused from the next call on, by every process on the database', async () => {
    const db = join(dir, 'k.db')
    const server = await open(db, MASTER)
    const other = await open(db, MASTER)
    const { key, id } = await server.apiKeys!.create('acme')
    expect(await server.apiKeys!.authenticate(key)).toBe('acme')
    expect(await other.apiKeys!.revoke(id)).toBe(true)
    expect(await server.apiKeys!.authenticate(key)).toBeNull()
    expect(await other.apiKeys!.revoke(id)).toBe(false)
    await Promise.all([server.close(), other.close()])
  })

  it('revocation is permanent: add refuses a revoked key for good (naming its id, for any tenant, after a restart), and only its keyed hash stays', async () => {
    const db = join(dir, 'k.db')
    const KEY = 'ops-key-0123456789'
    const first = await open(db, MASTER)
    const { id } = await first.apiKeys!.add('ops', KEY)
    expect(await first.apiKeys!.revoke(id)).toBe(true)
    await first.close()
    const restarted = await open(db, MASTER)
    for (const tenant of ['ops', 'other']) {
      const refused = await restarted.apiKeys!.add(tenant, KEY).catch((err: unknown) => err)
      expect(refused).toBeInstanceOf(ApiKeyRevokedError)
      expect(refused).toMatchObject({ keyId: id, tenantId: 'ops', message: expect.not.stringContaining(KEY) })
    }
    expect(await restarted.apiKeys!.authenticate(KEY)).toBeNull()
    expect(await restarted.apiKeys!.list()).toEqual([])
    // Another key is not affected.
    await restarted.apiKeys!.add('ops', 'ops-key-9876543210')
    expect(await restarted.apiKeys!.authenticate('ops-key-9876543210')).toBe('ops')
    await restarted.close()
    const stored = bytes(db)
    for (const needle of [KEY, sha256(KEY)]) expect(stored.includes(needle)).toBe(false)
  })

  it('add (operator-chosen keys) is idempotent per tenant and refuses a key of another tenant or a bad tenant id or label', async () => {
    const service = await IdentityService.create({ storage: createMemoryStorage(), masterKey: randomMasterKey() })
    const keys = service.apiKeys!
    const first = await keys.add('beta', 'beta-key-0123456789')
    expect(await keys.add('beta', 'beta-key-0123456789')).toEqual(first)
    await expect(keys.add('acme', 'beta-key-0123456789')).rejects.toThrow(/another tenant/)
    await expect(keys.add('bad tenant!', 'some-key-0123456789')).rejects.toThrow(/tenant id/)
    await expect(keys.add('acme', 'too-short')).rejects.toThrow(/16 to 512/)
    await expect(keys.create('acme', { label: 'bell\u0007' })).rejects.toThrow(/control characters/)
    await expect(keys.create('x'.repeat(65))).rejects.toThrow(/tenant id/)
    expect((await keys.list()).map((k) => k.tenantId)).toEqual(['beta'])
  })

  it('a database of the previous release (unkeyed SHA-256 rows) is migrated on first start: keys keep working, the unkeyed hashes are gone', async () => {
    const db = join(dir, 'old.db')
    copyFileSync(new URL('../fixtures/previous-release.db', import.meta.url), db)
    const legacy = ['legacy-acme-key-0123456789', 'legacy-beta-key-0123456789']
    expect(bytes(db).includes(sha256(legacy[0]))).toBe(true)

    const [one, two] = await Promise.all([open(db, '11'.repeat(32)), open(db, '11'.repeat(32))])
    expect(await one.apiKeys!.authenticate(legacy[0])).toBe('acme')
    expect(await two.apiKeys!.authenticate(legacy[1])).toBe('beta')
    const listed = await one.apiKeys!.list()
    expect(listed.map((k) => k.tenantId).sort()).toEqual(['acme', 'beta'])
    for (const k of listed) expect(k.id).toMatch(/^key_/)
    await Promise.all([one.close(), two.close()])

    const stored = bytes(db)
    for (const key of legacy) {
      expect(stored.includes(sha256(key))).toBe(false)
      expect(stored.includes(sha256(key).slice(0, 32))).toBe(false)
    }
    // A third start finds nothing left to migrate and the keys still work.
    const again = await open(db, '11'.repeat(32))
    expect(await again.apiKeys!.authenticate(legacy[0])).toBe('acme')
    expect(await again.apiKeys!.list()).toEqual(listed)
    await again.close()
  })

  it('two processes starting on a new database agree on one hashing key', async () => {
    const db = join(dir, 'k.db')
    const [one, two] = await Promise.all([open(db, MASTER), open(db, MASTER)])
    const { key } = await one.apiKeys!.create('acme')
    expect(await two.apiKeys!.authenticate(key)).toBe('acme')
    await Promise.all([one.close(), two.close()])
  })

  it('keys survive master-key rotation (the hashing key is resealed, not re-derived)', async () => {
    const db = join(dir, 'k.db')
    const before = await open(db, MASTER)
    const { key } = await before.apiKeys!.create('acme')
    const next = '33'.repeat(32)
    await before.rotateMasterKey(next)
    await before.close()
    await expect(open(db, MASTER)).rejects.toThrow(/master key does not match/)
    const after = await open(db, next)
    expect(await after.apiKeys!.authenticate(key)).toBe('acme')
    await after.close()
  })
})
