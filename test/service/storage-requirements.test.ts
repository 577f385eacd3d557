/**
 * `IdentityService.create` refuses a storage lacking a capability the service needs, naming the
 * capability, before it initialises anything.
 */
import { describe, expect, it, vi } from 'vitest'
import { IdentityService, type StorageAdapter, type StorageCapabilities } from '../../src/index.js'
import { createMemoryStorage } from '../../src/storage/memory/index.js'
import { missingCapabilities, SERVICE_STORAGE_REQUIREMENTS } from '../../src/service/storage-requirements.js'

const MASTER_KEY = '11'.repeat(32)

/** A memory storage declaring `capabilities` instead of its own, whose `init` is watched. */
function storageDeclaring(capabilities: Partial<StorageCapabilities> | undefined) {
  const memory = createMemoryStorage()
  const init = vi.fn((specs: Parameters<StorageAdapter['init']>[0]) => memory.init(specs))
  const storage = Object.assign(Object.create(memory) as StorageAdapter, { name: 'half-done', capabilities, init })
  return { storage, init }
}

describe('IdentityService.create: storage requirements', () => {
  it.each([
    ['transactions', { transactions: false, uniqueIndexes: true, multiProcess: true }],
    ['uniqueIndexes', { transactions: true, uniqueIndexes: false, multiProcess: true }],
  ] as const)('refuses a storage declaring capabilities.%s = false, naming it; nothing initialised', async (capability, capabilities) => {
    const { storage, init } = storageDeclaring(capabilities)
    const error = await IdentityService.create({ storage, masterKey: MASTER_KEY }).catch((err: unknown) => err)
    expect(error).toBeInstanceOf(TypeError)
    expect((error as Error).message).toContain(`the storage "half-done" does not declare capabilities.${capability},`)
    expect((error as Error).message).toContain('Adding a backend')
    expect(init).not.toHaveBeenCalled()
  })

  it('names every missing capability, and refuses a storage declaring none', async () => {
    for (const capabilities of [{ transactions: false, uniqueIndexes: false, multiProcess: false }, undefined]) {
      const { storage, init } = storageDeclaring(capabilities)
      await expect(IdentityService.create({ storage, masterKey: MASTER_KEY })).rejects.toThrow(
        /does not declare capabilities\.transactions and capabilities\.uniqueIndexes, which the service needs/,
      )
      expect(init).not.toHaveBeenCalled()
    }
  })

  it('accepts a storage without multiProcess (the memory adapter)', async () => {
    expect(missingCapabilities({ transactions: true, uniqueIndexes: true, multiProcess: false })).toEqual([])
    const { storage, init } = storageDeclaring({ transactions: true, uniqueIndexes: true, multiProcess: false })
    const service = await IdentityService.create({ storage, masterKey: MASTER_KEY })
    expect(init).toHaveBeenCalledOnce()
    await service.close()
  })

  it('requires exactly transactions and unique indexes', () => {
    expect(SERVICE_STORAGE_REQUIREMENTS.map((requirement) => requirement.capability)).toEqual(['transactions', 'uniqueIndexes'])
  })
})
