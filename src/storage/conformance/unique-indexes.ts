/**
 * Unique indexes: duplicates rejected with UniqueConstraintError, records missing a field unconstrained. Needs
 * `capabilities.uniqueIndexes`.
 */
import { beforeEach, expect, it } from 'vitest'
import { type Collection, UniqueConstraintError } from '../port.js'
import { freshTenant, ids, idsOf, inTenant, item, ITEMS, type Item, sortedIds } from './fixtures.js'
import type { ConformanceGroup } from './group.js'

export const uniqueIndexesGroup: ConformanceGroup = {
  title: 'unique indexes',
  needs: ['uniqueIndexes'],
  define(ctx) {
    let items: Collection<Item>
    beforeEach(() => {
      ;({ items } = ctx.current())
    })

    it('insert duplicating a unique index throws UniqueConstraintError', async () => {
      const tenant = freshTenant()
      await items.insert(item(tenant, 'a', { name: 'same', n: 1 }))
      const error = await items.insert(item(tenant, 'b', { name: 'same' })).catch((err: unknown) => err)
      expect(error).toBeInstanceOf(UniqueConstraintError)
      expect((error as UniqueConstraintError).collection).toBe(ITEMS)
      expect(sortedIds((await items.find(inTenant(tenant))).items)).toEqual(idsOf(tenant, ['a']))
      await items.insert(item(freshTenant(), 'a', { name: 'same' }))
    })

    it('records missing a unique field are not constrained', async () => {
      const tenant = freshTenant()
      await items.insert(item(tenant, 'a'))
      await items.insert(item(tenant, 'b'))
      expect(await items.count(inTenant(tenant))).toBe(2)
    })

    it('insertMany with a duplicate throws UniqueConstraintError', async () => {
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

    it('update into a duplicate throws UniqueConstraintError and changes nothing', async () => {
      const tenant = freshTenant()
      await items.insert(item(tenant, 'a', { name: 'one' }))
      const b = item(tenant, 'b', { name: 'two', n: 1 })
      await items.insert(b)
      await expect(items.update(b.id, { name: 'one', n: 2 })).rejects.toBeInstanceOf(UniqueConstraintError)
      expect(await items.get(b.id)).toEqual(b)
      expect((await items.update(b.id, { name: 'two', n: 3 }))?.n).toBe(3)
    })
  },
}
