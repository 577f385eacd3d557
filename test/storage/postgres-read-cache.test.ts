/**
 * The PostgreSQL adapter's read cache (docs/storage.md *Read cache*), on a real server: reads of a collection declared
 * `cached` are answered from memory once the change listener has heard its ping; every write — of this process, at
 * once, through any write method, in or out of a transaction; of another process (a second adapter on the schema), as
 * soon as PostgreSQL's notification arrives — drops them. The cache turns off (reads go to the database) while its
 * listening connection is lost, reconnects, and never turns on behind PgBouncer in transaction mode. Answers are
 * copies. Uncached collections, transactions and `readCache: false` read the database every time.
 */
import { randomBytes } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { createPostgresStorage, type PostgresStorage, type PostgresStorageOptions } from '../../src/storage/postgres/index.js'
import { ReadCache } from '../../src/storage/postgres/read-cache.js'
import { TenantCollection } from '../../src/storage/tenant-scope.js'
import type { CollectionSpec } from '../../src/storage/port.js'
import { hasPgBouncer, startPgBouncer } from '../helpers/pgbouncer.js'
import { startTestPostgres } from '../helpers/postgres.js'

const server = await startTestPostgres('postgres read cache')
afterAll(() => server.stop())

const CACHED: CollectionSpec = { name: 'items', fields: ['tenantId', 'n'], indexes: [{ fields: ['tenantId', 'n'] }], cached: true }
const PLAIN: CollectionSpec = { name: 'plain', fields: ['n'], indexes: [] }
type Item = { id: string; tenantId?: string; n: number; note?: string }

/** Runs `sql` on a connection of its own (`replica`: with triggers off, as a write nobody is told of). */
async function admin<R extends pg.QueryResultRow>(sql: string, params: unknown[] = [], { replica = false } = {}): Promise<R[]> {
  const client = new pg.Client({ connectionString: server.url })
  await client.connect()
  try {
    if (replica) await client.query('SET session_replication_role = replica')
    return (await client.query<R>(sql, params)).rows
  } finally {
    await client.end()
  }
}

/** What the running test opened (storages, a PgBouncer), closed after it by the `afterEach` below. */
const toClose: Array<{ close(): Promise<unknown> }> = []

/** Records `thing` to be closed after the running test, and returns it. */
function closedAfterTest<T extends { close(): Promise<unknown> }>(thing: T): T {
  toClose.push(thing)
  return thing
}

/**
 * Closes what the test opened, the latest first. Every close is tried; a failing close fails the test after the others ran
 * (vitest reports it next to the test's own failure, which it does not replace).
 */
afterEach(async () => {
  const errors: unknown[] = []
  for (const thing of toClose.splice(0).reverse()) {
    try {
      await thing.close()
    } catch (error) {
      errors.push(error)
    }
  }
  if (errors.length > 0) throw new AggregateError(errors, `closing what the test opened failed ${errors.length} time(s)`)
})

/** A fresh schema, and a storage on it whose connections are named so a test can find its listener; closed after the test. */
async function opened(options: Partial<PostgresStorageOptions> = {}, schema = `${server.schema}_${randomBytes(4).toString('hex')}`) {
  const application = `dv_${randomBytes(4).toString('hex')}`
  const url = new URL(server.url)
  url.searchParams.set('application_name', application)
  const storage = closedAfterTest(await createPostgresStorage({ connectionString: url.toString(), schema, ...options }))
  await storage.init([CACHED, PLAIN])
  return { storage, schema, application, table: `"${schema}"."items"` }
}

async function until(what: string, holds: () => boolean | Promise<boolean>, ms = 5_000): Promise<number> {
  const start = Date.now()
  while (!(await holds())) {
    if (Date.now() - start > ms) throw new Error(`not within ${ms} ms: ${what}`)
    await sleep(5)
  }
  return Date.now() - start
}

/** The notifications of this process's own writes arrive too, and drop the entries once more: let them. */
const ownNotifications = () => sleep(100)

