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
import { CACHED_SPECS, ITEMS, type Item, SPECS, type StorageFixture } from './fixtures.js'
import type { ConformanceContext, ConformanceGroup } from './group.js'
import { readingTwice } from './read-twice.js'

async function probeCapabilities(factory: () => Promise<StorageFixture>): Promise<StorageCapabilities> {
  const { storage, cleanup } = await factory()
  const capabilities = { ...storage.capabilities }
  await storage.close()
  await cleanup?.()
  return capabilities
}

/** How {@link describeConformance} runs its groups. */
export interface ConformanceRunOptions {
  /**
   * Declares the fixture collections `cached` (`CACHED_SPECS`), and asks each read of the tests' collection twice
   * (`read-twice.ts`), so what a test checks is what the adapter's read cache answers. Groups that cannot run so
   * (`notWithCachedFixtures`) are skipped, saying why.
   */
  cachedFixtures?: boolean
  /** Awaited before each test, once the test's adapter is initialised (e.g. until its read cache answers). */
  ready?: (storage: StorageAdapter) => Promise<void>
}

/** Why `group` cannot run on an adapter with `capabilities` (in a run with `options`), or undefined when it can. */
function skipReason(group: ConformanceGroup, capabilities: StorageCapabilities, options: ConformanceRunOptions): string | undefined {
  const missing = group.needs.filter((capability) => !capabilities[capability])
  if (missing.length > 0) return `the adapter declares ${missing.map((capability) => `capabilities.${capability} = false`).join(' and ')}`
  return options.cachedFixtures === true ? group.notWithCachedFixtures : undefined
}

/**
 * Declares `groups`, in order, against the adapter `factory` opens.
 *
 * @param name Shown in the suite title.
 * @param factory Called before each test (and once while collecting, to read capabilities).
 *   It may return the same database every time; when the adapter declares
 *   `capabilities.multiProcess` it must, as that group opens a second adapter with it and
 *   expects both to share one database.
 * @param groups The groups to declare, in order.
 * @param options How to run them: with the fixture collections cached, and what to await before each test.
 */
export function describeConformance(
  name: string,
  factory: () => Promise<StorageFixture>,
  groups: readonly ConformanceGroup[],
  options: ConformanceRunOptions = {},
): void {
  describe(`storage conformance: ${name}`, async () => {
    const capabilities = await probeCapabilities(factory)
    const specs = options.cachedFixtures === true ? CACHED_SPECS : SPECS
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
      await storage.init(specs)
      await options.ready?.(storage)
      const items = storage.collection<Item>(ITEMS)
      current = { storage, items: options.cachedFixtures === true ? readingTwice(items) : items }
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
      specs,
      open,
      current() {
        if (current === undefined) throw new Error('conformance fixture used outside a test')
        return current
      },
    }

    for (const group of groups) {
      const reason = skipReason(group, capabilities, options)
      if (reason === undefined) {
        describe(group.title, () => group.define(ctx))
      } else {
        console.log(`[conformance] ${name}: group "${group.title}" skipped: ${reason}`)
        describe.skip(`${group.title} [skipped: ${reason}]`, () => group.define(ctx))
      }
    }
  })
}
