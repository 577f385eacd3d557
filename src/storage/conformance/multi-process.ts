/**
 * Several processes on one database, played by two adapters the factory opens on the same
 * database: writes of one are read by the other, concurrent increments and unique inserts
 * through both stay exact. Needs `capabilities.multiProcess`.
 */
import { beforeEach, expect, it } from 'vitest'
import { type Collection, type StorageAdapter, UniqueConstraintError } from '../port.js'
import { freshTenant, inTenant, item, ITEMS, type Item } from './fixtures.js'
import type { ConformanceGroup } from './group.js'

export const multiProcessGroup: ConformanceGroup = {
  title: 'several processes on one database',
  needs: ['multiProcess'],
  notWithCachedFixtures:
    "a cached read sees another process's write only once the database's notification arrives (milliseconds later), " +
    "while these tests read it at once; the adapter's own read-cache tests cover another process's writes",
  define(ctx) {
    let items: Collection<Item>
    /** The conformance collection through a second adapter on the same database. */
    let other: Collection<Item>
    let otherStorage: StorageAdapter
    beforeEach(async () => {
      ;({ items } = ctx.current())
      otherStorage = await ctx.open()
      await otherStorage.init(ctx.specs)
      other = otherStorage.collection<Item>(ITEMS)
    })

    it('a write through one adapter is read through the other', async () => {
      const record = item(freshTenant(), 'shared', { name: 'shared', tags: ['x'] })
      await items.insert(record)
      expect(await other.get(record.id)).toEqual(record)
      await other.update(record.id, { n: 7 })
      expect((await items.get(record.id))?.n).toBe(7)
      expect(await other.deleteMany(inTenant(record.tenantId))).toBe(1)
      expect(await items.get(record.id)).toBeUndefined()
    })

    it('concurrent increments through both adapters return exactly 1..40', async () => {
      const record = item(freshTenant(), 'counter', { n: 0 })
      await items.insert(record)
      const results = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? items : other).increment(record.id, 'n')))
      expect([...results].sort((x, y) => x - y)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1))
      expect((await other.get(record.id))?.n).toBe(40)
    })

    it.skipIf(!ctx.capabilities.uniqueIndexes)(
      `the same unique key inserted through both adapters at once is stored once` +
        (ctx.capabilities.uniqueIndexes ? '' : ' [skipped: needs capabilities.uniqueIndexes]'),
      async () => {
        const tenant = freshTenant()
        const results = await Promise.allSettled([
          items.insert(item(tenant, 'a', { name: 'race' })),
          other.insert(item(tenant, 'b', { name: 'race' })),
        ])
        expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1)
        const rejected = results.find((result) => result.status === 'rejected') as PromiseRejectedResult
        expect(rejected.reason).toBeInstanceOf(UniqueConstraintError)
        expect(await items.count(inTenant(tenant))).toBe(1)
      },
    )
  },
}
