import { spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { CollectionSpec, StoredRecord, Where } from '../../src/storage/port.js'
import { createSqliteStorage, SqliteBusyError, type SqliteStorage } from '../../src/storage/sqlite/index.js'

interface Doc extends StoredRecord {
  tenantId?: string
  name?: string
  kind?: string
  labels?: string[]
  n?: number
  createdAt?: number
}

const DOCS: CollectionSpec = {
  name: 'docs',
  fields: ['tenantId', 'name', 'n', 'createdAt'],
  arrayFields: ['labels'],
  indexes: [{ fields: ['tenantId', 'name'], unique: true }, { fields: ['tenantId', 'createdAt'] }],
}

const require = createRequire(import.meta.url)
let dir: string
let file: string
const opened: SqliteStorage[] = []

/** Opens a storage on the test's database file; closed after the test. */
async function open(specs: CollectionSpec[] = [DOCS], busyTimeoutMs?: number): Promise<SqliteStorage> {
  const storage = createSqliteStorage({ path: file, busyTimeoutMs })
  opened.push(storage)
  await storage.init(specs)
  return storage
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'didvault-sqlite-'))
  file = join(dir, 'test.db')
})

afterEach(async () => {
  for (const storage of opened.splice(0)) await storage.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('sqlite storage: durability (synchronous)', () => {
  /** `PRAGMA synchronous` of the adapter's own connection: 2 is FULL, 1 NORMAL. */
  const synchronousOf = (storage: SqliteStorage) =>
    (storage as unknown as { connection: { db: Database.Database } }).connection.db.pragma('synchronous', { simple: true })

  it('syncs every commit to disk by default (FULL): an acknowledged write survives a power loss', async () => {
    const storage = await open()
    expect(synchronousOf(storage)).toBe(2)
  })

  it('takes NORMAL when asked, and refuses anything else', async () => {
    const storage = createSqliteStorage({ path: file, synchronous: 'NORMAL' })
    opened.push(storage)
    await storage.init([DOCS])
    expect(synchronousOf(storage)).toBe(1)
    expect(() => createSqliteStorage({ path: join(dir, 'other.db'), synchronous: 'OFF' as never })).toThrow(/FULL or NORMAL/)
  })
})

describe('sqlite storage', () => {
  it('persists records across close and reopen', async () => {
    const first = await open()
    await first.collection<Doc>('docs').insertMany([
      { id: 'a', tenantId: 't', name: 'alpha', labels: ['x'], createdAt: 1 },
      { id: 'b', tenantId: 't', name: 'beta', createdAt: 2 },
    ])
    await first.close()

    const second = await open()
    const docs = second.collection<Doc>('docs')
    expect(await docs.get('a')).toEqual({ id: 'a', tenantId: 't', name: 'alpha', labels: ['x'], createdAt: 1 })
    expect(await docs.count({ field: 'labels', op: 'containsAny', value: ['x'] })).toBe(1)
    expect(await docs.increment('b', 'n')).toBe(1)
  })

  it('init upgrades an existing database in place: new field, index and array field, backfilled', async () => {
    const v1: CollectionSpec = { name: 'docs', fields: ['tenantId', 'createdAt'], indexes: [] }
    const before = await open([v1])
    await before.collection<Doc>('docs').insertMany([
      { id: 'a', tenantId: 't', kind: 'invoice', labels: ['red', 'blue'], createdAt: 1 },
      { id: 'b', tenantId: 't', kind: 'receipt', labels: ['blue'], createdAt: 2 },
      { id: 'c', tenantId: 't', kind: 'invoice', createdAt: 3 },
    ])
    await expect(before.collection('docs').find({ field: 'kind', op: 'eq', value: 'invoice' })).rejects.toThrow(/kind/)
    await before.close()

    const v2: CollectionSpec = {
      name: 'docs',
      fields: ['tenantId', 'createdAt', 'kind'],
      arrayFields: ['labels'],
      indexes: [{ fields: ['tenantId', 'kind'] }],
    }
    const after = await open([v2])
    const docs = after.collection<Doc>('docs')
    const match = async (where: Where): Promise<string[]> => (await docs.find(where)).items.map((doc) => doc.id)
    expect(await match({ field: 'kind', op: 'eq', value: 'invoice' })).toEqual(['a', 'c'])
    expect(await match({ field: 'labels', op: 'containsAny', value: ['blue'] })).toEqual(['a', 'b'])
    expect(await match({ field: 'labels', op: 'containsAny', value: ['red'] })).toEqual(['a'])

    // New writes maintain the new column and side table too.
    await docs.insert({ id: 'd', tenantId: 't', kind: 'invoice', labels: ['red'], createdAt: 4 })
    await docs.update('a', { labels: ['green'] })
    expect(await match({ field: 'labels', op: 'containsAny', value: ['red'] })).toEqual(['d'])

    const plan = await after.explain('docs', {
      and: [
        { field: 'tenantId', op: 'eq', value: 't' },
        { field: 'kind', op: 'eq', value: 'invoice' },
      ],
    })
    expect(plan.plan).toMatch(/USING (COVERING )?INDEX "?docs\/ix\/tenantId,kind/)
    expect(plan.usesIndex).toBe(true)

    // Re-running init with the same spec changes nothing.
    await after.init([v2])
    expect(await docs.count({ field: 'kind', op: 'eq', value: 'invoice' })).toBe(3)

    const raw = new Database(file, { readonly: true })
    try {
      expect(raw.prepare("SELECT value FROM _didvault_meta WHERE key = 'schemaVersion'").get()).toEqual({ value: '2' })
    } finally {
      raw.close()
    }
  })

  it('runs in WAL mode', async () => {
    await open()
    const raw = new Database(file, { readonly: true })
    try {
      expect(raw.pragma('journal_mode', { simple: true })).toBe('wal')
    } finally {
      raw.close()
    }
  })

  it('serves filtered finds by declared fields from indexes, containsAny and cursors included', async () => {
    const storage = await open()
    const docs = storage.collection<Doc>('docs')
    await docs.insertMany(
      Array.from({ length: 200 }, (_, i) => ({
        id: `d${i}`,
        tenantId: `t${i % 10}`,
        name: `n${i}`,
        n: i % 7,
        labels: [`l${i % 13}`],
        createdAt: i,
      })),
    )
    const page = await docs.find({ field: 'tenantId', op: 'eq', value: 't1' }, { limit: 5 })
    const cases: Array<[Where, Parameters<SqliteStorage['explain']>[2]?]> = [
      [{ field: 'name', op: 'eq', value: 'n5' }],
      [{ field: 'n', op: 'gt', value: 3 }],
      [{ field: 'n', op: 'in', value: [1, 2] }],
      [{ field: 'labels', op: 'containsAny', value: ['l1', 'l2'] }],
      [
        {
          and: [
            { field: 'tenantId', op: 'eq', value: 't1' },
            { field: 'name', op: 'eq', value: 'n11' },
          ],
        },
      ],
      [
        { field: 'tenantId', op: 'eq', value: 't1' },
        { limit: 5, cursor: page.nextCursor },
      ],
    ]
    for (const [where, options] of cases) {
      const { plan: text, usesIndex } = await storage.explain('docs', where, options)
      expect(text, JSON.stringify(where)).toMatch(/USING (COVERING )?INDEX/)
      expect(text, JSON.stringify(where)).not.toMatch(/SCAN "?docs/)
      expect(usesIndex, text).toBe(true)
    }
    // Unfiltered but ordered: an ordered walk of the field's index, no sort.
    const ordered = await storage.explain('docs', { and: [] }, { orderBy: { field: 'n', direction: 'desc' }, limit: 10 })
    expect(ordered.plan).toMatch(/USING INDEX "?docs\/f\/n/)
    expect(ordered.plan).not.toMatch(/TEMP B-TREE/)
    // A walk of a whole index reads every row: not served by an index in the port's sense.
    expect(ordered.usesIndex).toBe(false)
  })

  it('stores and matches SQL-looking values literally', async () => {
    const storage = await open()
    const docs = storage.collection<Doc>('docs')
    const evil = `x'); DROP TABLE docs; --`
    const quoted = `"; DELETE FROM docs WHERE "1"="1`
    await docs.insert({ id: evil, tenantId: quoted, name: evil, labels: [evil, '%', '_'], createdAt: 1 })
    await docs.insert({ id: 'plain', tenantId: 'a', name: 'anything', labels: ['abc'], createdAt: 2 })
    expect((await docs.get(evil))?.name).toBe(evil)
    expect((await docs.findOne({ field: 'name', op: 'eq', value: evil }))?.id).toBe(evil)
    expect((await docs.findOne({ field: 'tenantId', op: 'in', value: [quoted] }))?.id).toBe(evil)
    expect(await docs.count({ field: 'labels', op: 'containsAny', value: [evil] })).toBe(1)
    expect(await docs.count({ field: 'labels', op: 'containsAny', value: ['%'] })).toBe(1)
    expect(await docs.count({ and: [] })).toBe(2)
  })

  it('rejects unknown fields in where and orderBy with an error naming the field', async () => {
    const docs = (await open()).collection<Doc>('docs')
    await expect(docs.find({ field: 'nope"; DROP TABLE docs; --', op: 'eq', value: 1 })).rejects.toThrow(/unknown field "nope/)
    await expect(docs.count({ field: 'labels', op: 'eq', value: 'x' })).rejects.toThrow(/labels/)
    await expect(docs.find({ field: 'name', op: 'containsAny', value: ['x'] })).rejects.toThrow(/name/)
    await expect(docs.find({ and: [] }, { orderBy: { field: 'missing' } })).rejects.toThrow(/missing/)
    await expect(docs.increment('a', 'n) + 1; --')).rejects.toThrow(/invalid field name/)
  })

  it('rejects invalid collection and field names at init', async () => {
    const storage = await open()
    await expect(storage.init([{ name: 'bad"name', fields: [], indexes: [] }])).rejects.toThrow(/invalid collection name/)
    await expect(storage.init([{ name: 'a__b', fields: [], indexes: [] }])).rejects.toThrow(/invalid collection name/)
    await expect(storage.init([{ name: 'ok', fields: ['a.b'], indexes: [] }])).rejects.toThrow(/invalid field name/)
    await expect(storage.init([{ name: 'ok', fields: ['a'], indexes: [{ fields: ['b'] }] }])).rejects.toThrow(/unknown field "b"/)
  })

  it('two instances on one file (two processes) doing 100 interleaved increments get 100 distinct values', async () => {
    const a = await open()
    const b = await open()
    await a.collection<Doc>('docs').insert({ id: 'counter', n: 0 })
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? a : b).collection<Doc>('docs').increment('counter', 'n')),
    )
    expect([...results].sort((x, y) => x - y)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1))
    expect((await b.collection<Doc>('docs').get('counter'))?.n).toBe(100)
    expect(a.capabilities.multiProcess).toBe(true)
  })

  it('a transaction waiting for another connection retries SQLITE_BUSY and then commits', async () => {
    const a = await open([DOCS], 20)
    const b = await open([DOCS], 20)
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    let started!: () => void
    const holding = new Promise<void>((resolve) => (started = resolve))
    const first = a.transaction(async (tx) => {
      await tx.collection<Doc>('docs').insert({ id: 'from-a' })
      started()
      await gate
    })
    await holding
    setTimeout(release, 100)
    await b.transaction(async (tx) => tx.collection<Doc>('docs').insert({ id: 'from-b' }))
    await first
    expect(await b.collection<Doc>('docs').get('from-a')).toBeDefined()
    expect(await a.collection<Doc>('docs').get('from-b')).toBeDefined()
  })

  it('gives up on a lock held too long with SqliteBusyError, never a generic error', async () => {
    const a = await open([DOCS], 1)
    const b = await open([DOCS], 1)
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    let started!: () => void
    const holding = new Promise<void>((resolve) => (started = resolve))
    const first = a.transaction(async () => {
      started()
      await gate
    })
    await holding
    await expect(b.transaction(async () => undefined)).rejects.toBeInstanceOf(SqliteBusyError)
    await expect(b.collection<Doc>('docs').insert({ id: 'x' })).rejects.toBeInstanceOf(SqliteBusyError)
    release()
    await first
    await b.collection<Doc>('docs').insert({ id: 'x' })
  }, 20_000)

  it('opening a new database while another process holds its write lock waits for it, then runs in WAL mode', async () => {
    // SQLite answers the switch to WAL with SQLITE_BUSY at once here, without its busy handler: processes starting
    // together on a new database met it ("database is locked").
    const path = join(dir, 'new.db')
    new Database(path).exec('CREATE TABLE t (x)')
    const holder = spawn(process.execPath, [
      '-e',
      `const db = new (require(${JSON.stringify(require.resolve('better-sqlite3'))}))(${JSON.stringify(path)});
       db.exec('BEGIN IMMEDIATE'); process.stdout.write('held\\n');
       Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300); db.exec('COMMIT'); db.close()`,
    ])
    const exited = new Promise((resolve) => holder.once('exit', resolve))
    await new Promise<void>((resolve, reject) => {
      holder.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('held') && resolve())
      void exited.then((code) => reject(new Error(`the lock holder exited (${String(code)}) before holding the lock`)))
    })
    const storage = createSqliteStorage({ path })
    opened.push(storage)
    await storage.init([DOCS])
    await storage.collection<Doc>('docs').insert({ id: 'after' })
    const raw = new Database(path, { readonly: true })
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal')
    raw.close()
    expect(await exited).toBe(0)
  })

  it('a nested transaction that throws rolls back to its savepoint only', async () => {
    const storage = await open()
    await storage.transaction(async (tx) => {
      await tx.collection<Doc>('docs').insert({ id: 'outer', labels: ['o'] })
      await expect(
        tx.transaction(async (inner) => {
          await inner.collection<Doc>('docs').insert({ id: 'inner', labels: ['i'] })
          throw new Error('inner failed')
        }),
      ).rejects.toThrow('inner failed')
    })
    const docs = storage.collection<Doc>('docs')
    expect(await docs.get('outer')).toBeDefined()
    expect(await docs.get('inner')).toBeUndefined()
    expect(await docs.count({ field: 'labels', op: 'containsAny', value: ['i'] })).toBe(0)
  })

  it('using the outer adapter inside its own transaction rejects instead of deadlocking', async () => {
    const storage = await open()
    await expect(storage.transaction(() => storage.collection('docs').get('x'))).rejects.toThrow(/inside its own transaction/)
    await expect(storage.transaction(() => storage.transaction(async () => 1))).rejects.toThrow(/inside its own transaction/)
    expect(await storage.collection('docs').count({ and: [] })).toBe(0)
  })

  it('rejects operations after close, and through a finished transaction adapter', async () => {
    const storage = await open()
    const tx = await storage.transaction(async (tx) => tx)
    await expect(tx.collection('docs').get('x')).rejects.toThrow(/already finished/)
    await storage.close()
    await expect(storage.collection('docs').get('x')).rejects.toThrow(/closed/)
    await storage.close()
  })

  it('rejects a cursor issued for a different orderBy', async () => {
    const docs = (await open()).collection<Doc>('docs')
    await docs.insertMany([
      { id: 'a', createdAt: 1 },
      { id: 'b', createdAt: 2 },
    ])
    const { nextCursor } = await docs.find({ and: [] }, { limit: 1 })
    await expect(docs.find({ and: [] }, { limit: 1, cursor: nextCursor, orderBy: { field: 'n' } })).rejects.toThrow(/different orderBy/)
    await expect(docs.find({ and: [] }, { limit: 1, cursor: 'not a cursor' })).rejects.toThrow(/invalid cursor/)
  })

  it('creating a unique index over existing duplicates throws UniqueConstraintError', async () => {
    const v1: CollectionSpec = { name: 'docs', fields: ['name'], indexes: [] }
    const storage = await open([v1])
    await storage.collection<Doc>('docs').insertMany([
      { id: 'a', name: 'same' },
      { id: 'b', name: 'same' },
    ])
    await expect(storage.init([{ ...v1, indexes: [{ fields: ['name'], unique: true }] }])).rejects.toMatchObject({
      name: 'UniqueConstraintError',
      fields: ['name'],
    })
  })
})

describe('sqlite file permissions', () => {
  const modeOf = (path: string) => statSync(path).mode & 0o777

  it('creates the database, its -wal and -shm readable by their owner only (0600), even with umask 022', async () => {
    const previous = process.umask(0o022)
    try {
      const storage = await open()
      await storage.collection<Doc>('docs').insert({ id: 'a', name: 'written' })
      // The connection is open and has written: WAL mode keeps both side files.
      expect(existsSync(`${file}-wal`)).toBe(true)
      expect(existsSync(`${file}-shm`)).toBe(true)
      for (const path of [file, `${file}-wal`, `${file}-shm`]) expect([path, modeOf(path).toString(8)]).toEqual([path, '600'])
    } finally {
      process.umask(previous)
    }
  })

  it('reopening keeps an existing database owner-only, and leaves a mode its owner chose', async () => {
    const previous = process.umask(0o022)
    try {
      await (await open()).close()
      const reopened = await open()
      await reopened.collection<Doc>('docs').insert({ id: 'a' })
      for (const path of [file, `${file}-wal`, `${file}-shm`]) expect([path, modeOf(path).toString(8)]).toEqual([path, '600'])
      await reopened.close()
      chmodSync(file, 0o640)
      const again = await open()
      expect(await again.collection<Doc>('docs').get('a')).toEqual({ id: 'a' })
      expect(modeOf(file).toString(8)).toBe('640')
    } finally {
      process.umask(previous)
    }
  })
})
