/** Records: insert, get, update, delete, insertMany, count and deleteMany, copies, array fields kept in step. Every adapter. */
import { beforeEach, describe, expect, it } from 'vitest'
import { type Collection, type StorageAdapter, UniqueConstraintError, type Where } from '../port.js'
import { freshTenant, idsOf, inTenant, item, type Item, ITEMS, sortedIds } from './fixtures.js'
import type { ConformanceGroup } from './group.js'

export const recordsGroup: ConformanceGroup = {
  title: 'records',
  needs: [],
  define(ctx) {
    let storage: StorageAdapter
    let items: Collection<Item>
    beforeEach(() => {
      ;({ storage, items } = ctx.current())
    })

    it('declares its capabilities as booleans', () => {
      for (const key of ['transactions', 'uniqueIndexes', 'multiProcess'] as const) expect(typeof storage.capabilities[key]).toBe('boolean')
    })

    it('init is idempotent', async () => {
      await storage.init(ctx.specs)
      const record = item(freshTenant(), 'a')
      await items.insert(record)
      await storage.init(ctx.specs)
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

    describe('count and deleteMany', () => {
      it('count counts matches only', async () => {
        const tenant = freshTenant()
        await items.insertMany([item(tenant, 'a', { n: 1 }), item(tenant, 'b', { n: 2 }), item(tenant, 'c', { n: 3 })])
        expect(await items.count(inTenant(tenant))).toBe(3)
        expect(await items.count(inTenant(tenant, { field: 'n', op: 'gte', value: 2 }))).toBe(2)
        expect(await items.count(inTenant(freshTenant()))).toBe(0)
      })

      it('count without a where counts every record; a where on an indexed field is counted by that index', async () => {
        const tenant = freshTenant()
        const before = await items.count()
        await items.insertMany([item(tenant, 'a', { name: 'x' }), item(tenant, 'b', { name: 'y' })])
        expect(await items.count()).toBe(before + 2)
        expect(await items.count({ and: [] })).toBe(before + 2)
        // Planned on a collection of its own no test writes to: a planner's statistics of a shared database's tiny
        // table may rightly prefer a scan, which says nothing of a real one.
        const fresh = `${ITEMS}_${tenant.replaceAll('-', '_')}`
        await storage.init([{ ...ctx.specs[0], name: fresh }])
        const byTenant = await storage.explain(fresh, inTenant(tenant), { count: true })
        expect(byTenant.usesIndex, byTenant.plan).toBe(true)
        const byName = await storage.explain(fresh, inTenant(tenant, { field: 'name', op: 'eq', value: 'x' }), { count: true })
        expect(byName.usesIndex, byName.plan).toBe(true)
        const all = await storage.explain(fresh, { and: [] }, { count: true })
        expect(all.usesIndex, all.plan).toBe(false)
        await expect(items.count({ field: 'undeclaredField', op: 'eq', value: 1 })).rejects.toThrow(/undeclaredField/)
        await expect(storage.explain(fresh, { field: 'undeclaredField', op: 'eq', value: 1 }, { count: true })).rejects.toThrow(
          /undeclaredField/,
        )
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

      it('deleteIds deletes those ids only, returns how many were there (a repeat counts once), and their elements', async () => {
        const tenant = freshTenant()
        await items.insertMany([
          item(tenant, 'a', { tags: ['doomed'] }),
          item(tenant, 'b', { tags: ['doomed'] }),
          item(tenant, 'c', { tags: ['kept'] }),
        ])
        const [a, b] = idsOf(tenant, ['a', 'b'])
        expect(await items.deleteIds([a, b, a, `${tenant}-missing`])).toBe(2)
        expect(sortedIds((await items.find(inTenant(tenant))).items)).toEqual(idsOf(tenant, ['c']))
        expect(await items.count(inTenant(tenant, { field: 'tags', op: 'containsAny', value: ['doomed'] }))).toBe(0)
        expect(await items.deleteIds([a, b])).toBe(0)
        expect(await items.deleteIds([])).toBe(0)
      })
    })

    it('insertMany is all or nothing: a batch holding an existing id writes none of it', async () => {
      const tenant = freshTenant()
      const taken = item(tenant, 'taken')
      await items.insert(taken)
      await expect(items.insertMany([item(tenant, 'new1'), { ...taken }, item(tenant, 'new2')])).rejects.toBeInstanceOf(
        UniqueConstraintError,
      )
      expect(sortedIds((await items.find(inTenant(tenant))).items)).toEqual([taken.id])
    })
  },
}
