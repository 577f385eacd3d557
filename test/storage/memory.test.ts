import { describe, expect, it } from 'vitest'
import { runStorageConformance } from '../../src/testing/index.js'
import { createMemoryStorage } from '../../src/storage/memory/index.js'
import type { StoredRecord } from '../../src/storage/port.js'

runStorageConformance('memory', async () => ({ storage: createMemoryStorage() }))

describe('memory storage', () => {
  const spec = { name: 'things', fields: ['createdAt'], indexes: [] }

  it('a nested transaction that throws undoes only its own writes', async () => {
    const storage = createMemoryStorage()
    await storage.init([spec])
    await storage.transaction(async (tx) => {
      await tx.collection('things').insert({ id: 'outer' })
      await expect(
        tx.transaction(async (inner) => {
          await inner.collection('things').insert({ id: 'inner' })
          throw new Error('inner failed')
        }),
      ).rejects.toThrow('inner failed')
    })
    const things = storage.collection<StoredRecord>('things')
    expect(await things.get('outer')).toBeDefined()
    expect(await things.get('inner')).toBeUndefined()
  })

  it('using the outer adapter inside its own transaction rejects instead of deadlocking', async () => {
    const storage = createMemoryStorage()
    await storage.init([spec])
    await expect(storage.transaction(() => storage.collection('things').get('x'))).rejects.toThrow(/inside its own transaction/)
  })

  it('a transaction adapter is unusable after its transaction finished', async () => {
    const storage = createMemoryStorage()
    await storage.init([spec])
    const tx = await storage.transaction(async (tx) => tx)
    await expect(tx.collection('things').get('x')).rejects.toThrow(/already finished/)
  })
})
