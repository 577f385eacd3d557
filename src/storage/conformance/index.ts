/**
 * `didvault/testing`: the storage conformance suite. One suite runs unchanged against every
 * {@link StorageAdapter} (memory, SQLite, MongoDB, yours); tests an adapter declares it cannot
 * pass through its {@link StorageCapabilities} are skipped, with the reason in their name.
 *
 * Every test writes fresh records under its own tenant id, so the suite can run against a
 * shared, non-empty database. Persistence across reopen is adapter-specific and not covered.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  type Collection,
  type CollectionSpec,
  type OrderBy,
  type StorageAdapter,
  type StorageCapabilities,
  type StoredRecord,
  UniqueConstraintError,
  type Where,
} from '../port.js'

/** What the factory passed to {@link runStorageConformance} returns. */
export interface StorageFixture {
  /** A ready adapter; the suite calls `init` and, after each test, `close`. */
  storage: StorageAdapter
  /** Called after `storage.close()` (drop a temp directory, a test database...). */
  cleanup?: () => Promise<void>
}

interface Item extends StoredRecord {
  tenantId: string
  name?: string | null
  n?: number | string | null
  createdAt?: string
  flag?: boolean | number | null
  tags?: unknown[]
  [field: string]: unknown
}

const ITEMS = 'conformance_items'

const SPECS: CollectionSpec[] = [
  {
    name: ITEMS,
    fields: ['name', 'tenantId', 'n', 'createdAt', 'flag'],
    arrayFields: ['tags'],
    indexes: [{ fields: ['tenantId', 'name'], unique: true }, { fields: ['tenantId', 'createdAt'] }],
  },
]

