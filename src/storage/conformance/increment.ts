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

    it('rejects for a missing id and creates nothing', async () => {
      const id = `${freshTenant()}-missing`
      await expect(items.increment(id, 'n')).rejects.toThrow()
      expect(await items.get(id)).toBeUndefined()
    })
  },
}
