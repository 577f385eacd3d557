/** What a capability group of the conformance suite is, and what it gets to run. */
import type { Collection, CollectionSpec, StorageAdapter, StorageCapabilities } from '../port.js'
import type { Item } from './fixtures.js'
/** What a group's tests use: the fixture of the running test, and how to open another one. */
export interface ConformanceContext {
  /** The adapter of the running test (initialised) and its conformance collection. */
  current(): { storage: StorageAdapter; items: Collection<Item> }
  /** The capabilities the adapter declares. */
  readonly capabilities: StorageCapabilities
  /** The fixture collections' specs of this run (`SPECS`, or `CACHED_SPECS`): what a test passes to `init`. */
  readonly specs: readonly CollectionSpec[]
  /** Opens another fixture (the factory given to the suite), closed after the test. */
  open(): Promise<StorageAdapter>
}

/** One capability group: its tests run only when the adapter declares every capability in `needs`. */
export interface ConformanceGroup {
  title: string
  needs: Array<keyof StorageCapabilities>
  /** Why the group cannot run with the fixture collections declared `cached`, when it cannot (it is then skipped, saying so). */
  notWithCachedFixtures?: string
  /** Declares the group's tests (inside a `describe` of its own). */
  define(ctx: ConformanceContext): void
}
