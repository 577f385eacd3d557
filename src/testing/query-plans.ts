/**
 * Every query the service issues ({@link SERVICE_QUERIES}) is served by an index on the adapter,
 * as the adapter's `explain` reports it from its backend's planner (DESIGN §6: no operation
 * filters a whole collection). A find with no filter at all must be reported as reading the
 * whole collection, so an `explain` that always says "index" fails here.
 *
 * The plans are asked of the service's declarations under names of this run's own, on collections
 * no test writes to: a planner with statistics of a shared test database's tiny tables may rightly
 * prefer a scan, which says nothing of a real database. Without statistics, planners assume large
 * collections.
 */
import { beforeEach, expect, it } from 'vitest'
import { COLLECTIONS } from '../service/collections.js'
import { SERVICE_STORAGE_REQUIREMENTS } from '../service/storage-requirements.js'
import { type ConformanceGroup, freshTenant } from '../storage/conformance/index.js'
import type { StorageAdapter } from '../storage/port.js'
import { SERVICE_QUERIES, type ServiceQuery } from './service-queries.js'

/**
 * Asks `storage` to explain and run each of `queries` (on `collectionName(query.collection)`):
 * both must succeed, the plan served by an index.
 */
export async function expectServedByIndexes(
  storage: StorageAdapter,
  queries: readonly ServiceQuery[],
  collectionName: (name: string) => string,
): Promise<void> {
  for (const query of queries) {
    const collection = collectionName(query.collection)
    const plan = await storage.explain(collection, query.where, query.options)
    expect(plan.usesIndex, `${query.collection}: ${query.title} is not served by an index:\n${plan.plan}`).toBe(true)
    const records = storage.collection(collection)
    if (query.options.count === true) await expect(records.count(query.where)).resolves.toBeTypeOf('number')
    else await expect(records.find(query.where, query.options)).resolves.toHaveProperty('items')
  }
}

/** The group; it runs when the adapter can host the service (see {@link SERVICE_STORAGE_REQUIREMENTS}). */
export const queryPlansGroup: ConformanceGroup = {
  title: 'every query the service issues is served by an index',
  needs: SERVICE_STORAGE_REQUIREMENTS.map((requirement) => requirement.capability),
  define(ctx) {
    const prefix = `${freshTenant().replaceAll('-', '_')}_`
    const named = (name: string): string => `${prefix}${name}`
    let storage: StorageAdapter
    beforeEach(async () => {
      ;({ storage } = ctx.current())
      await storage.init(COLLECTIONS.map((spec) => ({ ...spec, name: named(spec.name) })))
    })

    for (const query of SERVICE_QUERIES) {
      it(`${query.collection}: ${query.title}`, () => expectServedByIndexes(storage, [query], named))
    }

    it('a find with no filter reads the whole collection, and explain says so', async () => {
      const plan = await storage.explain(named('wallets'), { and: [] }, { limit: 10 })
      expect(plan.usesIndex, plan.plan).toBe(false)
      expect(plan.plan).not.toBe('')
    })

    it('explain rejects an undeclared collection or field, as find does', async () => {
      await expect(storage.explain('undeclared_collection', { and: [] })).rejects.toThrow(/undeclared_collection/)
      await expect(storage.explain(named('wallets'), { field: 'undeclaredField', op: 'eq', value: 1 })).rejects.toThrow(/undeclaredField/)
    })
  },
}
