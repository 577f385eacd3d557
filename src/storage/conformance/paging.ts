/** Pages: `limit`, `nextCursor`, walking every page in any order, and rejecting cursors the storage did not issue. Every adapter. */
import { beforeEach, describe, expect, it } from 'vitest'
import { type Collection, InvalidCursorError, type OrderBy, type Where } from '../port.js'
import { freshTenant, ids, idsOf, inTenant, item, type Item, readAllPages } from './fixtures.js'
import type { ConformanceGroup } from './group.js'

export const pagingGroup: ConformanceGroup = {
  title: 'paging and cursors',
  needs: [],
  define(ctx) {
    let items: Collection<Item>
    beforeEach(() => {
      ;({ items } = ctx.current())
    })

    describe('limit and cursors', () => {
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

    describe('invalid cursors', () => {
      /** A cursor re-encoded from `payload`: well-formed base64url JSON, but not what the storage issued. */
      const forged = (payload: unknown): string => Buffer.from(JSON.stringify(payload)).toString('base64url')

      it('a cursor that is not one the storage issued rejects with InvalidCursorError, whatever its defect', async () => {
        const tenant = freshTenant()
        await items.insertMany([item(tenant, 'a'), item(tenant, 'b'), item(tenant, 'c')])
        const { nextCursor } = await items.find(inTenant(tenant), { limit: 1 })
        expect(nextCursor).toEqual(expect.any(String))
        const issued = nextCursor!
        const decoded = JSON.parse(Buffer.from(issued, 'base64url').toString('utf8')) as Record<string, unknown>
        const bad = [
          'not a cursor',
          '',
          `${issued}x`,
          issued.slice(0, -2),
          `${issued}==`,
          forged({ ...decoded, extra: 1 }),
          forged({ ...decoded, id: 42 }),
          forged({ ...decoded, v: { $gt: '' } }),
          forged([decoded]),
          forged(null),
          Buffer.from('{"broken').toString('base64url'),
        ]
        for (const cursor of bad) {
          await expect(items.find(inTenant(tenant), { limit: 1, cursor }), `cursor ${JSON.stringify(cursor)}`).rejects.toBeInstanceOf(
            InvalidCursorError,
          )
        }
        // The issued one still works.
        expect(ids((await items.find(inTenant(tenant), { limit: 1, cursor: issued })).items)).toEqual(idsOf(tenant, ['b']))
      })

      it('a cursor issued for another orderBy rejects with InvalidCursorError', async () => {
        const tenant = freshTenant()
        await items.insertMany([item(tenant, 'a', { n: 1 }), item(tenant, 'b', { n: 2 })])
        const { nextCursor } = await items.find(inTenant(tenant), { limit: 1 })
        await expect(items.find(inTenant(tenant), { limit: 1, cursor: nextCursor, orderBy: { field: 'n' } })).rejects.toBeInstanceOf(
          InvalidCursorError,
        )
        await expect(
          items.find(inTenant(tenant), { limit: 1, cursor: nextCursor, orderBy: { field: 'createdAt', direction: 'desc' } }),
        ).rejects.toBeInstanceOf(InvalidCursorError)
      })
    })
  },
}
