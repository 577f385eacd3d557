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
import { assertLimit } from '../paging.js'
import { retryWhenBusy } from './busy.js'
import { nonEmptyWrites } from '../insert-all.js'
import { countQuery, mapConstraint, serialize, SqliteCollection, type SqliteSession } from './collection.js'
import { Connection, type SqliteStorageOptions } from './connection.js'
import { Layout } from './layout.js'
import {
  assertUsable,
  childScope,
  closeTransactionAdapter,
  rootScope,
  runTransaction,
  type TransactionScope,
} from '../transaction-scope.js'
import { assertMigrated, migrate } from './migrate.js'
import { type PlanStep, queryPlanOf } from './plan.js'
import { type FindQuery, findQueries, withLimit } from './query.js'
import { WriteFailures } from './write-failures.js'

/** State shared by an adapter and every transaction adapter derived from it. */
interface Core {
  readonly connection: Connection
  readonly layouts: Map<string, Layout>
  readonly writeFailures: WriteFailures
}

/** A transaction nesting level: the root adapter (depth 0) or one `transaction(fn)` call. */
interface Scope extends TransactionScope {
  readonly depth: number
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
    const run = <R>(op: () => R, write: boolean) =>
      retryWhenBusy(() =>
        this.scope.lock.whenFree(() =>
          this.usable(() => {
            try {
              const result = op()
              // Outside a transaction the statement committed; inside one, only the COMMIT tells.
              if (write && this.scope.depth === 0) core.writeFailures.succeeded()
              return result
            } catch (err) {
              throw core.writeFailures.failed(err, write)
            }
          }),
        ),
      )
    this.session = {
      connection: core.connection,
      layout: (name) => this.layout(name),
      run: (op) => run(op, false),
      write: (op) => run(op, true),
    }
  }

  /** Creates and migrates the tables; on a read-only database, only checks that they are there. */
  init(specs: readonly CollectionSpec[]): Promise<void> {
    return this.session.run(() => {
      const layouts = specs.map((spec) => new Layout(spec))
      const { connection } = this.core
      if (connection.readonly) assertMigrated(connection, layouts)
      else connection.atomically(() => migrate(connection, layouts))
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
    return runTransaction(
      this.scope,
      async () => {
        const { db } = this.usable(() => this.core.connection)
        const { depth } = this.scope
        const savepoint = `didvault_${depth}`
        // BEGIN IMMEDIATE takes the write lock now: writers in other processes queue on
        // busy_timeout rather than deadlocking on a read-to-write upgrade.
        const { writeFailures } = this.core
        try {
          if (depth === 0) await retryWhenBusy(async () => db.exec('BEGIN IMMEDIATE'))
          else db.exec(`SAVEPOINT ${savepoint}`)
        } catch (err) {
          throw writeFailures.failed(err, true)
        }
        return {
          scope: childScope<Scope>(this.scope, { depth: depth + 1 }),
          commit: () => {
            if (depth > 0) return void db.exec(`RELEASE ${savepoint}`)
            try {
              db.exec('COMMIT')
            } catch (err) {
              throw writeFailures.failed(err, true)
            }
            writeFailures.succeeded()
          },
          rollback: () => {
            if (!db.inTransaction) return // SQLite already rolled back (e.g. after an I/O error)
            db.exec(depth === 0 ? 'ROLLBACK' : `ROLLBACK TO ${savepoint}; RELEASE ${savepoint}`)
          },
        }
      },
      (scope) => fn(new SqliteAdapter(this.core, scope)),
    )
  }

  /**
   * Every record inserted in one `BEGIN IMMEDIATE` transaction (a savepoint inside one) run synchronously: a unique
   * conflict rolls every insert back and is thrown naming its collection.
   */
  insertAll(writes: ReadonlyArray<CollectionWrite>): Promise<void> {
    const inserting = nonEmptyWrites(writes)
    if (inserting.length === 0) return Promise.resolve()
    return this.session.write(() => {
      const { connection } = this.core
      const batches = inserting.map(({ collection, records }) => {
        const layout = this.layout(collection)
        return { layout, rows: records.map((record) => [record.id, serialize(record)]) }
      })
      connection.atomically(() => {
        for (const { layout, rows } of batches) {
          const insert = connection.statement(`INSERT INTO ${layout.table} (id, data) VALUES (?, ?)`)
          try {
            for (const row of rows) insert.run(row)
          } catch (err) {
            throw mapConstraint(layout, err)
          }
        }
      })
    })
  }

  /**
   * `EXPLAIN QUERY PLAN` of every SELECT `find(where, options)` may run on `collection` (a page
   * read after a cursor may take two), each with the LIMIT of a whole page (find reads one row
   * more than `limit`).
   */
  explain(collection: string, where: Where, options: ExplainOptions = {}): Promise<QueryPlan> {
    return this.session.run(() => {
      if (options.count === true) {
        const { sql, params } = countQuery(this.layout(collection), where)
        return queryPlanOf([this.core.connection.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as PlanStep[]])
      }
      assertLimit(options.limit)
      const { queries } = findQueries(this.layout(collection), where, options)
      const limit = options.limit === undefined ? -1 : options.limit + 1
      const { db } = this.core.connection
      const stepsOf = (query: FindQuery) => db.prepare(`EXPLAIN QUERY PLAN ${withLimit(query, limit)}`).all(...query.params) as PlanStep[]
      return queryPlanOf(queries.map(stepsOf))
    })
  }

  /** The reason of the last write that failed for want of disk (or an I/O error), until a write succeeds. */
  writeFailure(): string | undefined {
    return this.core.writeFailures.last
  }

  close(): Promise<void> {
    return closeTransactionAdapter()
  }

  /** Runs `op` unless this scope's transaction has finished or the database is closed. */
  protected usable<R>(op: () => R): R {
    assertUsable(this.scope, !this.core.connection.db.open, 'SQLite')
    return op()
  }

  protected layout(name: string): Layout {
    const layout = this.core.layouts.get(name)
    if (layout === undefined) throw new Error(`unknown collection "${name}": declare it in init(specs)`)
    return layout
  }

  /** Runs `op` holding this scope's lock (no transaction in progress). */
  exclusive<R>(op: () => R): Promise<R> {
    return this.scope.lock.hold(async () => op())
  }
}

/**
 * {@link StorageAdapter} on SQLite (better-sqlite3): one table of JSON documents per collection,
 * declared fields as indexed generated columns, array fields in indexed side tables, WAL mode,
 * `BEGIN IMMEDIATE` transactions, safe for several processes sharing one database file.
 */
export class SqliteStorage implements StorageAdapter {
  readonly name = 'sqlite'
  readonly capabilities: StorageCapabilities
  // Private, so the declarations name them without their types: the public types need no better-sqlite3 types
  // (`@types/better-sqlite3`).
  private readonly connection: Connection
  private readonly adapter: SqliteAdapter

  constructor(options: SqliteStorageOptions) {
    this.connection = new Connection(options)
    const core = { connection: this.connection, layouts: new Map(), writeFailures: new WriteFailures() }
    this.adapter = new SqliteAdapter(core, { ...rootScope(), depth: 0 })
    this.capabilities = this.adapter.capabilities
  }

  init(specs: readonly CollectionSpec[]): Promise<void> {
    return this.adapter.init(specs)
  }

  collection<T extends StoredRecord = StoredRecord>(name: string): Collection<T> {
    return this.adapter.collection<T>(name)
  }

  transaction<R>(fn: (tx: StorageAdapter) => Promise<R>): Promise<R> {
    return this.adapter.transaction(fn)
  }

  insertAll(writes: ReadonlyArray<CollectionWrite>): Promise<void> {
    return this.adapter.insertAll(writes)
  }

  explain(collection: string, where: Where, options?: ExplainOptions): Promise<QueryPlan> {
    return this.adapter.explain(collection, where, options)
  }

  writeFailure(): string | undefined {
    return this.adapter.writeFailure()
  }

  /** Waits for a running transaction to finish, then closes the database. Idempotent. */
  close(): Promise<void> {
    return this.adapter.exclusive(() => this.connection.close())
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