const live = (storage: PostgresStorage) => until('the read cache is live', () => storage.readCacheLive)

describe('ReadCache', () => {
  it('keeps nothing a read loaded while its table changed, answers copies, and answers nothing while off', async () => {
    const cache = new ReadCache()
    cache.declare(['items'])
    let loads = 0
    const load = async () => ({ n: ++loads })
    expect(await cache.read('items', () => 'k', load)).toEqual({ n: 1 }) // off: not kept
    cache.setLive(true)
    expect(await cache.read('items', () => 'k', load)).toEqual({ n: 2 })
    const hit = await cache.read<{ n: number }>('items', () => 'k', load)
    expect(hit).toEqual({ n: 2 })
    hit.n = 99
    expect(await cache.read('items', () => 'k', load)).toEqual({ n: 2 })

    // A change while a read runs: its answer is given but not kept.
    let release!: () => void
    const slow = cache.read(
      'items',
      () => 'slow',
      () => new Promise<{ n: number }>((resolve) => (release = () => resolve({ n: 7 }))),
    )
    cache.changed('items')
    release()
    expect(await slow).toEqual({ n: 7 })
    expect(await cache.read('items', () => 'slow', load)).toEqual({ n: 3 })
    expect(await cache.read('items', () => 'k', load)).toEqual({ n: 4 }) // dropped by the change
    cache.setLive(false)
    expect(await cache.read('items', () => 'k', load)).toEqual({ n: 5 })
    // An undeclared table is never kept.
    expect(await cache.read('other', () => 'k', load)).toEqual({ n: 6 })
    expect(await cache.read('other', () => 'k', load)).toEqual({ n: 7 })
  })
})

