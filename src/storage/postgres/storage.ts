import pg from 'pg'
import type { Pool, QueryResultRow } from 'pg'
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
import { StorageUnavailableError } from '../port.js'
import { assertLimit } from '../paging.js'
import {
  assertUsable,
  childScope,
  closeTransactionAdapter,
  rootScope,
  runTransaction,
  type TransactionScope,
} from '../transaction-scope.js'
import { nonEmptyWrites } from '../insert-all.js'
import { countQuery, PostgresCollection, serialize, type PostgresSession } from './collection.js'
import { connectionError, endpointOf, isConnectionLoss, isRetryable, mapConstraintOf, neverSent, unavailable } from './errors.js'
import { HeldConnection } from './held-connection.js'
import { Layout } from './layout.js'
import { migrate, RETRY_LANE_TABLE } from './migrate.js'
import { quoteSchema } from './names.js'
import { type PlanNode, queryPlanOf } from './plan.js'
import { type FindQuery, findQueries, withLimit } from './query.js'
import { StatementNames } from './statements.js'
import { ChangeListener, type ChangeListenerTiming } from './change-listener.js'
import { ReadCache } from './read-cache.js'

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
  /**
   * Keep the reads of the collections declared `cached` (wallets, keys, credential configurations) in memory, dropped on
   * every write of any process as PostgreSQL notifies it (default true; docs/storage.md *Read cache*). It answers only
   * while its listening connection is known to hear those notifications, so behind PgBouncer in transaction mode it
   * stays off by itself; `false` never opens that connection. An object sets the listener's checks.
   */
  readCache?: boolean | ChangeListenerTiming
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
  /** The read cache (none when `readCache: false`) and, once a cached collection is declared, its change listener. */
  readonly cache?: ReadCache
  listener?: ChangeListener
  /** Starts the change listener. */
  readonly listen: () => ChangeListener
  closed: boolean
}

/** A transaction nesting level: the root adapter (no connection: the pool) or one `transaction(fn)` call on one connection. */
interface Scope extends TransactionScope {
  readonly depth: number
  readonly held?: HeldConnection
  /** In a transaction: the cached collections it wrote, told to the read cache again once it has ended. */
  readonly touched?: Set<string>
}

/** The isolation of every transaction: what the service's read-check-write steps need across processes. */
const ISOLATION = 'SERIALIZABLE'

/**
 * Whether a transaction that failed with `err` ran on a connection lost before its COMMIT was
 * sent: PostgreSQL rolled it back, so it may run again (lost during the COMMIT, the outcome is
 * unknown and it may not).
 */
