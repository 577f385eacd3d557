/**
 * The storage port's conformance groups, domain-free: they run on a collection of their own
 * (`conformance_items`). Records, queries and order, paging and cursors, and increment run on
 * every adapter; unique indexes, transactions, `insertAll` and several processes on one database only when
 * the adapter declares them. `didvault/testing` (src/testing/) runs them together with the
 * groups over the service's own collections.
 */
import type { ConformanceGroup } from './group.js'
import { incrementGroup } from './increment.js'
import { insertAllGroup } from './insert-all.js'
import { multiProcessGroup } from './multi-process.js'
import { pagingGroup } from './paging.js'
import { queriesGroup } from './queries.js'
import { recordsGroup } from './records.js'
import { transactionsGroup } from './transactions.js'
import { uniqueIndexesGroup } from './unique-indexes.js'

export type { StorageFixture } from './fixtures.js'
export { freshTenant } from './fixtures.js'
export type { ConformanceContext, ConformanceGroup } from './group.js'
export { type ConformanceRunOptions, describeConformance } from './runner.js'

/** The port's groups, in the order they run. */
export const PORT_GROUPS: readonly ConformanceGroup[] = [
  recordsGroup,
  queriesGroup,
  pagingGroup,
  incrementGroup,
  uniqueIndexesGroup,
  transactionsGroup,
  insertAllGroup,
  multiProcessGroup,
]
