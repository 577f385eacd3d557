import pg from 'pg'
import type { Pool, PoolClient, QueryResultRow } from 'pg'
import type {
  Collection,
  CollectionSpec,
  FindOptions,
  QueryPlan,
  StorageAdapter,
  StorageCapabilities,
  StoredRecord,
  Where,
} from '../port.js'
import { assertLimit } from '../paging.js'
import {
  assertUsable,
  childScope,
  closeTransactionAdapter,
  rootScope,
  runTransaction,
  type TransactionScope,
} from '../transaction-scope.js'
import { PostgresCollection, type PostgresSession } from './collection.js'
import { connectionError, endpointOf, isRetryable } from './errors.js'
import { Layout } from './layout.js'
import { migrate } from './migrate.js'
import { quoteSchema } from './names.js'
import { type PlanNode, queryPlanOf } from './plan.js'
import { type FindQuery, findQueries, withLimit } from './query.js'
import { StatementNames } from './statements.js'

/** Options of {@link createPostgresStorage}: a `connectionString` (the adapter owns its pool) or a `pool` you own. */
export interface PostgresStorageOptions {
  /** `postgres://user:password@host:port/database`; the adapter creates and closes its pool. */
  connectionString?: string
  /** A `pg.Pool` you own: the adapter will not end it. */
  pool?: Pool
  /** The schema holding didvault's tables (created when missing). Default `public`. */
  schema?: string
  /** Connections of the pool the adapter creates (default 10). */
  poolSize?: number
  /** A first connection not made within this many milliseconds fails, naming host and database (default 10 000). */
  connectTimeoutMs?: number
  /** Attempts of a transaction failing on a serialization failure or deadlock before it is thrown (default 10). */
  transactionAttempts?: number
  /**
   * Send the adapter's statements as named (prepared) statements, parsed and planned once per
   * connection (default true). Turn off behind a pooler that cannot carry them between
   * server connections (PgBouncer before 1.21, or without `max_prepared_statements`).
   */
  preparedStatements?: boolean
  /** Told each time a transaction is run again after a serialization failure or deadlock (`didvault serve` counts them). */
  onRetry?: () => void
}

/** State shared by an adapter and every transaction adapter derived from it. */
interface Core {
  readonly pool: Pool
  readonly ownsPool: boolean
  readonly schema: string
  readonly layouts: Map<string, Layout>
  readonly attempts: number
  readonly statements: StatementNames
  readonly onRetry?: () => void
  closed: boolean
}

/** A transaction nesting level: the root adapter (no client: the pool) or one `transaction(fn)` call on one client. */
interface Scope extends TransactionScope {
  readonly depth: number
  readonly client?: PoolClient
}

/** The isolation of every transaction: what the service's read-check-write steps need across processes. */
const ISOLATION = 'SERIALIZABLE'
/** First key of the advisory lock of the retry lane (the second is the schema's hash; migrations use another first key). */
const RETRY_LANE_LOCK = 0x64767274 // 'dvrt'

/**
 * An adapter bound to one scope. The root runs each statement on a pooled connection, so
 * requests run concurrently; a transaction holds one client from `BEGIN ISOLATION LEVEL
 * SERIALIZABLE` to `COMMIT` (nested ones are savepoints on it, serialized by its scope's lock).
 */
class PostgresAdapter implements StorageAdapter {
  readonly name = 'postgres'
  readonly capabilities: StorageCapabilities = { transactions: true, uniqueIndexes: true, multiProcess: true }
  private readonly session: PostgresSession
  private readonly collections = new Map<string, PostgresCollection<StoredRecord>>()

  constructor(
    protected readonly core: Core,
    private readonly scope: Scope,
  ) {
    this.session = { layout: (name) => this.usable(() => this.layout(name)), query: (sql, params) => this.query(sql, params) }
  }

  async init(specs: readonly CollectionSpec[]): Promise<void> {
    this.usable()
    const layouts = specs.map((spec) => new Layout(spec, this.core.schema))
    const client = await this.core.pool.connect()
    try {
      await migrate(client, this.core.schema, layouts)
    } finally {
      client.release()
    }
    for (const layout of layouts) this.core.layouts.set(layout.name, layout)
  }

  collection<T extends StoredRecord = StoredRecord>(name: string): Collection<T> {
    let collection = this.collections.get(name)
    if (collection === undefined) {
      collection = new PostgresCollection(this.session, name)
      this.collections.set(name, collection)
    }
    return collection as unknown as Collection<T>
  }