const lostBeforeCommit = (err: unknown) => err instanceof StorageUnavailableError && !err.outcomeUnknown
/** Every top-level transaction's first statement. */
const BEGIN = `BEGIN ISOLATION LEVEL ${ISOLATION}`

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
    this.session = {
      layout: (name) => this.usable(() => this.layout(name)),
      query: (sql, params) => this.query(sql, params),
      // Only outside a transaction: a transaction reads its own snapshot.
      read: (name, key, load) => (this.scope.held === undefined && this.core.cache ? this.core.cache.read(name, key, load) : load()),
      writing: (name, write) => this.writing([name], write),
    }
  }

  async init(specs: readonly CollectionSpec[]): Promise<void> {
    this.usable()
    const layouts = specs.map((spec) => new Layout(spec, this.core.schema))
    const held = await HeldConnection.take(this.core.pool)
    try {
      await migrate(held, this.core.schema, layouts)
    } catch (err) {
      held.release(err)
      throw err
    }
    held.release()
    for (const layout of layouts) this.core.layouts.set(layout.name, layout)
    const cached = specs.filter((spec) => spec.cached === true).map((spec) => spec.name)
    if (this.core.cache === undefined || cached.length === 0) return
    this.core.cache.declare(cached)
    this.core.listener ??= this.core.listen()
  }

  /**
   * Runs `write`, a write to `collections`, telling the read cache of the cached ones before it (reads running now
   * keep nothing) and once it is committed: when the statement is done outside a transaction, when the transaction
   * has ended inside one. Other processes hear of it through PostgreSQL (`change-listener.ts`).
   */
  private async writing<R>(collections: readonly string[], write: () => Promise<R>): Promise<R> {
    const { cache } = this.core
    const cached = cache === undefined ? [] : collections.filter((name) => cache.caches(name))
    if (cached.length === 0) return write()
    const told = () => cached.forEach((name) => cache!.changed(name))
    told()
    const { touched } = this.scope
    if (touched !== undefined) {
      cached.forEach((name) => touched.add(name))
      return write()
    }
    try {
      return await write()
    } finally {
      told()
    }
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
   * failure or a deadlock, or when its connection was lost (or could not be had) before its
   * COMMIT was sent — PostgreSQL rolled it back — so `fn` must have no effect outside storage.
   * A connection lost during the COMMIT leaves the outcome unknown: that transaction is not run
   * again and fails with a {@link StorageUnavailableError} whose `outcomeUnknown` is true.
   * Nested calls are savepoints: a throw inside one undoes only its writes.
   *
   * A transaction that failed once is run again in the *retry lane*: its first statement after
   * `BEGIN` is `LOCK TABLE <schema>._didvault_retry_lane IN EXCLUSIVE MODE`, so retried
   * transactions of every process run one at a time. LOCK TABLE takes no snapshot, so each gets
   * a snapshot taken after the one before it committed; the lock is the transaction's own and
   * ends with it (no session state, so PgBouncer in transaction mode carries it). A burst of
   * transactions on one hot row (a vault's HD index, a chain head) then drains one by one
   * instead of failing each other until their attempts run out; a retried transaction can only
   * lose to a first attempt.
   */
  async transaction<R>(fn: (tx: StorageAdapter) => Promise<R>): Promise<R> {
    if (this.scope.held !== undefined) return this.runOnce(fn, false)
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.runOnce(fn, attempt > 1)
      } catch (err) {
        if (!(isRetryable(err) || lostBeforeCommit(err)) || attempt >= this.core.attempts) throw err
        if (isRetryable(err)) this.core.onRetry?.()
        await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(200, 5 * 2 ** attempt)))
      }
    }
  }

  private runOnce<R>(fn: (tx: StorageAdapter) => Promise<R>, retryLane: boolean): Promise<R> {
    // Top-level transactions each take a connection of their own and run concurrently; nested ones share their parent's.
    const parent = this.scope.held === undefined ? rootScope() : this.scope
    return runTransaction(
      parent,
      async () => {
        this.usable()
        const { depth } = this.scope
        const held = this.scope.held ?? (await HeldConnection.take(this.core.pool))
        const savepoint = `didvault_${depth}`
        // The lane's lock is the first statement after BEGIN: it takes no snapshot, so the
        // transaction's snapshot is taken after the lock is granted (docs/storage.md).
        const begin = retryLane && depth === 0 ? `${BEGIN}; LOCK TABLE ${this.core.schema}.${RETRY_LANE_TABLE} IN EXCLUSIVE MODE` : BEGIN
        try {
          await held.query(depth === 0 ? begin : `SAVEPOINT ${savepoint}`)
        } catch (err) {
          // A connection whose BEGIN (or lock) failed may be inside a transaction: it leaves the pool.
          if (depth === 0) held.release(err)
          throw err
        }
        const scope = childScope<Scope>(this.scope, { depth: depth + 1, held, touched: this.scope.touched ?? new Set() })
        if (depth > 0) {
          return {
            scope,
            commit: async () => void (await held.query(`RELEASE SAVEPOINT ${savepoint}`)),
            // On a lost connection there is nothing left to undo: the whole transaction fails.
            rollback: async () =>
              void (held.lost || (await held.query(`ROLLBACK TO SAVEPOINT ${savepoint}; RELEASE SAVEPOINT ${savepoint}`))),
          }
        }
        // A failed COMMIT (a serialization failure is reported there) is followed by the scope's
        // rollback: by then the connection is released, and the transaction is over.
        let ended = false
        const end = (how: (held: HeldConnection) => Promise<void>) => async () => {
          if (ended) return
          ended = true
          try {
            await how(held)
          } finally {
            for (const name of scope.touched!) this.core.cache?.changed(name)
          }
        }
        return { scope, commit: end(commitAndRelease), rollback: end(rollbackAndRelease) }
      },
      (scope) => fn(new PostgresAdapter(this.core, scope)),
    )
  }

  /**
   * ONE statement whatever the number of collections: `WITH w0 AS (INSERT … SELECT … FROM jsonb_array_elements($1)),
   * … INSERT …` — each collection's records bound as one `jsonb` array. Outside a transaction it commits by itself (no
   * BEGIN/COMMIT), is run again after a deadlock (it was rolled back), and a connection lost once it may have been sent
   * fails with `outcomeUnknown`; inside one it is a statement of that transaction. A unique violation is the
   * {@link UniqueConstraintError} of the collection whose table reported it, and the statement wrote nothing.
   */
  async insertAll(writes: ReadonlyArray<CollectionWrite>): Promise<void> {
    const inserting = nonEmptyWrites(writes)
    if (inserting.length === 0) return
    const layouts = inserting.map(({ collection }) => this.usable(() => this.layout(collection)))
    const params = inserting.map(({ records }) => `[${records.map(serialize).join(',')}]`)
    const insert = (index: number) =>
      `INSERT INTO ${layouts[index].table} (id, data) SELECT r ->> 'id', r FROM jsonb_array_elements($${index + 1}::jsonb) AS r`
    const last = layouts.length - 1
    const ctes = layouts.slice(0, last).map((_, index) => `w${index} AS (${insert(index)})`)
    const sql = `${ctes.length > 0 ? `WITH ${ctes.join(', ')} ` : ''}${insert(last)}`
    await this.writing(
      inserting.map(({ collection }) => collection),
      async () => {
        for (let attempt = 1; ; attempt++) {
          try {
            await this.query(sql, params)
            return
          } catch (err) {
            const mapped = mapConstraintOf(layouts, err)
            if (this.scope.held !== undefined) throw mapped
            if (isRetryable(mapped) && attempt < this.core.attempts) continue
            if (mapped instanceof StorageUnavailableError && !neverSent(mapped.cause))
              throw unavailable(mapped.cause, { outcomeUnknown: true })
            throw mapped
          }
        }
      },
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
  async explain(collection: string, where: Where, options: ExplainOptions = {}): Promise<QueryPlan> {
    this.usable()
    let explains: FindQuery[]
    if (options.count === true) {
      const { sql, params } = countQuery(this.layout(collection), where)
      explains = [{ sql: `EXPLAIN (FORMAT JSON) ${sql}`, params }]
    } else {
      assertLimit(options.limit)
      const { queries } = findQueries(this.layout(collection), where, options)
      const limit = options.limit === undefined ? undefined : options.limit + 1
      explains = queries.map((query) => ({ sql: `EXPLAIN (FORMAT JSON) ${withLimit(query, limit)}`, params: query.params }))
    }
    const planned = await this.plans(explains)
    const first = queryPlanOf(planned.walking)
    if (first.usesIndex) return first
    const bounded = queryPlanOf(planned.bounded)
    return { usesIndex: bounded.usesIndex, plan: `${first.plan}\n\nwith index walks disabled:\n${bounded.plan}` }
  }

  /** The plans of `explains`, with sequential scans disabled, then with plain index scans disabled as well. */
  private async plans(explains: FindQuery[]): Promise<{ walking: PlanNode[]; bounded: PlanNode[] }> {
    const inTransaction = this.scope.held !== undefined
    const held = this.scope.held ?? (await HeldConnection.take(this.core.pool))
    const planOf = async (explain: FindQuery) => {
      const { rows } = await held.query(explain.sql, explain.params)
      return (rows[0] as { 'QUERY PLAN': Array<{ Plan: PlanNode }> })['QUERY PLAN'][0].Plan
    }
    try {
      await held.query(inTransaction ? 'SAVEPOINT didvault_explain' : 'BEGIN')
      await held.query('SET LOCAL enable_seqscan = off')
      const walking: PlanNode[] = []
      for (const explain of explains) walking.push(await planOf(explain))
      await held.query('SET LOCAL enable_indexscan = off')
      await held.query('SET LOCAL enable_indexonlyscan = off')
      const bounded: PlanNode[] = []
      for (const explain of explains) bounded.push(await planOf(explain))
      return { walking, bounded }
    } finally {
      if (inTransaction) await held.query('ROLLBACK TO SAVEPOINT didvault_explain')
      else await rollbackAndRelease(held)
    }
  }

  close(): Promise<void> {
    return closeTransactionAdapter()
  }

  /**
   * Runs one statement on this scope's connection, once no nested transaction holds it, or on a
   * pooled connection; a connection lost or refused is a {@link StorageUnavailableError}.
   */
  private async query<R extends QueryResultRow>(sql: string, params?: unknown[]): Promise<{ rows: R[]; rowCount: number | null }> {
    const { held } = this.scope
    const statement = this.core.statements.statement(sql, params)
    if (held !== undefined) return await this.scope.lock.whenFree(() => this.usable(() => held.query<R>(statement)))
    try {
      return await this.usable(() => this.core.pool.query<R>(statement))
    } catch (err) {
      throw isConnectionLoss(err) ? unavailable(err) : err
    }
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
 * COMMITs a top-level transaction and releases its connection. A connection lost before the
 * COMMIT was sent fails as rerunnable; one lost while the COMMIT was in flight fails with the
 * outcome unknown. A connection whose COMMIT failed is not returned to the pool in an unknown state.
 */
async function commitAndRelease(held: HeldConnection): Promise<void> {
  if (held.lost) {
    const lost = held.lostError()
    held.release()
    throw lost
  }
  try {
    await held.query('COMMIT')
  } catch (err) {
    held.release(err)
    throw err instanceof StorageUnavailableError ? unavailable(err.cause, { outcomeUnknown: true }) : err
  }
  held.release()
}

/** ROLLBACKs a top-level transaction and releases its connection; a lost connection's transaction was rolled back by the server. */
async function rollbackAndRelease(held: HeldConnection): Promise<void> {
  if (held.lost) return held.release()
  try {
    await held.query('ROLLBACK')
  } catch (err) {
    held.release(err)
    throw err
  }
  held.release()
}

/**
 * {@link StorageAdapter} on PostgreSQL (node-postgres): one table of `jsonb` documents per
 * collection with declared fields as indexed STORED generated key columns, `SERIALIZABLE`
 * transactions retried on serialization failures, migrations under an advisory lock; safe for
 * several processes and hosts sharing one database.
 */
export class PostgresStorage extends PostgresAdapter {
  constructor(
    pool: Pool,
    ownsPool: boolean,
    schema: string,
    attempts: number,
    prepared = true,
    onRetry?: () => void,
    readCache: boolean | ChangeListenerTiming = true,
  ) {
    const statements = new StatementNames(prepared)
    const cache = readCache === false ? undefined : new ReadCache()
    const timing = typeof readCache === 'object' ? readCache : {}
    const core: Core = {
      pool,
      ownsPool,
      schema,
      layouts: new Map(),
      attempts,
      statements,
      onRetry,
      cache,
      closed: false,
      listen: () => {
        const listener = new ChangeListener(
          () => new pg.Client({ ...pool.options, keepAlive: true }),
          pool,
          unquote(schema),
          cache!,
          timing,
        )
        listener.start()
        return listener
      },
    }
    super(core, { ...rootScope(), depth: 0 })
  }

  /**
   * Whether reads of the cached collections are answered from memory now: the change listener has heard its last ping
   * (false with `readCache: false`, before the first ping is back, and while the listener reconnects).
   */
  get readCacheLive(): boolean {
    return this.core.cache?.live ?? false
  }

  /** Reads of the cached collections answered from memory (`hits`) and from the database (`misses`) so far. */
  get readCacheStats(): { hits: number; misses: number } {
    return { ...(this.core.cache?.stats ?? { hits: 0, misses: 0 }) }
  }

  /** Closes the pool the adapter created (a pool passed in is left to its owner), and the change listener. Idempotent. */
  override async close(): Promise<void> {
    if (this.core.closed) return
    this.core.closed = true
    await this.core.listener?.close()
    if (this.core.ownsPool) await this.core.pool.end()
  }
}

/** The name a quoted identifier stands for. */
function unquote(quoted: string): string {
  return quoted.slice(1, -1).replaceAll('""', '"')
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
  const storage = new PostgresStorage(
    pool,
    owns,
    quoteSchema(schema),
    attempts,
    options.preparedStatements,
    options.onRetry,
    options.readCache,
  )
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