const RUN = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`
let sequence = 0

/** A tenant id no other test (or earlier run) uses. */
function freshTenant(): string {
  return `t-${RUN}-${++sequence}`
}

/** A strictly increasing ISO timestamp, so insertion order is creation order. */
function nextCreatedAt(): string {
  return new Date(Date.UTC(2024, 0, 1) + ++sequence * 1000).toISOString()
}

function item(tenantId: string, key: string, fields: Partial<Item> = {}): Item {
  return { id: `${tenantId}-${key}`, tenantId, createdAt: nextCreatedAt(), ...fields }
}

function inTenant(tenantId: string, where?: Where): Where {
  const scope: Where = { field: 'tenantId', op: 'eq', value: tenantId }
  return where === undefined ? scope : { and: [scope, where] }
}

function ids(records: StoredRecord[]): string[] {
  return records.map((record) => record.id)
}

function sortedIds(records: StoredRecord[]): string[] {
  return ids(records).sort()
}

function idsOf(tenantId: string, keys: string[]): string[] {
  return keys.map((key) => `${tenantId}-${key}`).sort()
}

/** Reads every page of a find and returns the concatenated records. */
async function readAllPages(items: Collection<Item>, where: Where, limit: number, orderBy?: OrderBy): Promise<Item[]> {
  const all: Item[] = []
  let cursor: string | undefined
  for (let pages = 0; pages < 1000; pages++) {
    const page = await items.find(where, { limit, orderBy, cursor })
    expect(page.items.length).toBeLessThanOrEqual(limit)
    all.push(...page.items)
    if (page.nextCursor === undefined) return all
    expect(page.items).toHaveLength(limit)
    cursor = page.nextCursor
  }
  throw new Error('pagination did not terminate')
}

async function probeCapabilities(factory: () => Promise<StorageFixture>): Promise<StorageCapabilities> {
  const { storage, cleanup } = await factory()
  const capabilities = { ...storage.capabilities }
  await storage.close()
  await cleanup?.()
  return capabilities
}

/**
 * Declares the conformance suite for one adapter as a vitest `describe` block.
 *
 * @param name Shown in the suite title.
 * @param factory Called before each test (and once while collecting, to read capabilities);
 *   may return the same database every time.
 *
 * @example
 * runStorageConformance('memory', async () => ({ storage: createMemoryStorage() }))
 */
export function runStorageConformance(name: string, factory: () => Promise<StorageFixture>): void {
  describe(`storage conformance: ${name}`, async () => {
    const caps = await probeCapabilities(factory)
    let fixture: StorageFixture
    let storage: StorageAdapter
    let items: Collection<Item>

    beforeEach(async () => {
      fixture = await factory()
      storage = fixture.storage
      await storage.init(SPECS)
      items = storage.collection<Item>(ITEMS)
    })

    afterEach(async () => {
      await storage.close()
      await fixture.cleanup?.()
    })

    it('declares its capabilities as booleans', () => {
      for (const key of ['transactions', 'uniqueIndexes', 'multiProcess'] as const) expect(typeof storage.capabilities[key]).toBe('boolean')
    })

    it('init is idempotent', async () => {
      await storage.init(SPECS)
      const record = item(freshTenant(), 'a')
      await items.insert(record)
      await storage.init(SPECS)
      expect(await items.get(record.id)).toEqual(record)
    })

    describe('records', () => {
      it('insert then get returns an equal record; get of a missing id returns undefined', async () => {
        const record = item(freshTenant(), 'a', { name: 'alpha', n: 1, flag: true, tags: ['x'] })
        await items.insert(record)
        expect(await items.get(record.id)).toEqual(record)
        expect(await items.get(`${record.id}-missing`)).toBeUndefined()
      })

      it('round-trips JSON values: nested objects, arrays, unicode, numbers, booleans, null', async () => {
        const record = item(freshTenant(), 'json', {
          name: 'ünïcødé ✓ 𝄞 "quoted" \\ back',
          n: -12.5,
          flag: false,
          nested: { deep: { list: [1, 'two', { three: 3 }, null, true] }, empty: {} },
          big: Number.MAX_SAFE_INTEGER,
          zero: 0,
          nothing: null,
          tags: [],
        })
        await items.insert(record)
        expect(await items.get(record.id)).toEqual(record)
      })

      it('returns copies: mutating inputs or results never changes storage', async () => {
        const tenant = freshTenant()
        const record = item(tenant, 'a', { name: 'alpha', nested: { list: [1] }, tags: ['x'] })
        await items.insert(record)
        record.name = 'changed input'
        ;(record.nested as { list: number[] }).list.push(2)

        const got = (await items.get(record.id))!
        expect(got.name).toBe('alpha')
        expect(got.nested).toEqual({ list: [1] })
        got.name = 'changed result'
        ;(got.nested as { list: number[] }).list.push(3)
        got.tags!.push('y')

        const [found] = (await items.find(inTenant(tenant))).items
        expect(found.name).toBe('alpha')
        expect(found.nested).toEqual({ list: [1] })
        found.name = 'changed find result'

        const updated = (await items.update(record.id, { n: 1 }))!
        updated.name = 'changed update result'
        expect((await items.findOne(inTenant(tenant)))!.name).toBe('alpha')
        expect((await items.get(record.id))!.tags).toEqual(['x'])
      })

      it('insert with an existing id throws UniqueConstraintError and keeps the first record', async () => {
        const record = item(freshTenant(), 'a', { name: 'first' })
        await items.insert(record)
        await expect(items.insert({ ...record, name: 'second' })).rejects.toBeInstanceOf(UniqueConstraintError)
        expect((await items.get(record.id))!.name).toBe('first')
      })

      it('insertMany inserts every record; an empty batch is a no-op', async () => {
        const tenant = freshTenant()
        const records = [item(tenant, 'a'), item(tenant, 'b', { tags: ['t'] }), item(tenant, 'c')]
        await items.insertMany(records)
        await items.insertMany([])
        expect((await items.find(inTenant(tenant))).items).toEqual(records)
      })

      it('update shallow-merges, removes fields set to undefined and returns the new record', async () => {
        const record = item(freshTenant(), 'a', { name: 'alpha', n: 1, nested: { a: 1, b: 2 }, extra: 'x' })
        await items.insert(record)
        const updated = await items.update(record.id, { n: 2, nested: { a: 9 }, extra: undefined, added: true })
        const expected: Item = { ...record, n: 2, nested: { a: 9 }, added: true }
        delete expected.extra
        expect(updated).toEqual(expected)
        expect(updated).not.toHaveProperty('extra')
        const stored = await items.get(record.id)
        expect(stored).toEqual(expected)
        expect(stored).not.toHaveProperty('extra')
      })

      it('update of a missing id returns undefined and creates nothing', async () => {
        const id = `${freshTenant()}-missing`
        expect(await items.update(id, { name: 'x' })).toBeUndefined()
        expect(await items.get(id)).toBeUndefined()
      })

      it('delete removes a record and returns true; a missing id returns false', async () => {
        const record = item(freshTenant(), 'a')
        await items.insert(record)
        expect(await items.delete(record.id)).toBe(true)
        expect(await items.get(record.id)).toBeUndefined()
        expect(await items.delete(record.id)).toBe(false)
      })

      it('operations on an undeclared collection reject', async () => {
        const unknown = storage.collection('conformance_undeclared')
        await expect(unknown.get('x')).rejects.toThrow(/conformance_undeclared/)
        await expect(unknown.insert({ id: 'x' })).rejects.toThrow()
      })
    })

    describe('where', () => {
      let tenant: string

      /** a..f cover every type a field may hold, plus null and absent. */
      beforeEach(async () => {
        tenant = freshTenant()
        for (const record of [
          item(tenant, 'a', { name: 'alpha', n: 1, flag: true, tags: ['red', 'blue'] }),
          item(tenant, 'b', { name: 'beta', n: 2, flag: false, tags: ['green'] }),
          item(tenant, 'c', { name: 'gamma', n: 3, flag: true, tags: [] }),
          item(tenant, 'd', { name: 'delta', n: null, flag: null }),
          item(tenant, 'e', { name: 'eps', tags: ['blue', 'red', 'red'] }),
          item(tenant, 'f', { name: 'phi', n: '2', flag: 1, tags: 'red' as unknown as unknown[] }),
        ]) {
          await items.insert(record)
        }
      })

      const match = async (where: Where): Promise<string[]> => sortedIds((await items.find(inTenant(tenant, where))).items)
      const expectMatch = async (where: Where, keys: string[]): Promise<void> => {
        expect(await match(where)).toEqual(idsOf(tenant, keys))
        expect(await items.count(inTenant(tenant, where))).toBe(keys.length)
      }

      it('eq on strings, numbers and booleans', async () => {
        await expectMatch({ field: 'name', op: 'eq', value: 'beta' }, ['b'])
        await expectMatch({ field: 'n', op: 'eq', value: 3 }, ['c'])
        await expectMatch({ field: 'flag', op: 'eq', value: false }, ['b'])
      })

      it('eq keeps JSON types apart: 2 ≠ "2", true ≠ 1', async () => {
        await expectMatch({ field: 'n', op: 'eq', value: 2 }, ['b'])
        await expectMatch({ field: 'n', op: 'eq', value: '2' }, ['f'])
        await expectMatch({ field: 'flag', op: 'eq', value: true }, ['a', 'c'])
        await expectMatch({ field: 'flag', op: 'eq', value: 1 }, ['f'])
      })

      it('eq null matches null and absent fields', async () => {
        await expectMatch({ field: 'n', op: 'eq', value: null }, ['d', 'e'])
      })

      it('ne is the negation of eq (null and absent fields match ne <value>)', async () => {
        await expectMatch({ field: 'n', op: 'ne', value: 2 }, ['a', 'c', 'd', 'e', 'f'])
        await expectMatch({ field: 'n', op: 'ne', value: null }, ['a', 'b', 'c', 'f'])
        await expectMatch({ field: 'flag', op: 'ne', value: true }, ['b', 'd', 'e', 'f'])
      })

      it('gt / gte / lt / lte on numbers compare numbers only', async () => {
        await expectMatch({ field: 'n', op: 'gt', value: 1 }, ['b', 'c'])
        await expectMatch({ field: 'n', op: 'gte', value: 2 }, ['b', 'c'])
        await expectMatch({ field: 'n', op: 'lt', value: 3 }, ['a', 'b'])
        await expectMatch({ field: 'n', op: 'lte', value: 1 }, ['a'])
        await expectMatch({ field: 'n', op: 'gt', value: 1.5 }, ['b', 'c'])
      })

      it('gt / gte / lt / lte on strings and booleans compare within their type; null matches nothing', async () => {
        await expectMatch({ field: 'name', op: 'gt', value: 'delta' }, ['e', 'c', 'f'])
        await expectMatch({ field: 'name', op: 'gte', value: 'delta' }, ['d', 'e', 'c', 'f'])
        await expectMatch({ field: 'name', op: 'lt', value: 'beta' }, ['a'])
        await expectMatch({ field: 'name', op: 'lte', value: 'beta' }, ['a', 'b'])
        await expectMatch({ field: 'n', op: 'lt', value: 'z' }, ['f'])
        await expectMatch({ field: 'flag', op: 'gt', value: false }, ['a', 'c'])
        await expectMatch({ field: 'flag', op: 'lt', value: true }, ['b'])
        await expectMatch({ field: 'n', op: 'gt', value: null }, [])
        await expectMatch({ field: 'n', op: 'lte', value: null }, [])
      })

      it('in matches any listed value, keeps types apart, null matches null/absent, [] matches nothing', async () => {
        await expectMatch({ field: 'name', op: 'in', value: ['alpha', 'gamma', 'nope'] }, ['a', 'c'])
        await expectMatch({ field: 'n', op: 'in', value: [1, '2'] }, ['a', 'f'])
        await expectMatch({ field: 'n', op: 'in', value: [null, 3] }, ['c', 'd', 'e'])
        await expectMatch({ field: 'flag', op: 'in', value: [true] }, ['a', 'c'])
        await expectMatch({ field: 'name', op: 'in', value: [] }, [])
      })

      it('containsAny matches arrays sharing an element, once per record', async () => {
        await expectMatch({ field: 'tags', op: 'containsAny', value: ['red'] }, ['a', 'e'])
        await expectMatch({ field: 'tags', op: 'containsAny', value: ['green', 'blue'] }, ['a', 'b', 'e'])
        await expectMatch({ field: 'tags', op: 'containsAny', value: ['nope'] }, [])
        await expectMatch({ field: 'tags', op: 'containsAny', value: [] }, [])
      })

      it('exists checks presence: null is present, absent is not', async () => {
        await expectMatch({ field: 'n', op: 'exists', value: true }, ['a', 'b', 'c', 'd', 'f'])
        await expectMatch({ field: 'n', op: 'exists', value: false }, ['e'])
        await expectMatch({ field: 'tags', op: 'exists', value: false }, ['d'])
      })

      it('nested and / or', async () => {
        await expectMatch(
          {
            or: [
              { field: 'name', op: 'eq', value: 'alpha' },
              { and: [{ field: 'n', op: 'gt', value: 1 }, { field: 'flag', op: 'eq', value: true }] },
            ],
          },
          ['a', 'c'],
        )
        await expectMatch(
          {
            and: [
              { or: [{ field: 'flag', op: 'eq', value: true }, { field: 'flag', op: 'eq', value: false }] },
              { field: 'name', op: 'ne', value: 'beta' },
              { or: [{ field: 'tags', op: 'containsAny', value: ['blue'] }, { field: 'n', op: 'gte', value: 3 }] },
            ],
          },
          ['a', 'c'],
        )
      })

      it('an empty and matches every record; an empty or matches none', async () => {
        const all = ids((await items.find({ and: [] })).items)
        expect(all).toEqual(expect.arrayContaining(idsOf(tenant, ['a', 'b', 'c', 'd', 'e', 'f'])))
        expect(await items.count({ and: [] })).toBeGreaterThanOrEqual(6)
        await expectMatch({ and: [] }, ['a', 'b', 'c', 'd', 'e', 'f'])
        await expectMatch({ or: [] }, [])
      })

      it('findOne returns a matching record, or undefined', async () => {
        expect((await items.findOne(inTenant(tenant, { field: 'name', op: 'eq', value: 'gamma' })))?.id).toBe(`${tenant}-c`)
        expect(await items.findOne(inTenant(tenant, { field: 'name', op: 'eq', value: 'nope' }))).toBeUndefined()
      })

      it('an undeclared field in where or orderBy rejects with an error naming it', async () => {
        await expect(items.find({ field: 'undeclaredField', op: 'eq', value: 1 })).rejects.toThrow(/undeclaredField/)
        await expect(items.count({ and: [{ field: 'undeclaredField', op: 'exists', value: true }] })).rejects.toThrow(/undeclaredField/)
        await expect(items.deleteMany({ field: 'undeclaredField', op: 'eq', value: 1 })).rejects.toThrow(/undeclaredField/)
        await expect(items.find(inTenant(tenant), { orderBy: { field: 'undeclaredField' } })).rejects.toThrow(/undeclaredField/)
        expect(await items.count(inTenant(tenant))).toBe(6)
      })
    })

    describe('array fields stay in sync', () => {
      it('update replaces the elements containsAny sees', async () => {
        const tenant = freshTenant()
        const record = item(tenant, 'a', { tags: ['old'] })
        await items.insert(record)
        await items.update(record.id, { tags: ['new'] })
        const where = (tag: string): Where => inTenant(tenant, { field: 'tags', op: 'containsAny', value: [tag] })
        expect(await items.count(where('old'))).toBe(0)
        expect(await items.count(where('new'))).toBe(1)
        await items.update(record.id, { tags: undefined })
        expect(await items.count(where('new'))).toBe(0)
        await items.update(record.id, { name: 'other field' })
        expect(await items.count(where('new'))).toBe(0)
      })

      it('delete removes the elements; a new record with the same id starts clean', async () => {
        const tenant = freshTenant()
        const record = item(tenant, 'a', { tags: ['gone'] })
        await items.insert(record)
        await items.delete(record.id)
        await items.insert({ ...record, tags: ['fresh'] })
        const where = (tag: string): Where => inTenant(tenant, { field: 'tags', op: 'containsAny', value: [tag] })
        expect(await items.count(where('gone'))).toBe(0)
        expect(await items.count(where('fresh'))).toBe(1)
      })
    })

    describe('order and pagination', () => {
      it('defaults to createdAt ascending, ties broken by id', async () => {
        const tenant = freshTenant()
        const at = nextCreatedAt()
        const later = nextCreatedAt()
        await items.insert(item(tenant, 'c', { createdAt: later }))
        await items.insert(item(tenant, 'b', { createdAt: at }))
        await items.insert(item(tenant, 'a', { createdAt: at }))
        expect(ids((await items.find(inTenant(tenant))).items)).toEqual(idsOf(tenant, ['a', 'b', 'c']))
        expect((await items.findOne(inTenant(tenant)))?.id).toBe(`${tenant}-a`)
      })

      it('orderBy asc and desc, ties broken by id in the same direction', async () => {
        const tenant = freshTenant()
        const values: Record<string, number> = { a: 2, b: 1, c: 2, d: 1, e: 3 }
        for (const [key, n] of Object.entries(values)) await items.insert(item(tenant, key, { n }))
        const asc = await items.find(inTenant(tenant), { orderBy: { field: 'n', direction: 'asc' } })
        expect(ids(asc.items)).toEqual(['b', 'd', 'a', 'c', 'e'].map((key) => `${tenant}-${key}`))
        const desc = await items.find(inTenant(tenant), { orderBy: { field: 'n', direction: 'desc' } })
        expect(ids(desc.items)).toEqual(['e', 'c', 'a', 'd', 'b'].map((key) => `${tenant}-${key}`))
      })

      it('limit returns the first records; nextCursor is present only when more follow', async () => {
        const tenant = freshTenant()
        for (const key of ['a', 'b', 'c', 'd', 'e', 'f']) await items.insert(item(tenant, key))
        const first = await items.find(inTenant(tenant), { limit: 3 })
        expect(ids(first.items)).toEqual(['a', 'b', 'c'].map((key) => `${tenant}-${key}`))
        expect(first.nextCursor).toEqual(expect.any(String))
        const second = await items.find(inTenant(tenant), { limit: 3, cursor: first.nextCursor })
        expect(ids(second.items)).toEqual(['d', 'e', 'f'].map((key) => `${tenant}-${key}`))
        expect(second.nextCursor).toBeUndefined()
        expect((await items.find(inTenant(tenant), { limit: 10 })).nextCursor).toBeUndefined()
      })

      it('cursor pagination walks every page without duplicates or gaps, with filters, ties and both directions', async () => {
        const tenant = freshTenant()
        const records = Array.from({ length: 23 }, (_, i) =>
          item(tenant, `r${String(i).padStart(2, '0')}`, { n: (i * 7) % 5, flag: i % 3 !== 0 }),
        )
        await items.insertMany(records)
        const filtered = (record: Item): boolean => record.flag === true
        const cases: Array<{ where: Where; orderBy?: OrderBy; expected: Item[] }> = [
          { where: inTenant(tenant), expected: records },
          {
            where: inTenant(tenant, { field: 'flag', op: 'eq', value: true }),
            orderBy: { field: 'n', direction: 'asc' },
            expected: records.filter(filtered).sort((x, y) => Number(x.n) - Number(y.n) || (x.id < y.id ? -1 : 1)),
          },
          {
            where: inTenant(tenant),
            orderBy: { field: 'n', direction: 'desc' },
            expected: [...records].sort((x, y) => Number(y.n) - Number(x.n) || (x.id < y.id ? 1 : -1)),
          },
          {
            where: inTenant(tenant, { field: 'flag', op: 'eq', value: true }),
            orderBy: { field: 'createdAt', direction: 'desc' },
            expected: records.filter(filtered).reverse(),
          },
        ]
        for (const { where, orderBy, expected } of cases) {
          for (const limit of [1, 4, 7, 100]) {
            const all = await readAllPages(items, where, limit, orderBy)
            expect(ids(all)).toEqual(ids(expected))
          }
        }
      })

      it('pagination over a field with null and absent values: first ascending, last descending', async () => {
        const tenant = freshTenant()
        const values: Record<string, number | null | undefined> = { a: 2, b: undefined, c: 1, d: null, e: 2, f: undefined, g: 0 }
        for (const [key, n] of Object.entries(values)) await items.insert(item(tenant, key, n === undefined ? {} : { n }))
        const asc = ['b', 'd', 'f', 'g', 'c', 'a', 'e'].map((key) => `${tenant}-${key}`)
        for (const limit of [1, 2, 3, 10]) {
          expect(ids(await readAllPages(items, inTenant(tenant), limit, { field: 'n' }))).toEqual(asc)
          expect(ids(await readAllPages(items, inTenant(tenant), limit, { field: 'n', direction: 'desc' }))).toEqual([...asc].reverse())
        }
      })
    })

    describe('count and deleteMany', () => {
      it('count counts matches only', async () => {
        const tenant = freshTenant()
        await items.insertMany([item(tenant, 'a', { n: 1 }), item(tenant, 'b', { n: 2 }), item(tenant, 'c', { n: 3 })])
        expect(await items.count(inTenant(tenant))).toBe(3)
        expect(await items.count(inTenant(tenant, { field: 'n', op: 'gte', value: 2 }))).toBe(2)
        expect(await items.count(inTenant(freshTenant()))).toBe(0)
      })

      it('deleteMany deletes matches only, returns how many, and removes their array elements', async () => {
        const tenant = freshTenant()
        await items.insertMany([
          item(tenant, 'a', { n: 1, tags: ['doomed'] }),
          item(tenant, 'b', { n: 2, tags: ['doomed'] }),
          item(tenant, 'c', { n: 3, tags: ['kept'] }),
        ])
        expect(await items.deleteMany(inTenant(tenant, { field: 'n', op: 'lt', value: 3 }))).toBe(2)
        expect(sortedIds((await items.find(inTenant(tenant))).items)).toEqual(idsOf(tenant, ['c']))
        expect(await items.count(inTenant(tenant, { field: 'tags', op: 'containsAny', value: ['doomed'] }))).toBe(0)
        expect(await items.deleteMany(inTenant(tenant, { field: 'n', op: 'lt', value: 3 }))).toBe(0)
      })
    })

    describe('increment', () => {
      it('adds to a numeric field and returns the new value (by defaults to 1)', async () => {
        const record = item(freshTenant(), 'counter', { n: 0, name: 'kept' })
        await items.insert(record)
        expect(await items.increment(record.id, 'n')).toBe(1)
        expect(await items.increment(record.id, 'n')).toBe(2)
        expect(await items.increment(record.id, 'n', 5)).toBe(7)
        expect(await items.increment(record.id, 'n', -3)).toBe(4)
        expect(await items.get(record.id)).toEqual({ ...record, n: 4 })
      })

      it('50 concurrent increments return exactly 1..50', async () => {
        const record = item(freshTenant(), 'counter', { n: 0 })
        await items.insert(record)
        const results = await Promise.all(Array.from({ length: 50 }, () => items.increment(record.id, 'n')))
        expect([...results].sort((x, y) => x - y)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1))
        expect((await items.get(record.id))!.n).toBe(50)
      })

      it('rejects for a missing id and creates nothing', async () => {
        const id = `${freshTenant()}-missing`
        await expect(items.increment(id, 'n')).rejects.toThrow()
        expect(await items.get(id)).toBeUndefined()
      })
    })

    describe('unique indexes', () => {
      const needsUnique = '[needs capabilities.uniqueIndexes]'

      it.skipIf(!caps.uniqueIndexes)(`insert duplicating a unique index throws UniqueConstraintError ${needsUnique}`, async () => {
        const tenant = freshTenant()
        await items.insert(item(tenant, 'a', { name: 'same', n: 1 }))
        const error = await items.insert(item(tenant, 'b', { name: 'same' })).catch((err: unknown) => err)
        expect(error).toBeInstanceOf(UniqueConstraintError)
        expect((error as UniqueConstraintError).collection).toBe(ITEMS)
        expect(sortedIds((await items.find(inTenant(tenant))).items)).toEqual(idsOf(tenant, ['a']))
        await items.insert(item(freshTenant(), 'a', { name: 'same' }))
      })

      it.skipIf(!caps.uniqueIndexes)(`records missing a unique field are not constrained ${needsUnique}`, async () => {
        const tenant = freshTenant()
        await items.insert(item(tenant, 'a'))
        await items.insert(item(tenant, 'b'))
        expect(await items.count(inTenant(tenant))).toBe(2)
      })

      it.skipIf(!caps.uniqueIndexes)(`insertMany with a duplicate throws UniqueConstraintError ${needsUnique}`, async () => {
        const tenant = freshTenant()
        await items.insert(item(tenant, 'a', { name: 'taken' }))
        await expect(items.insertMany([item(tenant, 'b', { name: 'free' }), item(tenant, 'c', { name: 'taken' })])).rejects.toBeInstanceOf(
          UniqueConstraintError,
        )
        await expect(items.insertMany([item(tenant, 'd', { name: 'twice' }), item(tenant, 'e', { name: 'twice' })])).rejects.toBeInstanceOf(
          UniqueConstraintError,
        )
        const stored = ids((await items.find(inTenant(tenant))).items)
        expect(stored).toContain(`${tenant}-a`)
        expect(stored).not.toContain(`${tenant}-c`)
        expect(stored).not.toContain(`${tenant}-e`)
      })

      it.skipIf(!caps.uniqueIndexes)(`update into a duplicate throws UniqueConstraintError and changes nothing ${needsUnique}`, async () => {
        const tenant = freshTenant()
        await items.insert(item(tenant, 'a', { name: 'one' }))
        const b = item(tenant, 'b', { name: 'two', n: 1 })
        await items.insert(b)
        await expect(items.update(b.id, { name: 'one', n: 2 })).rejects.toBeInstanceOf(UniqueConstraintError)
        expect(await items.get(b.id)).toEqual(b)
        expect((await items.update(b.id, { name: 'two', n: 3 }))?.n).toBe(3)
      })
    })

    describe('transactions', () => {
      const needsTx = '[needs capabilities.transactions]'

      it.skipIf(!caps.transactions)(`commit makes every write visible and returns fn's result ${needsTx}`, async () => {
        const tenant = freshTenant()
        const existing = item(tenant, 'existing', { n: 0 })
        await items.insert(existing)
        const result = await storage.transaction(async (tx) => {
          const txItems = tx.collection<Item>(ITEMS)
          await txItems.insert(item(tenant, 'a', { tags: ['committed'] }))
          await txItems.increment(existing.id, 'n')
          expect(await txItems.get(`${tenant}-a`)).toBeDefined()
          expect(await txItems.count(inTenant(tenant))).toBe(2)
          return 'done'
        })
        expect(result).toBe('done')
        expect(await items.get(`${tenant}-a`)).toBeDefined()
        expect((await items.get(existing.id))!.n).toBe(1)
        expect(await items.count(inTenant(tenant, { field: 'tags', op: 'containsAny', value: ['committed'] }))).toBe(1)
      })

      it.skipIf(!caps.transactions)(`a throw rolls back every write, array elements included, and rethrows ${needsTx}`, async () => {
        const tenant = freshTenant()
        const kept = item(tenant, 'kept', { name: 'kept', n: 0, tags: ['before'] })
        const doomed = item(tenant, 'doomed', { name: 'doomed' })
        await items.insertMany([kept, doomed])
        const boom = new Error('boom')
        await expect(
          storage.transaction(async (tx) => {
            const txItems = tx.collection<Item>(ITEMS)
            await txItems.insert(item(tenant, 'new', { tags: ['rolled-back'] }))
            await txItems.insertMany([item(tenant, 'new2'), item(tenant, 'new3')])
            await txItems.update(kept.id, { name: 'changed', tags: ['after'] })
            await txItems.increment(kept.id, 'n', 10)
            await txItems.delete(doomed.id)
            await txItems.deleteMany(inTenant(tenant))
            throw boom
          }),
        ).rejects.toBe(boom)
        expect(sortedIds((await items.find(inTenant(tenant))).items)).toEqual(sortedIds([kept, doomed]))
        expect(await items.get(kept.id)).toEqual(kept)
        expect(await items.get(doomed.id)).toEqual(doomed)
        const tagged = (tag: string): Promise<number> => items.count(inTenant(tenant, { field: 'tags', op: 'containsAny', value: [tag] }))
        expect(await tagged('rolled-back')).toBe(0)
        expect(await tagged('after')).toBe(0)
        expect(await tagged('before')).toBe(1)
      })

      it.skipIf(!caps.transactions)(`a rolled-back increment restores the field exactly: absent stays absent, null stays null ${needsTx}`, async () => {
        const tenant = freshTenant()
        const absent = item(tenant, 'absent')
        const nulled = item(tenant, 'nulled', { n: null })
        await items.insertMany([absent, nulled])
        await expect(
          storage.transaction(async (tx) => {
            await tx.collection<Item>(ITEMS).increment(absent.id, 'n', 3)
            await tx.collection<Item>(ITEMS).increment(nulled.id, 'n', 3)
            throw new Error('undo')
          }),
        ).rejects.toThrow('undo')
        expect(await items.get(absent.id)).toEqual(absent)
        expect(await items.get(nulled.id)).toEqual(nulled)
      })

      it.skipIf(!caps.transactions)(`a nested transaction left running writes nothing once its parent has rolled back ${needsTx}`, async () => {
        const tenant = freshTenant()
        let nested: Promise<unknown> | undefined
        await expect(
          storage.transaction(async (tx) => {
            await tx.collection<Item>(ITEMS).insert(item(tenant, 'outer'))
            nested = tx.transaction(async (inner) => {
              await new Promise((resolve) => setTimeout(resolve, 50))
              await inner.collection<Item>(ITEMS).insert(item(tenant, 'leak'))
            })
            nested.catch(() => undefined)
            throw new Error('outer fails while the nested one runs')
          }),
        ).rejects.toThrow('outer fails')
        await nested?.catch(() => undefined)
        expect(await items.count(inTenant(tenant))).toBe(0)
      })

      it.skipIf(!caps.transactions)(`a failed insertMany inside a transaction writes nothing ${needsTx}`, async () => {
        const tenant = freshTenant()
        const duplicate = item(tenant, 'dup')
        await expect(
          storage.transaction(async (tx) => {
            const txItems = tx.collection<Item>(ITEMS)
            await txItems.insert(item(tenant, 'before'))
            await txItems.insertMany([item(tenant, 'x', { tags: ['x'] }), duplicate, { ...duplicate }])
          }),
        ).rejects.toThrow()
        expect(await items.count(inTenant(tenant))).toBe(0)
        expect(await items.count(inTenant(tenant, { field: 'tags', op: 'containsAny', value: ['x'] }))).toBe(0)
      })

      it.skipIf(!caps.transactions || !caps.uniqueIndexes)(
        `a unique violation inside a transaction rolls back the whole transaction ${needsTx} [needs capabilities.uniqueIndexes]`,
        async () => {
          const tenant = freshTenant()
          await items.insert(item(tenant, 'a', { name: 'taken' }))
          await expect(
            storage.transaction(async (tx) => {
              const txItems = tx.collection<Item>(ITEMS)
              await txItems.insert(item(tenant, 'b', { name: 'fine' }))
              await txItems.update(`${tenant}-a`, { n: 99 })
              await txItems.insert(item(tenant, 'c', { name: 'taken' }))
            }),
          ).rejects.toBeInstanceOf(UniqueConstraintError)
          expect(sortedIds((await items.find(inTenant(tenant))).items)).toEqual(idsOf(tenant, ['a']))
          expect((await items.get(`${tenant}-a`))!.n).toBeUndefined()
        },
      )

      it.skipIf(!caps.transactions)(`a read outside a running transaction never sees its uncommitted writes ${needsTx}`, async () => {
        const record = item(freshTenant(), 'a')
        let release!: () => void
        const gate = new Promise<void>((resolve) => (release = resolve))
        let inserted!: () => void
        const written = new Promise<void>((resolve) => (inserted = resolve))
        const transaction = storage.transaction(async (tx) => {
          await tx.collection<Item>(ITEMS).insert(record)
          inserted()
          await gate
          throw new Error('rolled back')
        })
        await written
        const outsideRead = items.get(record.id)
        release()
        await expect(transaction).rejects.toThrow('rolled back')
        expect(await outsideRead).toBeUndefined()
        expect(await items.get(record.id)).toBeUndefined()
      })
    })
  })
}
