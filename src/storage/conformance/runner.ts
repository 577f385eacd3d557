/**
 * Declares conformance groups against one adapter as a vitest `describe` block: each group runs
 * only when the adapter's {@link StorageCapabilities} declare everything it needs; a skipped
 * group says why, in its title and on the console.
 *
 * Every test writes fresh records under its own tenant id, so the groups can run against a
 * shared, non-empty database.
 */
import { afterEach, beforeEach, describe } from 'vitest'
import type { Collection, StorageAdapter, StorageCapabilities } from '../port.js'
import { ITEMS, type Item, SPECS, type StorageFixture } from './fixtures.js'
import type { ConformanceContext, ConformanceGroup } from './group.js'

async function probeCapabilities(factory: () => Promise<StorageFixture>): Promise<StorageCapabilities> {
  const { storage, cleanup } = await factory()
  const capabilities = { ...storage.capabilities }
  await storage.close()
  await cleanup?.()
  return capabilities
}

/** Why `group` cannot run on an adapter with `capabilities`, or undefined when it can. */
function skipReason(group: ConformanceGroup, capabilities: StorageCapabilities): string | undefined {
  const missing = group.needs.filter((capability) => !capabilities[capability])
  return missing.length === 0
    ? undefined
    : `the adapter declares ${missing.map((capability) => `capabilities.${capability} = false`).join(' and ')}`
}

/**
 * Declares `groups`, in order, against the adapter `factory` opens.
 *
 * @param name Shown in the suite title.
 * @param factory Called before each test (and once while collecting, to read capabilities).
 *   It may return the same database every time; when the adapter declares
 *   `capabilities.multiProcess` it must, as that group opens a second adapter with it and
 *   expects both to share one database.
 */
export function describeConformance(name: string, factory: () => Promise<StorageFixture>, groups: readonly ConformanceGroup[]): void {
  describe(`storage conformance: ${name}`, async () => {
    const capabilities = await probeCapabilities(factory)
    let current: { storage: StorageAdapter; items: Collection<Item> } | undefined
    /** Every fixture a test opened, the main one first; closed after the test. */
    const opened: StorageFixture[] = []

    const open = async (): Promise<StorageAdapter> => {
      const fixture = await factory()
      opened.push(fixture)
      return fixture.storage
    }

    beforeEach(async () => {
      const storage = await open()
      await storage.init(SPECS)
      current = { storage, items: storage.collection<Item>(ITEMS) }
    })

    afterEach(async () => {
      current = undefined
      for (const fixture of opened.splice(0).reverse()) {
        await fixture.storage.close()
        await fixture.cleanup?.()
      }
    })

    const ctx: ConformanceContext = {
      capabilities,
      open,
      current() {
        if (current === undefined) throw new Error('conformance fixture used outside a test')
        return current
      },
    }

    for (const group of groups) {
      const reason = skipReason(group, capabilities)
      if (reason === undefined) {
        describe(group.title, () => group.define(ctx))
      } else {
        console.log(`[conformance] ${name}: group "${group.title}" skipped: ${reason}`)
        describe.skip(`${group.title} [skipped: ${reason}]`, () => group.define(ctx))
      }
    }
  })
}
