/**
 * A storage that tells of each committed top-level transaction (and top-level `insertAll`, its own one-statement
 * transaction): how the audit trail learns that
 * the records an act appended are committed, so its sequencer chains them without waiting for a
 * sweep. Everything else is the wrapped storage's (a transaction's `tx` is the wrapped storage's own).
 */
import type { StorageAdapter, StoredRecord } from '../storage/port.js'

/** `inner`, calling `onCommit` after each `transaction(fn)` and `insertAll(writes)` on it that committed. */
export function afterCommits(inner: StorageAdapter, onCommit: () => void): StorageAdapter {
  return {
    name: inner.name,
    capabilities: inner.capabilities,
    init: (specs) => inner.init(specs),
    collection: <T extends StoredRecord>(name: string) => inner.collection<T>(name),
    transaction: async (fn) => {
      const result = await inner.transaction(fn)
      onCommit()
      return result
    },
    insertAll: async (writes) => {
      await inner.insertAll(writes)
      onCommit()
    },
    explain: (collection, where, options) => inner.explain(collection, where, options),
    close: () => inner.close(),
  }
}
