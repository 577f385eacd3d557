import { type ClientSession, type Collection as NativeCollection, type Db, MongoClient, type MongoClientOptions } from 'mongodb'
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
import { MongoCollection, type MongoCollectionState, type MongoScope } from './collection.js'
import { mapDuplicateKey } from './errors.js'
import { UndoJournal } from './journal.js'
import { type PlanStage, queryPlanOf } from './plan.js'
import { buildFilter, buildFind, MongoSchema, planIndexes } from './query.js'

/**
 * How `transaction(fn)` is made atomic:
 * - `server`: a MongoDB transaction (`session.withTransaction`); needs a replica set or a
 *   sharded cluster. `fn` may run more than once: the driver retries it on transient errors
 *   (e.g. a write conflict with another process), so it must not have effects outside storage.
 * - `fallback`: for a standalone server. Transactions on this adapter run one at a time, every
 *   other operation on it waits for the running one, and each write is journaled with its
 *   compensating write; a throw applies them newest first. Atomic and isolated within this
 *   process only (see docs/storage.md for what it cannot guarantee across processes).
 * - `auto` (default): `server` when the `hello` reply shows a replica set (`setName`) or a
 *   `mongos` (`msg: 'isdbgrid'`), else `fallback`.
 */
export type MongoTransactionMode = 'auto' | 'server' | 'fallback'

/** Options of {@link createMongoStorage}: a connection string, or a connected client of yours. */
export interface MongoStorageOptions {
  /** `mongodb://host[:port]/db` (the path names the database). */
  url?: string
  /** A client you manage (the adapter does not close it); takes precedence over `url`. */
  client?: MongoClient
  /** Database name; default: the path of `url`, else `didvault`. */
  dbName?: string
  transactions?: MongoTransactionMode
  /**
   * How long connecting to `url` may take (default 10 000 ms): past it, {@link createMongoStorage}
   * fails with an error naming the host (never the password). Sets the driver's
   * `serverSelectionTimeoutMS` and `connectTimeoutMS` unless `clientOptions` sets them.
   */
  connectTimeoutMs?: number
  /** Passed to `new MongoClient(url, options)`. */
  clientOptions?: MongoClientOptions
}

const DEFAULT_CONNECT_TIMEOUT_MS = 10_000

/** State shared by an adapter and every transaction adapter derived from it. */
interface Core {
  readonly client: MongoClient
  readonly db: Db
  readonly ownsClient: boolean
  readonly mode: 'server' | 'fallback'
  readonly states: Map<string, MongoCollectionState>
  closed: boolean
}

/** A transaction nesting level: the root adapter or one `transaction(fn)` call. */
interface Scope extends TransactionScope {
  readonly session?: ClientSession
  readonly journal?: UndoJournal
}

/** NamespaceExists: `createCollection` of a collection that exists. */
const NAMESPACE_EXISTS = 48

/** Names didvault gives its indexes (see `planIndexes`): only these are ever dropped. */
const DIDVAULT_INDEX = /^(f|ux|ix)_/

/**
 * Drops the indexes didvault made on a collection that the specs no longer plan (a unique
 * constraint a release relaxed). Indexes named otherwise (`_id_`, an operator's own) are kept.
 */
async function dropRetiredIndexes(native: NativeCollection, planned: readonly { name: string }[]): Promise<void> {
  const keep = new Set(planned.map((index) => index.name))
  const existing = (await native.listIndexes().toArray()) as Array<{ name: string }>
  for (const { name } of existing) {
    if (DIDVAULT_INDEX.test(name) && !keep.has(name)) await native.dropIndex(name)
  }
}

class MongoAdapter implements StorageAdapter {
  readonly name = 'mongodb'
  readonly capabilities: StorageCapabilities
  private readonly mongoScope: MongoScope
  private readonly collections = new Map<string, MongoCollection<StoredRecord>>()

  constructor(
    protected readonly core: Core,
    private readonly scope: Scope,
  ) {
    // The fallback's transactions are atomic within one process only, so several processes may share the database only in `server` mode.
    this.capabilities = { transactions: true, uniqueIndexes: true, multiProcess: core.mode === 'server' }
    this.mongoScope = {
      state: (name) => this.state(name),
      run: async (op) => this.scope.lock.whenFree(() => this.usable(op)),
      session: scope.session,
      journal: scope.journal,
    }
  }