  /**
   * A top-level transaction is `SERIALIZABLE` and is run again from the start (up to
   * `transactionAttempts`, with jittered backoff) when PostgreSQL reports a serialization
   * failure or a deadlock, so `fn` must have no effect outside storage. Nested calls are
   * savepoints: a throw inside one undoes only its writes.
   *
   * A transaction that failed once is run again in the *retry lane*: it takes a session advisory
   * lock of the schema before `BEGIN`, so retried transactions of every process run one at a
   * time, each with a snapshot taken after the one before it committed. A burst of transactions
   * on one hot row (a vault's HD index, a chain head) then drains one by one instead of failing
   * each other until their attempts run out; a retried transaction can only lose to a first attempt.
   */
  async transaction<R>(fn: (tx: StorageAdapter) => Promise<R>): Promise<R> {
    if (this.scope.client !== undefined) return this.runOnce(fn, false)
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.runOnce(fn, attempt > 1)
      } catch (err) {
        if (!isRetryable(err) || attempt >= this.core.attempts) throw err
        this.core.onRetry?.()
        await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(200, 5 * 2 ** attempt)))
      }
    }
  }

  private runOnce<R>(fn: (tx: StorageAdapter) => Promise<R>, retryLane: boolean): Promise<R> {
    // Top-level transactions each take a client of their own and run concurrently; nested ones share their parent's.
    const parent = this.scope.client === undefined ? rootScope() : this.scope
    return runTransaction(
      parent,
      async () => {
        this.usable()
        const { depth } = this.scope
        const client = this.scope.client ?? (await this.core.pool.connect())
        const savepoint = `didvault_${depth}`
        const lane = retryLane && depth === 0
        try {
          if (lane) await client.query('SELECT pg_advisory_lock($1, hashtext($2))', [RETRY_LANE_LOCK, this.core.schema])
          await client.query(depth === 0 ? `BEGIN ISOLATION LEVEL ${ISOLATION}` : `SAVEPOINT ${savepoint}`)
        } catch (err) {
          // A client whose lock or BEGIN failed may hold the lock: it leaves the pool (closing its session frees the lock).
          if (depth === 0) client.release(lane ? (err as Error) : undefined)
          throw err
        }
        // A failed COMMIT (a serialization failure is reported there) is followed by the scope's
        // rollback: by then the top-level client is released, and the transaction is over.
        let ended = false
        const end = async (sql: string) => {
          if (ended) return
          ended = depth === 0
          try {
            await client.query(sql)
            if (lane) await client.query('SELECT pg_advisory_unlock($1, hashtext($2))', [RETRY_LANE_LOCK, this.core.schema])
            if (depth === 0) client.release()
          } catch (err) {
            // A client whose COMMIT or ROLLBACK failed is not returned to the pool in an unknown state.
            if (depth === 0) client.release(err as Error)
            throw err
          }
        }
        return {
          scope: childScope<Scope>(this.scope, { depth: depth + 1, client }),
          commit: () => end(depth === 0 ? 'COMMIT' : `RELEASE SAVEPOINT ${savepoint}`),
          rollback: () => end(depth === 0 ? 'ROLLBACK' : `ROLLBACK TO SAVEPOINT ${savepoint}; RELEASE SAVEPOINT ${savepoint}`),
        }
      },
      (scope) => fn(new PostgresAdapter(this.core, scope)),
    )
  }

  /**
   * `EXPLAIN (FORMAT JSON)` of every SELECT `find(where, options)` may run, with its parameters
   * and the LIMIT of a whole page, in a transaction rolled back after `SET LOCAL enable_seqscan =
   * off`: a never-analysed or tiny table is costed as a few pages, where a sequential scan is
   * rightly cheaper; with it disabled, a sequential scan remains only where no index can serve
   * the query, which is what the plan is asked for. For the same reason a tiny table may be read
   * by walking the whole ordering index (an `Index Scan` without `Index Cond`): the plans are
   * then asked again with plain index scans disabled too, and `usesIndex` tells whether bounded
   * (bitmap) index scans serve the filter; `plan` shows both.
   */
  async explain(collection: string, where: Where, options: FindOptions = {}): Promise<QueryPlan> {
    this.usable()
    assertLimit(options.limit)
    const { queries } = findQueries(this.layout(collection), where, options)
    const limit = options.limit === undefined ? undefined : options.limit + 1
    const planned = await this.plans(
      queries.map((query) => ({ sql: `EXPLAIN (FORMAT JSON) ${withLimit(query, limit)}`, params: query.params })),
    )
    const first = queryPlanOf(planned.walking)
    if (first.usesIndex) return first
    const bounded = queryPlanOf(planned.bounded)
    return { usesIndex: bounded.usesIndex, plan: `${first.plan}\n\nwith index walks disabled:\n${bounded.plan}` }
  }

  /** The plans of `explains`, with sequential scans disabled, then with plain index scans disabled as well. */
  private async plans(explains: FindQuery[]): Promise<{ walking: PlanNode[]; bounded: PlanNode[] }> {
    const client = this.scope.client ?? (await this.core.pool.connect())
    const inTransaction = this.scope.client !== undefined
    const planOf = async (explain: FindQuery) => {
      const { rows } = await client.query(explain.sql, explain.params)
      return (rows[0] as { 'QUERY PLAN': Array<{ Plan: PlanNode }> })['QUERY PLAN'][0].Plan
    }
    try {
      await client.query(inTransaction ? 'SAVEPOINT didvault_explain' : 'BEGIN')
      await client.query('SET LOCAL enable_seqscan = off')
      const walking: PlanNode[] = []
      for (const explain of explains) walking.push(await planOf(explain))
      await client.query('SET LOCAL enable_indexscan = off')
      await client.query('SET LOCAL enable_indexonlyscan = off')
      const bounded: PlanNode[] = []
      for (const explain of explains) bounded.push(await planOf(explain))
      return { walking, bounded }
    } finally {
      await client.query(inTransaction ? 'ROLLBACK TO SAVEPOINT didvault_explain' : 'ROLLBACK')
      if (!inTransaction) client.release()
    }
  }

  close(): Promise<void> {
    return closeTransactionAdapter()
  }

  /** Runs one statement on this scope's connection, once no nested transaction holds it. */
  private async query<R extends QueryResultRow>(sql: string, params?: unknown[]): Promise<{ rows: R[]; rowCount: number | null }> {
    const { client } = this.scope
    const statement = this.core.statements.statement(sql, params)
    if (client === undefined) return this.usable(() => this.core.pool.query<R>(statement))
    return await this.scope.lock.whenFree(() => this.usable(() => client.query<R>(statement)))
  }

  /** Runs `op` unless this scope's transaction has finished or the storage is closed. */
  protected usable<R>(op: () => R = () => undefined as R): R {
    assertUsable(this.scope, this.core.closed, 'PostgreSQL')
    return op()
  }

  protected layout(name: string): Layout {
    const layout = this.core.layouts.get(name)
    if (layout === undefined) throw new Error(`unknown collection "${name}": declare it in init(specs)`)
    return layout
  }
}

