import type { Collection, CollectionSpec, FindOptions, StorageAdapter, StorageCapabilities, StoredRecord, Where } from '../port.js'
import { retryWhenBusy } from './busy.js'
import { SqliteCollection, type SqliteSession } from './collection.js'
import { Connection, type SqliteStorageOptions } from './connection.js'
import { Layout } from './layout.js'
import { scopeFinished, TransactionLock, type TransactionScope } from '../transaction-lock.js'
import { migrate } from './migrate.js'
import { findQueries } from './query.js'

/** State shared by an adapter and every transaction adapter derived from it. */
interface Core {
  readonly connection: Connection
  readonly layouts: Map<string, Layout>
}

/** A transaction nesting level: the root adapter (depth 0) or one `transaction(fn)` call. */
interface Scope extends TransactionScope {
  readonly depth: number
  readonly parent?: Scope
}

/**
 * An adapter bound to one scope. better-sqlite3 is synchronous and has one connection, while
 * `transaction(fn)` awaits: so a transaction holds its scope's lock from BEGIN to COMMIT and
 * every other operation on that scope waits for it. Operations inside go through the `tx`
 * adapter, whose own lock serializes nested transactions (savepoints).
 */
class SqliteAdapter implements StorageAdapter {
  readonly name = 'sqlite'
  readonly capabilities: StorageCapabilities
  private readonly session: SqliteSession
  private readonly collections = new Map<string, SqliteCollection<StoredRecord>>()

  constructor(
    protected readonly core: Core,
    private readonly scope: Scope,
  ) {
    this.capabilities = { transactions: true, uniqueIndexes: true, multiProcess: core.connection.shared }
    this.session = {
      connection: core.connection,
      layout: (name) => this.layout(name),
      run: (op) => retryWhenBusy(() => this.scope.lock.whenFree(() => this.usable(op))),
    }
  }

  init(specs: CollectionSpec[]): Promise<void> {
    return this.session.run(() => {
      const layouts = specs.map((spec) => new Layout(spec))
      this.core.connection.atomically(() => migrate(this.core.connection, layouts))
      for (const layout of layouts) this.core.layouts.set(layout.name, layout)
    })
  }

  collection<T extends StoredRecord = StoredRecord>(name: string): Collection<T> {
    let collection = this.collections.get(name)
    if (collection === undefined) {
      collection = new SqliteCollection(this.session, name)
      this.collections.set(name, collection)
    }
    return collection as unknown as Collection<T>
  }

  transaction<R>(fn: (tx: StorageAdapter) => Promise<R>): Promise<R> {
    return this.scope.lock.hold(async () => {
      const { db } = this.usable(() => this.core.connection)
      const savepoint = `didvault_${this.scope.depth}`
      const root = this.scope.depth === 0
      // BEGIN IMMEDIATE takes the write lock now: writers in other processes queue on
      // busy_timeout rather than deadlocking on a read-to-write upgrade.
      if (root) await retryWhenBusy(async () => db.exec('BEGIN IMMEDIATE'))
      else db.exec(`SAVEPOINT ${savepoint}`)
      const rollback = (): void => {
        if (!db.inTransaction) return // SQLite already rolled back (e.g. after an I/O error)
        db.exec(root ? 'ROLLBACK' : `ROLLBACK TO ${savepoint}; RELEASE ${savepoint}`)
      }
      const txScope: Scope = { lock: new TransactionLock(), depth: this.scope.depth + 1, finished: false, parent: this.scope }
      // Once `fn` settles, nested transactions it left running can write no more; they are
      // waited for, so their savepoints are gone before this transaction commits or rolls back.
      const settle = async () => {
        txScope.finished = true
        await txScope.lock.hold(async () => undefined)
      }
      let result: R
      try {
        result = await fn(new SqliteAdapter(this.core, txScope))
      } catch (err) {
        await settle()
        rollback()
        throw err
      }
      await settle()
      try {
        db.exec(root ? 'COMMIT' : `RELEASE ${savepoint}`)
      } catch (err) {
        rollback()
        throw err
      }
      return result
    })
  }

  close(): Promise<void> {
    return Promise.reject(new Error('a transaction adapter cannot be closed; close the storage it came from'))
  }

  /** Runs `op` unless this scope's transaction has finished or the database is closed. */
  protected usable<R>(op: () => R): R {
    if (scopeFinished(this.scope)) throw new Error('this transaction has already finished; use the storage it came from')
    if (!this.core.connection.db.open) throw new Error('SQLite storage is closed')
    return op()
  }

  protected layout(name: string): Layout {
    const layout = this.core.layouts.get(name)
    if (layout === undefined) throw new Error(`unknown collection "${name}": declare it in init(specs)`)
    return layout
  }

  /** Runs `op` holding this scope's lock (no transaction in progress). */
  protected exclusive<R>(op: () => R): Promise<R> {
    return this.scope.lock.hold(async () => op())
  }
}

/**
 * {@link StorageAdapter} on SQLite (better-sqlite3): one table of JSON documents per collection,
 * declared fields as indexed generated columns, array fields in indexed side tables, WAL mode,
 * `BEGIN IMMEDIATE` transactions, safe for several processes sharing one database file.
 */
export class SqliteStorage extends SqliteAdapter {
  constructor(options: SqliteStorageOptions) {
    super({ connection: new Connection(options), layouts: new Map() }, { lock: new TransactionLock(), depth: 0, finished: false })
  }

  /**
   * `EXPLAIN QUERY PLAN` of the first SELECT that `find(where, options)` runs on `collection`,
   * one line per plan step: a diagnostic to check that a query is served by an index.
   */
  explain(collection: string, where: Where, options?: FindOptions): Promise<string[]> {
    return this.exclusive(() =>
      this.usable(() => {
        const [query] = findQueries(this.layout(collection), where, options).queries
        const plan = this.core.connection.db.prepare(`EXPLAIN QUERY PLAN ${query.sql}`).all(...query.params, 1)
        return (plan as Array<{ detail: string }>).map((step) => step.detail)
      }),
    )
  }

  /** Waits for a running transaction to finish, then closes the database. Idempotent. */
  override close(): Promise<void> {
    return this.exclusive(() => this.core.connection.close())
  }
}

/**
 * Opens (creating if needed) an SQLite database for didvault. Call `init(specs)` before use.
 *
 * @example
 * const storage = createSqliteStorage({ path: './didvault.db' })
 */
export function createSqliteStorage(options: SqliteStorageOptions): SqliteStorage {
  return new SqliteStorage(options)
}
