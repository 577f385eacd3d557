/**
 * `insertAll`: records into several collections at once, all or none — a unique conflict in any collection (by a
 * unique index or a taken id) throws UniqueConstraintError naming that collection and writes nothing anywhere; through
 * a transaction's `tx`, the records roll back with it. Needs `capabilities.transactions` and `uniqueIndexes`.
 */
import { beforeEach, expect, it } from 'vitest'
import { type Collection, type StorageAdapter, UniqueConstraintError } from '../port.js'
import { freshTenant, idsOf, inTenant, item, ITEMS, type Item, note, type Note, NOTES, sortedIds } from './fixtures.js'
import type { ConformanceGroup } from './group.js'

export const insertAllGroup: ConformanceGroup = {
  title: 'insertAll',
  needs: ['transactions', 'uniqueIndexes'],
  define(ctx) {
    let storage: StorageAdapter
    let items: Collection<Item>
    let notes: Collection<Note>
    beforeEach(() => {
      ;({ storage, items } = ctx.current())
      notes = storage.collection<Note>(NOTES)
    })

    /** The ids of `tenant`'s items and notes. */
    const stored = async (tenant: string) => ({
      items: sortedIds((await items.find(inTenant(tenant))).items),
      notes: sortedIds((await notes.find(inTenant(tenant))).items),
    })

    it('inserts every record into its collection; empty writes and no writes are no-ops', async () => {
      const tenant = freshTenant()
      const a = item(tenant, 'a', { name: 'a', tags: ['x'] })
      await storage.insertAll([
        { collection: ITEMS, records: [a, item(tenant, 'b')] },
        { collection: NOTES, records: [] },
        { collection: NOTES, records: [note(tenant, 'one'), note(tenant, 'two')] },
      ])
      await storage.insertAll([])
      await storage.insertAll([{ collection: ITEMS, records: [] }])
      expect(await stored(tenant)).toEqual({
        items: idsOf(tenant, ['a', 'b']),
        notes: idsOf(tenant, ['note-one', 'note-two']),
      })
      expect(await items.get(a.id)).toEqual(a)
      expect(await items.count(inTenant(tenant, { field: 'tags', op: 'containsAny', value: ['x'] }))).toBe(1)
      expect(await notes.findOne(inTenant(tenant, { field: 'key', op: 'eq', value: 'two' }))).toEqual(note(tenant, 'two'))
    })

    it('a unique conflict in the second collection throws naming it and writes nothing in the first', async () => {
      const tenant = freshTenant()
      await notes.insert(note(tenant, 'taken'))
      const error = await storage
        .insertAll([
          { collection: ITEMS, records: [item(tenant, 'a'), item(tenant, 'b')] },
          { collection: NOTES, records: [note(tenant, 'free'), note(tenant, 'taken', `${tenant}-other`)] },
        ])
        .catch((err: unknown) => err)
      expect(error).toBeInstanceOf(UniqueConstraintError)
      expect((error as UniqueConstraintError).collection).toBe(NOTES)
      expect((error as UniqueConstraintError).fields).toEqual(['tenantId', 'key'])
      expect(await stored(tenant)).toEqual({ items: [], notes: idsOf(tenant, ['note-taken']) })
    })

    it('a taken id in the first collection throws naming it (fields ["id"]) and writes nothing in the second', async () => {
      const tenant = freshTenant()
      const kept = item(tenant, 'kept', { n: 1 })
      await items.insert(kept)
      const error = await storage
        .insertAll([
          { collection: ITEMS, records: [item(tenant, 'new'), { ...kept, n: 2 }] },
          { collection: NOTES, records: [note(tenant, 'one')] },
        ])
        .catch((err: unknown) => err)
      expect(error).toBeInstanceOf(UniqueConstraintError)
      expect((error as UniqueConstraintError).collection).toBe(ITEMS)
      expect((error as UniqueConstraintError).fields).toEqual(['id'])
      expect(await stored(tenant)).toEqual({ items: idsOf(tenant, ['kept']), notes: [] })
      expect(await items.get(kept.id)).toEqual(kept)
    })

    it('records duplicating each other within one call conflict too: nothing written', async () => {
      const tenant = freshTenant()
      const error = await storage
        .insertAll([
          { collection: NOTES, records: [note(tenant, 'x')] },
          { collection: ITEMS, records: [item(tenant, 'a', { name: 'same' }), item(tenant, 'b', { name: 'same' })] },
        ])
        .catch((err: unknown) => err)
      expect(error).toBeInstanceOf(UniqueConstraintError)
      expect((error as UniqueConstraintError).collection).toBe(ITEMS)
      expect(await stored(tenant)).toEqual({ items: [], notes: [] })
    })

    it('through a transaction: visible inside it, rolled back with it, committed with it', async () => {
      const tenant = freshTenant()
      const boom = new Error('boom')
      await expect(
        storage.transaction(async (tx) => {
          await tx.insertAll([
            { collection: ITEMS, records: [item(tenant, 'a')] },
            { collection: NOTES, records: [note(tenant, 'one')] },
          ])
          expect(await tx.collection<Note>(NOTES).get(`${tenant}-note-one`)).toEqual(note(tenant, 'one'))
          throw boom
        }),
      ).rejects.toBe(boom)
      expect(await stored(tenant)).toEqual({ items: [], notes: [] })

      await storage.transaction(async (tx) => {
        await tx.collection<Item>(ITEMS).insert(item(tenant, 'first'))
        await tx.insertAll([
          { collection: ITEMS, records: [item(tenant, 'b')] },
          { collection: NOTES, records: [note(tenant, 'two')] },
        ])
      })
      expect(await stored(tenant)).toEqual({ items: idsOf(tenant, ['b', 'first']), notes: idsOf(tenant, ['note-two']) })
    })
  },
}
