/**
 * What the metrics hook into without the domains importing prom-client: the storage timing
 * decorator (every call of the port timed by kind, inside transactions too, results and errors
 * unchanged) and the status publisher's `onPublished` callback (one per publication that succeeded).
 */
import { describe, expect, it } from 'vitest'
import { createMemoryStorage } from '../../src/index.js'
import { timedStorage } from '../../src/observability/timed-storage.js'
import { StatusPublisher } from '../../src/status/publisher.js'
import type { CollectionSpec } from '../../src/storage/port.js'

const ITEMS: CollectionSpec = { name: 'items', fields: ['n'], indexes: [] }

describe('timedStorage', () => {
  it('times each call by kind, inside a transaction too, and passes results and errors through', async () => {
    const calls: string[] = []
    const storage = timedStorage(createMemoryStorage(), (call, seconds) => {
      expect(seconds).toBeGreaterThanOrEqual(0)
      calls.push(call)
    })
    await storage.init([ITEMS])
    const items = storage.collection<{ id: string; n: number }>('items')
    expect(storage.collection('items')).toBe(items)
    await items.insert({ id: 'a', n: 1 })
    await items.insertMany([{ id: 'b', n: 2 }])
    expect(await items.get('a')).toEqual({ id: 'a', n: 1 })
    expect(await items.findOne({ field: 'n', op: 'eq', value: 2 })).toEqual({ id: 'b', n: 2 })
    expect((await items.find({ field: 'n', op: 'gt', value: 0 })).items).toHaveLength(2)
    expect(await items.count({ field: 'n', op: 'gt', value: 0 })).toBe(2)
    expect(await items.update('a', { n: 3 })).toEqual({ id: 'a', n: 3 })
    expect(await items.increment('a', 'n', 2)).toBe(5)
    await storage.transaction(async (tx) => {
      await tx.collection('items').delete('a')
    })
    expect(await items.deleteMany({ field: 'n', op: 'gt', value: 0 })).toBe(1)
    await items.insert({ id: 'c', n: 9 })
    await expect(items.insert({ id: 'c', n: 9 })).rejects.toThrow()
    await expect(items.increment('missing', 'n')).rejects.toThrow()
    await storage.insertAll([{ collection: 'items', records: [{ id: 'd', n: 4 }] }])
    await expect(storage.insertAll([{ collection: 'items', records: [{ id: 'd', n: 4 }] }])).rejects.toThrow()
    expect(await items.get('d')).toEqual({ id: 'd', n: 4 })
    expect(calls).toEqual([
      'insert',
      'insertMany',
      'get',
      'findOne',
      'find',
      'count',
      'update',
      'increment',
      'delete',
      'transaction',
      'deleteMany',
      'insert',
      'insert',
      'increment',
      'insertAll',
      'insertAll',
      'get',
    ])
    expect(storage.capabilities).toEqual(createMemoryStorage().capabilities)
    await storage.close()
  })
})

describe('StatusPublisher onPublished', () => {
  it('is told of each publication that succeeded, not of a failed one', async () => {
    let published = 0
    const failures: string[] = []
    const sign = (listId: string) => (listId === 'bad' ? Promise.reject(new Error('no key')) : Promise.resolve(listId))
    const publisher = new StatusPublisher(
      sign,
      60_000,
      (operation) => failures.push(operation),
      () => published++,
    )
    publisher.schedule('one')
    publisher.schedule('two')
    publisher.schedule('bad')
    await publisher.flush()
    expect(published).toBe(2)
    expect(failures).toEqual(['Publish status list'])
    publisher.schedule('one')
    await publisher.close()
    expect(published).toBe(2)
  })
})
