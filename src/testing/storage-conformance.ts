/**
 * The storage conformance suite of `didvault/testing`: the port's groups (on a collection of
 * their own) and the service's (on its real collections), run unchanged against any adapter.
 */
import { describeConformance, PORT_GROUPS, type StorageFixture } from '../storage/conformance/index.js'
import { migrationsGroup } from './migrations.js'
import { queryPlansGroup } from './query-plans.js'
import { serviceCollectionsGroup } from './service-collections.js'

/** What an adapter's test may add to {@link runStorageConformance}. */
export interface StorageConformanceOptions {
  /**
   * Databases written by earlier didvault releases, for an adapter that can open them (SQLite:
   * copies of the fixture files of the repository's test/fixtures): name → a factory opening a
   * fresh copy. Each is upgraded with `init(COLLECTIONS)` and checked. Adapters without such
   * files still run the migrations group on a database of 0.1.0 written through them.
   */
  earlierDatabases?: Readonly<Record<string, () => Promise<StorageFixture>>>
}

/**
 * Declares the storage conformance suite for one adapter as a vitest `describe` block, as
 * capability groups:
 * - the port, on a collection of its own: records, queries and order, paging and cursors,
 *   increment (every adapter); unique indexes, transactions, `insertAll` across two collections (all or
 *   none), several processes on one database (when `capabilities` declare them);
 * - the service, when the adapter can host it (`transactions` and `uniqueIndexes`): its real
 *   collections with representative records; every query it issues served by an index (the
 *   adapter's `explain`); migrations.
 *
 * A skipped group says why, in its title and on the console. Every test writes fresh records
 * under its own tenant id, so the suite can run against a shared, non-empty database.
 *
 * @param name Shown in the suite title.
 * @param factory Called before each test (and once while collecting, to read capabilities).
 *   It may return the same database every time; when the adapter declares
 *   `capabilities.multiProcess` it must, as that group opens a second adapter with it and
 *   expects both to share one database.
 *
 * @example
 * runStorageConformance('memory', async () => ({ storage: createMemoryStorage() }))
 */
export function runStorageConformance(name: string, factory: () => Promise<StorageFixture>, options: StorageConformanceOptions = {}): void {
  describeConformance(name, factory, [...PORT_GROUPS, serviceCollectionsGroup, queryPlansGroup, migrationsGroup(options.earlierDatabases)])
}
