/** The fixture collection of a run with the collections cached: every read asked twice, so a read cache answers it. */
import type { Collection, StoredRecord } from '../port.js'

/** The port's reads. */
const READS: ReadonlySet<PropertyKey> = new Set(['get', 'findOne', 'find', 'count'])

/**
 * `collection`, whose reads (`get`, `findOne`, `find`, `count`) are each run twice, answering the second: the first fills
 * the adapter's read cache, so the answer a test checks is the cache's (when it keeps it). A read that fails is not
 * repeated. Writes and everything else go to `collection` unchanged.
 */
export function readingTwice<T extends StoredRecord>(collection: Collection<T>): Collection<T> {
  return new Proxy(collection, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target)
      if (typeof value !== 'function') return value
      const method = (value as (...args: unknown[]) => Promise<unknown>).bind(target)
      if (!READS.has(key)) return method
      return async (...args: unknown[]) => {
        await method(...args)
        return method(...args)
      }
    },
  })
}
