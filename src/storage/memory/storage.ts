import type {
  Collection,
  CollectionSpec,
  CollectionWrite,
  ExplainOptions,
  QueryPlan,
  StorageAdapter,
  StorageCapabilities,
  StoredRecord,
  Where,
} from '../port.js'
import {
  assertUsable,
  childScope,
  closeTransactionAdapter,
  rootScope,
  runTransaction,
  type TransactionScope,
} from '../transaction-scope.js'
import { insertAllInTransaction } from '../insert-all.js'
import { MemoryCollection } from './collection.js'
import { CollectionData, MemoryDatabase } from './data.js'

/** An adapter bound to one scope (the root, or a transaction). */
class MemoryAdapter implements StorageAdapter {
  readonly name = 'memory'
  readonly capabilities: StorageCapabilities = { transactions: true, uniqueIndexes: true, multiProcess: false }
  private readonly collections = new Map<string, MemoryCollection<StoredRecord>>()

  constructor(
    protected readonly db: MemoryDatabase,
    protected readonly scope: TransactionScope,
  ) {}

  /** Runs `op` when no transaction holds this scope, unless the scope or the storage is done. */
  protected run<R>(op: () => R): Promise<R> {
    return this.scope.lock.whenFree(() => {
      assertUsable(this.scope, this.db.closed, 'memory')
      return op()
    })
  }

  init(specs: readonly CollectionSpec[]): Promise<void> {
    return this.run(() => {
      for (const spec of specs) {
        const existing = this.db.collections.get(spec.name)
        if (existing === undefined) this.db.collections.set(spec.name, new CollectionData(spec))
        else existing.reindex(spec)
      }
    })
  }

  collection<T extends StoredRecord = StoredRecord>(name: string): Collection<T> {
    let collection = this.collections.get(name)
    if (collection === undefined) {
      collection = new MemoryCollection(this.db, name, (op) => this.run(op))
      this.collections.set(name, collection)
    }
    return collection as unknown as Collection<T>
  }

  /**
   * Serialized with every other operation on this adapter; a throw undoes every write made
   * through `tx` (nested transactions undo only their own writes).
   */
  transaction<R>(fn: (tx: StorageAdapter) => Promise<R>): Promise<R> {
    return runTransaction(
      this.scope,
      () => {
        assertUsable(this.scope, this.db.closed, 'memory')
        const mark = this.db.begin()
        return {
          scope: childScope(this.scope, {}),
          commit: () => this.db.end(mark, true),
          rollback: () => this.db.end(mark, false),
        }
      },
      (scope) => fn(new MemoryAdapter(this.db, scope)),
    )
  }

  /** In one transaction (a unique conflict anywhere undoes every insert). */
  insertAll(writes: ReadonlyArray<CollectionWrite>): Promise<void> {
    return insertAllInTransaction(this, writes)
  }

  /** The field-index lookups `find` (or `count`) would narrow `where` with (a find's sort is always done in memory). */
  explain(collection: string, where: Where, options: ExplainOptions = {}): Promise<QueryPlan> {
    return this.run(() => {
      const data = this.db.data(collection)
      data.schema.compile(where)
      if (options.count !== true) data.schema.ordering(options.orderBy)
      return data.plan(where)
    })
  }

  close(): Promise<void> {
    return closeTransactionAdapter()
  }
}

/** In-memory {@link StorageAdapter}; its data lives as long as the instance. */
export class MemoryStorage extends MemoryAdapter {
  constructor() {
    super(new MemoryDatabase(), rootScope())
  }

  /** Waits for a running transaction to finish, then drops the data. Idempotent. */
  override close(): Promise<void> {
    return this.scope.lock.whenFree(() => {
      this.db.closed = true
      this.db.collections.clear()
    })
  }
}

/** Creates an empty in-memory storage. */
export function createMemoryStorage(): MemoryStorage {
  return new MemoryStorage()
}