  async init(specs: readonly CollectionSpec[]): Promise<void> {
    await this.mongoScope.run(async () => {
      const planned = specs.map((spec) => {
        const schema = new MongoSchema(spec)
        return { spec, schema, indexes: planIndexes(schema) }
      })
      for (const { spec, schema, indexes } of planned) {
        await this.core.db.createCollection(spec.name).catch((err: unknown) => {
          if ((err as { code?: unknown }).code !== NAMESPACE_EXISTS) throw err
        })
        const native = this.core.db.collection(spec.name, { ignoreUndefined: true })
        await dropRetiredIndexes(native, indexes)
        try {
          await native.createIndexes(
            indexes.map(({ name, key, unique, partialFilterExpression }) => ({
              name,
              key,
              unique,
              ...(partialFilterExpression && { partialFilterExpression }),
            })),
          )
        } catch (err) {
          throw mapDuplicateKey(spec.name, indexes, err)
        }
        this.core.states.set(spec.name, { native, schema, indexes })
      }
    })
  }

  collection<T extends StoredRecord = StoredRecord>(name: string): Collection<T> {
    let collection = this.collections.get(name)
    if (collection === undefined) {
      collection = new MongoCollection(this.mongoScope, name)
      this.collections.set(name, collection)
    }
    return collection as unknown as Collection<T>
  }

  transaction<R>(fn: (tx: StorageAdapter) => Promise<R>): Promise<R> {
    return this.core.mode === 'server' ? this.serverTransaction(fn) : this.fallbackTransaction(fn)
  }

  /** A MongoDB transaction; a nested call joins the running one (MongoDB has no savepoints). */
  private async serverTransaction<R>(fn: (tx: StorageAdapter) => Promise<R>): Promise<R> {
    if (this.scope.session !== undefined) return this.usable(() => fn(this))
    this.usable(() => undefined)
    const session = this.core.client.startSession()
    try {
      return await session.withTransaction(async () => {
        const txScope: Scope = { ...rootScope(), session }
        try {
          return await fn(new MongoAdapter(this.core, txScope))
        } finally {
          txScope.finished = true
        }
      })
    } finally {
      await session.endSession()
    }
  }

  /** Serialized on this adapter, journaled, compensated on a throw (nested calls undo only their own writes). */
  private fallbackTransaction<R>(fn: (tx: StorageAdapter) => Promise<R>): Promise<R> {
    return runTransaction(
      this.scope,
      () => {
        this.usable(() => undefined)
        const journal = this.scope.journal ?? new UndoJournal()
        const mark = journal.mark()
        return {
          scope: childScope<Scope>(this.scope, { journal }),
          // Committed writes stay journaled: an enclosing transaction that rolls back undoes them too.
          commit: () => undefined,
          rollback: () => journal.rollback(mark),
        }
      },
      (scope) => fn(new MongoAdapter(this.core, scope)),
    )
  }

  /** In one transaction of this adapter's mode (`server` or `fallback`): a duplicate key anywhere undoes every insert. */
  insertAll(writes: ReadonlyArray<CollectionWrite>): Promise<void> {
    return insertAllInTransaction(this, writes)
  }

  /**
   * MongoDB's `explain` (verbosity `queryPlanner`) of the query `find(where, options)` sends on
   * `collection`. Sent outside any transaction's session: MongoDB refuses `explain` inside one.
   */
  explain(collection: string, where: Where, options?: ExplainOptions): Promise<QueryPlan> {
    return this.mongoScope.run(async () => {
      const { native, schema } = this.state(collection)
      // `countDocuments` matches with the filter alone (no sort or limit): explained as that find.
      const plan =
        options?.count === true
          ? { filter: buildFilter(schema, where), sort: undefined, limit: undefined }
          : buildFind(schema, where, options)
      const cursor = native.find(plan.filter, { sort: plan.sort })
      if (plan.limit !== undefined) cursor.limit(plan.limit)
      const { queryPlanner } = (await cursor.explain('queryPlanner')) as { queryPlanner: { winningPlan: PlanStage } }
      return queryPlanOf(queryPlanner.winningPlan)
    })
  }

  close(): Promise<void> {
    return closeTransactionAdapter()
  }

