/** Atomic increment. Every adapter. */
import { beforeEach, expect, it } from 'vitest'
import type { Collection } from '../port.js'
import { freshTenant, item, type Item } from './fixtures.js'
import type { ConformanceGroup } from './group.js'

export const incrementGroup: ConformanceGroup = {
  title: 'increment',
  needs: [],
  define(ctx) {
    let items: Collection<Item>
    beforeEach(() => {
      ;({ items } = ctx.current())
    })

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

    it('sets fields in the same write (a string, null, a boolean); a missing id or a bad set writes nothing', async () => {
      const record = item(freshTenant(), 'claimed', { n: 0, name: 'open', flag: true, tags: ['a'] })
      await items.insert(record)
      expect(await items.increment(record.id, 'n', 1, { name: 'redeemed', flag: null })).toBe(1)
      expect(await items.get(record.id)).toEqual({ ...record, n: 1, name: 'redeemed', flag: null })
      // A second increment with the same set: the count says it was not the first.
      expect(await items.increment(record.id, 'n', 1, { name: 'redeemed', flag: false, createdAt: 'x' })).toBe(2)
      expect(await items.get(record.id)).toEqual({ ...record, n: 2, name: 'redeemed', flag: false, createdAt: 'x' })
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => items.increment(record.id, 'n', 1, { name: `c${i}` })))
      expect([...results].sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i + 3))
      const missing = `${freshTenant()}-missing`
      await expect(items.increment(missing, 'n', 1, { name: 'x' })).rejects.toThrow()
      expect(await items.get(missing)).toBeUndefined()
      for (const bad of [{ n: 5 }, { id: 'other' }, { name: undefined }])
        await expect(items.increment(record.id, 'n', 1, bad as Partial<Item>)).rejects.toThrow(TypeError)
      expect((await items.get(record.id))!.n).toBe(22)
    })

    it('with atMost: only the writes that stay within it happen; past it nothing is written and the would-be value returned', async () => {
      const record = item(freshTenant(), 'offer', { name: 'offered', flag: true })
      await items.insert(record)
      // A claim: the first caller alone gets 1 and writes its state; every later one gets more and writes nothing.
      expect(await items.increment(record.id, 'n', 1, { name: 'redeemed' }, 1)).toBe(1)
      expect(await items.get(record.id)).toEqual({ ...record, n: 1, name: 'redeemed' })
      expect(await items.increment(record.id, 'n', 1, { name: 'burned', flag: false }, 1)).toBe(2)
      expect(await items.get(record.id)).toEqual({ ...record, n: 1, name: 'redeemed' })
      // Concurrent claims of a fresh record: exactly one wins, across connections, and its state is the one stored.
      const fresh = item(freshTenant(), 'raced', { n: null, name: 'offered' })
      await items.insert(fresh)
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => items.increment(fresh.id, 'n', 1, { name: `c${i}` }, 1)))
      expect(results.filter((r) => r === 1)).toHaveLength(1)
      expect(results.filter((r) => r === 2)).toHaveLength(19)
      const stored = await items.get(fresh.id)
      expect(stored!.n).toBe(1)
      expect(stored!.name).toBe(`c${results.indexOf(1)}`)
      // A bound above the first value, and a step larger than the bound over an absent field.
      const counter = item(freshTenant(), 'bounded', { name: 'x' })
      await items.insert(counter)
      expect(await items.increment(counter.id, 'n', 2, undefined, 3)).toBe(2)
      expect(await items.increment(counter.id, 'n', 2, undefined, 3)).toBe(4)
      expect((await items.get(counter.id))!.n).toBe(2)
      expect(await items.increment(counter.id, 'm', 5, undefined, 3)).toBe(5)
      expect(await items.get(counter.id)).not.toHaveProperty('m')
      await expect(items.increment(counter.id, 'n', 1, undefined, Number.NaN)).rejects.toThrow(TypeError)
      await expect(items.increment(`${freshTenant()}-missing`, 'n', 1, undefined, 1)).rejects.toThrow()
    })

    it('rejects for a missing id and creates nothing', async () => {
      const id = `${freshTenant()}-missing`
      await expect(items.increment(id, 'n')).rejects.toThrow()
      expect(await items.get(id)).toBeUndefined()
    })
  },
}
