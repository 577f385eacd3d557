/** Transactions: commit, rollback of every kind of write, nesting, isolation from outside reads. Needs `capabilities.transactions`. */
import { beforeEach, expect, it } from 'vitest'
import { type Collection, type StorageAdapter, UniqueConstraintError } from '../port.js'
import { freshTenant, idsOf, inTenant, item, ITEMS, type Item, sortedIds } from './fixtures.js'
import type { ConformanceGroup } from './group.js'

export const transactionsGroup: ConformanceGroup = {
  title: 'transactions',
  needs: ['transactions'],
  define(ctx) {
    let storage: StorageAdapter
    let items: Collection<Item>
    beforeEach(() => {
      ;({ storage, items } = ctx.current())
    })

    it("commit makes every write visible and returns fn's result", async () => {
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

    it('a throw rolls back every write, array elements included, and rethrows', async () => {
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
          // The fields an increment sets roll back too: to their value, or to no field.
          await txItems.increment(doomed.id, 'n', 1, { name: 'claimed', flag: true })
          await txItems.delete(doomed.id)
          await txItems.deleteIds([kept.id])
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

    it('a rolled-back increment restores the field exactly: absent stays absent, null stays null', async () => {
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

    it('a nested transaction left running writes nothing once its parent has rolled back', async () => {
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

    it('a failed insertMany inside a transaction writes nothing', async () => {
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

    it.skipIf(!ctx.capabilities.uniqueIndexes)(
      `a unique violation inside a transaction rolls back the whole transaction` +
        (ctx.capabilities.uniqueIndexes ? '' : ' [skipped: needs capabilities.uniqueIndexes]'),
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

    it('a read outside a running transaction never sees its uncommitted writes', async () => {
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
  },
}