describe('the read cache on PostgreSQL', () => {
  it('answers from memory once live: a write nobody is told of (triggers off) is not seen, an answer is a copy', async () => {
    const { storage, schema, table } = await opened()
    await live(storage)
    const items = storage.collection<Item>('items')
    await items.insert({ id: 'a', tenantId: 't1', n: 1 })
    await ownNotifications()
    expect(await items.get('a')).toEqual({ id: 'a', tenantId: 't1', n: 1 })
    const before = storage.readCacheStats
    const copy = (await items.get('a'))!
    copy.n = 42
    expect(await items.findOne({ field: 'tenantId', op: 'eq', value: 't1' })).toEqual({ id: 'a', tenantId: 't1', n: 1 })
    expect(await items.findOne({ field: 'tenantId', op: 'eq', value: 't1' })).toEqual({ id: 'a', tenantId: 't1', n: 1 })
    expect(storage.readCacheStats.hits - before.hits).toBe(2) // the second get and the second findOne
    // Proof the answers came from memory: a write with triggers off is invisible to it…
    await admin(`UPDATE ${table} SET data = jsonb_set(data, '{n}', '5') WHERE id = 'a'`, [], { replica: true })
    expect((await items.get('a'))!.n).toBe(1)
    // …a transaction reads the database, and so does an uncached collection.
    expect(await storage.transaction(async (tx) => (await tx.collection<Item>('items').get('a'))!.n)).toBe(5)
    const plain = storage.collection<Item>('plain')
    await plain.insert({ id: 'p', n: 1 })
    await admin(`UPDATE "${schema}"."plain" SET data = '{"id":"p","n":2}'`)
    expect((await plain.get('p'))!.n).toBe(2)
  })

  it("never answers one tenant with another's record: a cached answer is the one the database would give", async () => {
    const { storage } = await opened()
    await live(storage)
    const items = storage.collection<Item & { tenantId: string; createdAt: number }>('items')
    await items.insert({ id: 'a', tenantId: 't1', n: 1, createdAt: 1 })
    await ownNotifications()
    const t1 = new TenantCollection(items, 't1')
    const t2 = new TenantCollection(items, 't2')
    for (let round = 0; round < 2; round++) {
      // The second round is answered from memory (the first filled it).
      expect(await t1.get('a')).toMatchObject({ id: 'a', n: 1 })
      expect(await t2.get('a')).toBeUndefined()
      expect(await t1.findOne({ field: 'n', op: 'eq', value: 1 })).toMatchObject({ id: 'a' })
      expect(await t2.findOne({ field: 'n', op: 'eq', value: 1 })).toBeUndefined()
      expect((await t2.find({ field: 'n', op: 'eq', value: 1 })).items).toEqual([])
    }
    expect(storage.readCacheStats.hits).toBeGreaterThanOrEqual(4)
  })

  it("reads this process's own writes at once, through every write method, and a rolled-back write changes nothing", async () => {
    const { storage } = await opened()
    await live(storage)
    const items = storage.collection<Item>('items')
    const all = async () =>
      (await items.find({ field: 'tenantId', op: 'eq', value: 't1' }, { orderBy: { field: 'n' } })).items.map((i) => i.n)
    await items.insert({ id: 'a', tenantId: 't1', n: 1 })
    expect(await all()).toEqual([1])
    expect(await items.get('b')).toBeUndefined()
    await items.insertMany([{ id: 'b', tenantId: 't1', n: 2 }])
    expect(await items.get('b')).toMatchObject({ n: 2 })
    expect(await all()).toEqual([1, 2])
    await items.update('a', { n: 3 })
    expect(await all()).toEqual([2, 3])
    await items.increment('a', 'n', 1)
    expect((await items.get('a'))!.n).toBe(4)
    await storage.insertAll([{ collection: 'items', records: [{ id: 'c', tenantId: 't1', n: 5 }] }])
    expect(await all()).toEqual([2, 4, 5])
    await items.delete('c')
    expect(await items.get('c')).toBeUndefined()
    await items.deleteIds(['b'])
    expect(await all()).toEqual([4])
    await storage.transaction(async (tx) => {
      await tx.collection<Item>('items').update('a', { n: 6 })
      await tx.collection<Item>('items').insert({ id: 'd', tenantId: 't1', n: 7 })
    })
    expect(await all()).toEqual([6, 7])
    await expect(
      storage.transaction(async (tx) => {
        await tx.collection<Item>('items').update('a', { n: 100 })
        expect(await all()).toEqual([6, 7]) // outside the transaction: not yet committed
        throw new Error('undo')
      }),
    ).rejects.toThrow('undo')
    expect(await all()).toEqual([6, 7])
    await items.deleteMany({ field: 'n', op: 'gte', value: 7 })
    expect(await all()).toEqual([6])
    await ownNotifications()
    expect(await all()).toEqual([6])
    const hits = storage.readCacheStats.hits
    expect(await all()).toEqual([6])
    expect(storage.readCacheStats.hits - hits).toBe(1) // no write since: from memory
  })

  it("sees another process's write once PostgreSQL's notification arrives, and a write made outside didvault too", async () => {
    const first = await opened()
    const second = await opened({}, first.schema)
    await live(first.storage)
    await live(second.storage)
    const mine = first.storage.collection<Item>('items')
    const theirs = second.storage.collection<Item>('items')
    await theirs.insert({ id: 'a', tenantId: 't1', n: 1 })
    await until('the insert is seen', async () => (await mine.get('a'))?.n === 1)
    expect((await mine.get('a'))!.n).toBe(1) // now cached
    const delays: number[] = []
    for (const n of [2, 3, 4, 5, 6]) {
      await theirs.update('a', { n })
      delays.push(await until(`the update to ${n} is seen`, async () => (await mine.get('a'))!.n === n, 2_000))
    }
    await theirs.delete('a')
    await until('the delete is seen', async () => (await mine.get('a')) === undefined, 2_000)
    // Triggers on: psql, a migration script, another tool are heard like didvault.
    await admin(`INSERT INTO ${first.table} (id, data) VALUES ('z', '{"id":"z","tenantId":"t1","n":9}')`)
    await until('the outside insert is seen', async () => (await mine.get('z'))?.n === 9, 2_000)
    console.log(`[read cache] another process's update seen after ${delays.join(', ')} ms (polled every 5 ms)`)
  })

  it('turns off while its listening connection is lost (reads go to the database), reconnects, and starts empty', async () => {
    const { storage, application, table } = await opened({ readCache: { heartbeatMs: 200, confirmMs: 1_000 } })
    await live(storage)
    const items = storage.collection<Item>('items')
    await items.insert({ id: 'a', tenantId: 't1', n: 1 })
    await ownNotifications()
    expect((await items.get('a'))!.n).toBe(1)
    const killed = await admin<{ done: boolean }>(
      "SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'LISTEN%'",
      [application],
    )
    expect(killed).toEqual([{ done: true }])
    await until('the cache is off', () => !storage.readCacheLive, 2_000)
    // A change nobody is told of: read from the database while off.
    await admin(`UPDATE ${table} SET data = jsonb_set(data, '{n}', '2') WHERE id = 'a'`, [], { replica: true })
    expect((await items.get('a'))!.n).toBe(2)
    await until('the cache is live again', () => storage.readCacheLive, 5_000)
    const hits = storage.readCacheStats.hits
    expect((await items.get('a'))!.n).toBe(2)
    expect((await items.get('a'))!.n).toBe(2)
    expect(storage.readCacheStats.hits - hits).toBe(1)
  })

  it('with readCache: false opens no listening connection and reads the database every time', async () => {
    const { storage, application, table } = await opened({ readCache: false })
    const items = storage.collection<Item>('items')
    await items.insert({ id: 'a', tenantId: 't1', n: 1 })
    expect((await items.get('a'))!.n).toBe(1)
    await admin(`UPDATE ${table} SET data = jsonb_set(data, '{n}', '2') WHERE id = 'a'`, [], { replica: true })
    expect((await items.get('a'))!.n).toBe(2)
    expect(storage.readCacheLive).toBe(false)
    const listening = await admin("SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'LISTEN%'", [application])
    expect(listening).toEqual([])
  })

  it('puts the change trigger on cached tables only, and takes it off a collection no longer declared cached', async () => {
    const { storage, schema } = await opened()
    const triggers = () =>
      admin<{ table: string }>(
        `SELECT event_object_table AS table FROM information_schema.triggers WHERE trigger_schema = $1 AND trigger_name = 'didvault_changed' GROUP BY 1 ORDER BY 1`,
        [schema],
      )
    expect(await triggers()).toEqual([{ table: 'items' }])
    await storage.close() // before the schema is opened again (closing twice, after the test, is fine)
    const again = closedAfterTest(await createPostgresStorage({ connectionString: server.url, schema }))
    await again.init([{ ...CACHED, cached: false }, PLAIN])
    expect(await triggers()).toEqual([])
  })

  it.skipIf(!hasPgBouncer)(
    'never turns on behind PgBouncer in transaction mode (its LISTEN is not heard), and reads stay right',
    async () => {
      const bouncer = await startPgBouncer(server.url, { poolSize: 3 })
      closedAfterTest({ close: () => bouncer.stop() }) // after the storage on it
      const schema = `${server.schema}_bouncer_cache`
      const storage = closedAfterTest(
        await createPostgresStorage({
          connectionString: bouncer.url,
          schema,
          preparedStatements: false,
          readCache: { heartbeatMs: 100, confirmMs: 300 },
        }),
      )
      await storage.init([CACHED])
      const items = storage.collection<Item>('items')
      await items.insert({ id: 'a', tenantId: 't1', n: 1 })
      for (let n = 2; n <= 4; n++) {
        await admin(`UPDATE "${schema}"."items" SET data = jsonb_set(data, '{n}', '${n}') WHERE id = 'a'`, [], { replica: true })
        expect((await items.get('a'))!.n).toBe(n)
        await sleep(400)
      }
      expect(storage.readCacheLive).toBe(false)
      expect(storage.readCacheStats.hits).toBe(0)
    },
  )
})
