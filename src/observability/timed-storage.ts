/**
 * A storage adapter that times every call of another (for `didvault_storage_operation_duration_seconds`):
 * the adapters themselves stay free of metrics. Calls inside a transaction are timed too, and the
 * transaction as a whole under `transaction`.
 */
import type { Collection, StorageAdapter, StoredRecord } from '../storage/port.js'

/** Receives each call's kind and its duration in seconds. */
export type StorageTimer = (call: string, seconds: number) => void

const COLLECTION_CALLS = [
  'insert',
  'insertMany',
  'get',
  'findOne',
  'find',
  'count',
  'update',
  'delete',
  'deleteMany',
  'deleteIds',
  'increment',
] as const

/** Runs `fn`, then tells `timer` how long its promise took (settled either way). */
async function timed<R>(timer: StorageTimer, call: string, fn: () => Promise<R>): Promise<R> {
  const start = performance.now()
  try {
    return await fn()
  } finally {
    timer(call, (performance.now() - start) / 1000)
  }
}

function timedCollection<T extends StoredRecord>(inner: Collection<T>, timer: StorageTimer): Collection<T> {
  const wrapped: Partial<Record<(typeof COLLECTION_CALLS)[number], unknown>> = {}
  for (const call of COLLECTION_CALLS) {
    const target = inner as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>
    wrapped[call] = (...args: unknown[]) => timed(timer, call, () => target[call](...args))
  }
  return wrapped as Collection<T>
}

/** `inner` with each call timed by `timer`. */
export function timedStorage(inner: StorageAdapter, timer: StorageTimer): StorageAdapter {
  const collections = new Map<string, Collection>()
  const collectionOf = (name: string): Collection => {
    let collection = collections.get(name)
    if (collection === undefined) collections.set(name, (collection = timedCollection(inner.collection(name), timer)))
    return collection
  }
  return {
    name: inner.name,
    capabilities: inner.capabilities,
    init: (specs) => inner.init(specs),
    collection: <T extends StoredRecord>(name: string) => collectionOf(name) as Collection<T>,
    transaction: (fn) => timed(timer, 'transaction', () => inner.transaction((tx) => fn(timedStorage(tx, timer)))),
    insertAll: (writes) => timed(timer, 'insertAll', () => inner.insertAll(writes)),
    explain: (collection, where, options) => inner.explain(collection, where, options),
    close: () => inner.close(),
  }
}