  /** Runs `op` unless this scope's transaction has finished or the storage is closed. */
  protected usable<R>(op: () => R): R {
    assertUsable(this.scope, this.core.closed, 'MongoDB')
    return op()
  }

  protected state(name: string): MongoCollectionState {
    const state = this.core.states.get(name)
    if (state === undefined) throw new Error(`unknown collection "${name}": declare it in init(specs)`)
    return state
  }

  /** Runs `op` holding this scope's lock (no fallback transaction in progress). */
  protected exclusive<R>(op: () => Promise<R>): Promise<R> {
    return this.scope.lock.hold(op)
  }
}

/**
 * {@link StorageAdapter} on MongoDB (the official `mongodb` driver): one collection per spec,
 * `_id` = record id, declared fields indexed, unique indexes enforced by the server, `increment`
 * as one `findOneAndUpdate` with `$inc`, transactions per {@link MongoTransactionMode}.
 */
export class MongoStorage extends MongoAdapter {
  /** Which transaction mode `auto` resolved to. */
  readonly transactionMode: 'server' | 'fallback'

  constructor(core: Core) {
    super(core, rootScope())
    this.transactionMode = core.mode
  }

  /** Waits for a running fallback transaction, then closes the client (when the adapter opened it). Idempotent. */
  override close(): Promise<void> {
    return this.exclusive(async () => {
      if (this.core.closed) return
      this.core.closed = true
      if (this.core.ownsClient) await this.core.client.close()
    })
  }
}

/** The database name in a connection string's path, if any. */
function databaseOf(url: string | undefined): string | undefined {
  if (url === undefined) return undefined
  const match = /^mongodb(?:\+srv)?:\/\/[^/]+\/([^?]+)/.exec(url)
  return match ? decodeURIComponent(match[1]) : undefined
}

/** Whether the deployment runs transactions: a replica set member or a mongos. */
async function supportsTransactions(db: Db): Promise<boolean> {
  const hello = await db.admin().command({ hello: 1 })
  return typeof hello.setName === 'string' || hello.msg === 'isdbgrid'
}

/**
 * Connects to MongoDB and returns the adapter (call `init(specs)` before use).
 *
 * @example
 * const storage = await createMongoStorage({ url: 'mongodb://127.0.0.1:27017/didvault' })
 */
export async function createMongoStorage(options: MongoStorageOptions): Promise<MongoStorage> {
  if (options.client === undefined && options.url === undefined) throw new Error('createMongoStorage needs a url or a client')
  const ownsClient = options.client === undefined
  const client = options.client ?? (await connect(options.url!, options))
  try {
    const db = client.db(options.dbName ?? databaseOf(options.url) ?? 'didvault')
    const wanted = options.transactions ?? 'auto'
    if (wanted !== 'auto' && wanted !== 'server' && wanted !== 'fallback')
      throw new Error(`invalid transactions mode ${JSON.stringify(wanted)}`)
    const mode = wanted === 'auto' ? ((await supportsTransactions(db)) ? 'server' : 'fallback') : wanted
    return new MongoStorage({ client, db, ownsClient, mode, states: new Map(), closed: false })
  } catch (err) {
    if (ownsClient) await client.close()
    throw err
  }
}

/**
 * A client connected to `url` within `connectTimeoutMs`. Failing, the error names the hosts
 * (as the driver parsed them) and never the URL's credentials.
 */
async function connect(url: string, options: MongoStorageOptions): Promise<MongoClient> {
  const timeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1)
    throw new RangeError(`connectTimeoutMs must be a positive integer, got ${timeoutMs}`)
  const client = new MongoClient(url, { serverSelectionTimeoutMS: timeoutMs, connectTimeoutMS: timeoutMs, ...options.clientOptions })
  try {
    return await client.connect()
  } catch (err) {
    await client.close()
    const { hosts, srvHost, credentials } = client.options
    const where = srvHost ?? hosts.map((host) => host.toString()).join(',')
    let reason = err instanceof Error ? err.message : String(err)
    if (credentials?.password) reason = reason.replaceAll(credentials.password, '***')
    // The driver's error is not attached as `cause`: it is not ours to vouch that it holds no credential.
    throw new Error(`cannot reach MongoDB at ${where} within ${client.options.serverSelectionTimeoutMS} ms: ${reason}`)
  }
}
