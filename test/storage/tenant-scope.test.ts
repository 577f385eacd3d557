/**
 * TenantCollection over real adapters (memory, SQLite on a real database file, PostgreSQL on a
 * real server, a fresh schema per test): every
 * read and write stays inside its tenant, batch writes included, and `all` never stops early.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createMemoryStorage } from '../../src/storage/memory/index.js'
import { type CollectionSpec, InvalidCursorError, type StorageAdapter } from '../../src/storage/port.js'
import { createPostgresStorage } from '../../src/storage/postgres/index.js'
import { createSqliteStorage } from '../../src/storage/sqlite/index.js'
import { type TenantCollection, tenantCollection, type TenantRecord } from '../../src/storage/tenant-scope.js'
import { startTestPostgres } from '../helpers/postgres.js'

interface Item extends TenantRecord {
  kind: string
  createdAt: number
}

const ITEMS: CollectionSpec = { name: 'items', fields: ['tenantId', 'kind', 'createdAt'], indexes: [{ fields: ['tenantId', 'createdAt'] }] }

const postgres = await startTestPostgres('tenant scope')
let schemas = 0
afterAll(async () => {
  // Each test's schema (on DIDVAULT_TEST_POSTGRES_URL's server they would outlive the run), then the server.
  const client = new pg.Client({ connectionString: postgres.url })
  await client.connect()
  for (let n = 1; n <= schemas; n++) await client.query(`DROP SCHEMA IF EXISTS ${postgres.schema}_${n} CASCADE`)
  await client.end()
  await postgres.stop()
})

const adapters: Array<[string, (dir: string) => StorageAdapter | Promise<StorageAdapter>]> = [
  ['memory', () => createMemoryStorage()],
  ['sqlite', (dir) => createSqliteStorage({ path: join(dir, 'tenants.db') })],
  ['postgres', () => createPostgresStorage({ connectionString: postgres.url, schema: `${postgres.schema}_${++schemas}` })],
]

describe.each(adapters)('TenantCollection on %s', (_name, open) => {
  let dir: string
  let storage: StorageAdapter
  let mine: TenantCollection<Item>
  let theirs: TenantCollection<Item>
  let at = 0

  const item = (tenantId: string, id: string, kind = 'k'): Item => ({ id, tenantId, kind, createdAt: ++at })
  const idsOf = (records: Item[]) => records.map((record) => record.id)
  /** Every record in storage, whatever its tenant. */
  const everything = async () => idsOf((await storage.collection<Item>('items').find({ and: [] })).items).sort()

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'didvault-tenant-'))
    storage = await open(dir)
    await storage.init([ITEMS])
    mine = tenantCollection<Item>(storage, 'items', 'me')
    theirs = tenantCollection<Item>(storage, 'items', 'them')
  })

  afterEach(async () => {
    await storage.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('insertMany inserts every record of the tenant', async () => {
    await mine.insertMany([item('me', 'a'), item('me', 'b'), item('me', 'c')])
    expect(idsOf(await mine.all())).toEqual(['a', 'b', 'c'])
    expect(await theirs.count()).toBe(0)
  })

  it('insertMany with one record of another tenant throws and writes nothing', async () => {
    await expect(mine.insertMany([item('me', 'a'), item('them', 'b'), item('me', 'c')])).rejects.toThrow(/another tenant/)
    expect(await everything()).toEqual([])
  })

  it('insertMany is all or nothing: a duplicate id in the batch writes none of it', async () => {
    await mine.insert(item('me', 'taken'))
    await expect(mine.insertMany([item('me', 'new'), item('me', 'taken')])).rejects.toThrow()
    expect(await everything()).toEqual(['taken'])
  })

  it('deleteMany deletes the matches of its tenant only and returns how many', async () => {
    await mine.insertMany([item('me', 'm1', 'doomed'), item('me', 'm2', 'doomed'), item('me', 'm3', 'kept')])
    await theirs.insertMany([item('them', 't1', 'doomed'), item('them', 't2', 'kept')])
    expect(await mine.deleteMany({ field: 'kind', op: 'eq', value: 'doomed' })).toBe(2)
    expect(await everything()).toEqual(['m3', 't1', 't2'])
    // A filter naming the other tenant still cannot reach its records.
    expect(await mine.deleteMany({ field: 'tenantId', op: 'eq', value: 'them' })).toBe(0)
    expect(
      await mine.deleteMany({
        or: [
          { field: 'tenantId', op: 'eq', value: 'them' },
          { field: 'kind', op: 'eq', value: 'kept' },
        ],
      }),
    ).toBe(1)
    expect(await everything()).toEqual(['t1', 't2'])
  })

  it('deleteMany of an empty conjunction empties the tenant, never another', async () => {
    await mine.insertMany([item('me', 'm1'), item('me', 'm2')])
    await theirs.insert(item('them', 't1'))
    expect(await mine.deleteMany({ and: [] })).toBe(2)
    expect(await everything()).toEqual(['t1'])
  })

  it("all reads every page, past any page size, in order, and only the tenant's records", async () => {
    const records = Array.from({ length: 2_345 }, (_, i) => item('me', `r${String(i).padStart(5, '0')}`))
    await mine.insertMany(records)
    await theirs.insertMany([item('them', 'x1'), item('them', 'x2')])
    const all = await mine.all()
    expect(all).toHaveLength(records.length)
    expect(idsOf(all)).toEqual(idsOf(records))
  })

  it('find pages with limit and nextCursor within the tenant; a tampered cursor is an InvalidCursorError', async () => {
    await mine.insertMany([item('me', 'a'), item('me', 'b'), item('me', 'c')])
    await theirs.insert(item('them', 'z'))
    const first = await mine.find(undefined, { limit: 2 })
    expect(idsOf(first.items)).toEqual(['a', 'b'])
    const second = await mine.find(undefined, { limit: 2, cursor: first.nextCursor })
    expect(idsOf(second.items)).toEqual(['c'])
    expect(second.nextCursor).toBeUndefined()
    await expect(mine.find(undefined, { limit: 2, cursor: `${first.nextCursor}x` })).rejects.toBeInstanceOf(InvalidCursorError)
  })

  it("get, update, delete and increment never reach another tenant's record", async () => {
    await theirs.insert({ ...item('them', 'theirs'), count: 1 })
    expect(await mine.get('theirs')).toBeUndefined()
    expect(await mine.update('theirs', { kind: 'stolen' })).toBeUndefined()
    expect(await mine.delete('theirs')).toBe(false)
    await expect(mine.increment('theirs', 'count')).rejects.toThrow()
    expect(await theirs.get('theirs')).toMatchObject({ kind: 'k', count: 1 })
    await mine.insert(item('me', 'mine'))
    await expect(mine.update('mine', { tenantId: 'them' })).rejects.toThrow(/another tenant/)
    expect(await theirs.get('mine')).toBeUndefined()
  })
})