/**
 * {@link StorageAdapter} on PostgreSQL (node-postgres): one table of `jsonb` documents per
 * collection with declared fields as indexed STORED generated key columns, `SERIALIZABLE`
 * transactions retried on serialization failures, migrations under an advisory lock; safe for
 * several processes and hosts sharing one database.
 */
export class PostgresStorage extends PostgresAdapter {
  constructor(pool: Pool, ownsPool: boolean, schema: string, attempts: number, prepared = true, onRetry?: () => void) {
    const statements = new StatementNames(prepared)
    super({ pool, ownsPool, schema, layouts: new Map(), attempts, statements, onRetry, closed: false }, { ...rootScope(), depth: 0 })
  }

  /** Closes the pool the adapter created (a pool passed in is left to its owner). Idempotent. */
  override async close(): Promise<void> {
    if (this.core.closed) return
    this.core.closed = true
    if (this.core.ownsPool) await this.core.pool.end()
  }
}

/**
 * Connects to PostgreSQL (one round trip, so a wrong address fails here, naming host and
 * database, never the password). Call `init(specs)` before use.
 *
 * @example
 * const storage = await createPostgresStorage({ connectionString: process.env.DATABASE_URL })
 */
export async function createPostgresStorage(options: PostgresStorageOptions): Promise<PostgresStorage> {
  const { connectionString, schema = 'public', connectTimeoutMs = 10_000 } = options
  if ((connectionString === undefined) === (options.pool === undefined)) {
    throw new TypeError('createPostgresStorage needs a connectionString or a pool (exactly one)')
  }
  const pool = options.pool ?? new pg.Pool({ connectionString, max: options.poolSize ?? 10, connectionTimeoutMillis: connectTimeoutMs })
  // An idle pooled connection that fails (a server restart) leaves the pool, which reconnects on the next query:
  // without a listener the pool's 'error' event would end the process.
  if (options.pool === undefined) pool.on('error', () => undefined)
  const attempts = options.transactionAttempts ?? 10
  const owns = options.pool === undefined
  const storage = new PostgresStorage(pool, owns, quoteSchema(schema), attempts, options.preparedStatements, options.onRetry)
  try {
    await pool.query('SELECT 1')
  } catch (err) {
    await storage.close()
    const fallback = options.pool?.options ?? {}
    const password = connectionString === undefined ? undefined : decodeURIComponent(safeUrl(connectionString)?.password ?? '')
    throw connectionError(endpointOf(connectionString, fallback), err, password)
  }
  return storage
}

function safeUrl(connectionString: string): URL | undefined {
  try {
    return new URL(connectionString)
  } catch {
    return undefined
  }
}
