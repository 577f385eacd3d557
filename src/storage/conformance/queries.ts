/** Queries: every `where` operator with the port's type rules, and `orderBy`. Every adapter. */
import { beforeEach, describe, expect, it } from 'vitest'
import type { Collection, Where } from '../port.js'
import { freshTenant, ids, idsOf, inTenant, item, type Item, nextCreatedAt, sortedIds } from './fixtures.js'
import type { ConformanceGroup } from './group.js'

export const queriesGroup: ConformanceGroup = {
  title: 'queries and order',
  needs: [],
  define(ctx) {
    let items: Collection<Item>
    beforeEach(() => {
      ;({ items } = ctx.current())
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
              {
                and: [
                  { field: 'n', op: 'gt', value: 1 },
                  { field: 'flag', op: 'eq', value: true },
                ],
              },
            ],
          },
          ['a', 'c'],
        )
        await expectMatch(
          {
            and: [
              {
                or: [
                  { field: 'flag', op: 'eq', value: true },
                  { field: 'flag', op: 'eq', value: false },
                ],
              },
              { field: 'name', op: 'ne', value: 'beta' },
              {
                or: [
                  { field: 'tags', op: 'containsAny', value: ['blue'] },
                  { field: 'n', op: 'gte', value: 3 },
                ],
              },
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

    describe('order', () => {
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
    })
  },
}
