/**
 * {@link StorageAdapter.insertAll} for adapters without a one-statement form: each collection's records inserted with
 * `insertMany` in one transaction, so a unique conflict anywhere leaves nothing written.
 */
import type { CollectionWrite, StorageAdapter } from './port.js'

/** The writes that insert something. */
export function nonEmptyWrites(writes: ReadonlyArray<CollectionWrite>): CollectionWrite[] {
  return writes.filter((write) => write.records.length > 0)
}

/** Inserts `writes` through `storage` in one transaction (one `insertMany` needs none: it is all or nothing). */
export async function insertAllInTransaction(storage: StorageAdapter, writes: ReadonlyArray<CollectionWrite>): Promise<void> {
  const inserting = nonEmptyWrites(writes)
  if (inserting.length === 0) return
  if (inserting.length === 1) return storage.collection(inserting[0].collection).insertMany(inserting[0].records)
  await storage.transaction(async (tx) => {
    for (const { collection, records } of inserting) await tx.collection(collection).insertMany(records)
  })
}
