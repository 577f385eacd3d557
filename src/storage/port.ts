/**
 * The storage port. Adapters (memory, SQLite, MongoDB, your own) implement
 * {@link StorageAdapter}; they know collections, fields and indexes, never business rules.
 *
 * Records are plain JSON objects with a string `id`. Every query names only fields that
 * the collection declares in its {@link CollectionSpec}, so adapters can push it down to an
 * index (no adapter loads a whole collection to filter it in JavaScript).
 */

import { UnavailableError } from '../errors.js'

/** A scalar a record field may hold and a query may compare with. */
export type Scalar = string | number | boolean | null

/** A stored record. Fields are JSON values; `id` is unique within its collection. */
export interface StoredRecord {
  id: string
  [field: string]: unknown
}

/** One comparison on a declared field. */
export type Condition =
  | { field: string; op: 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte'; value: Scalar }
  | { field: string; op: 'in'; value: Scalar[] }
  /** The field holds an array; true when it shares at least one element with `value`. */
  | { field: string; op: 'containsAny'; value: Scalar[] }
  /** The field is present (not undefined) when `value` is true, absent when false. */
  | { field: string; op: 'exists'; value: boolean }

/** A filter: a condition, or a conjunction / disjunction of filters. An empty `and` matches all. */
export type Where = Condition | { and: Where[] } | { or: Where[] }

/** Ordering: by one declared field, ties broken by `id` in the same direction. */
export interface OrderBy {
  field: string
  direction?: 'asc' | 'desc'
}

export interface FindOptions {
  /** Default: `createdAt` ascending (every record the service writes carries `createdAt`). */
  orderBy?: OrderBy
  /** At most this many records. */
  limit?: number
  /** The `nextCursor` of a previous page with the same where and orderBy. */
  cursor?: string
}

/** What {@link StorageAdapter.explain} is asked about: a find's options, or the count of the same `where`. */
export interface ExplainOptions extends FindOptions {
  /** True: the plan of `count(where)` (the other options are then ignored), not of `find(where, options)`. */
  count?: boolean
}

export interface Page<T> {
  items: T[]
  /** Present when more records follow. Opaque to callers. */
  nextCursor?: string
}

/** An index over one or more fields. */
export interface IndexSpec {
  fields: string[]
  /**
   * Enforced by the adapter: an insert or update that would duplicate it throws {@link UniqueConstraintError}. Records missing any of
   * the fields are not constrained.
   */
  unique?: boolean
}

/** A collection and what may be asked of it. */
export interface CollectionSpec {
  name: string
  /** Scalar fields that may appear in a `where` or `orderBy`. */
  fields: string[]
  /** Fields holding arrays of scalars, queried with `containsAny`. */
  arrayFields?: string[]
  indexes: IndexSpec[]
  /** Fields holding encrypted envelopes (see keys/keyring); used by master-key rotation. */
  secretFields?: string[]
  /**
   * Read on hot paths and written rarely: an adapter may answer its reads outside a transaction from memory, provided
   * it drops them on every write of any process (the PostgreSQL adapter does: docs/storage.md *Read cache*).
   */
  cached?: boolean
}

/**
 * Whether `value` carries `brand`: how the port's errors are recognised by `instanceof` across
 * copies of this module (`didvault/testing` bundles its own; an adapter throws the core's).
 */
function isBranded(value: unknown, brand: symbol): boolean {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[brand] === true
}

const UNIQUE_CONSTRAINT_ERROR = Symbol.for('didvault.UniqueConstraintError')
const INVALID_CURSOR_ERROR = Symbol.for('didvault.InvalidCursorError')

/** Thrown by adapters when a write would break a unique index. */
export class UniqueConstraintError extends Error {
  constructor(
    readonly collection: string,
    readonly fields: string[],
  ) {
    super(`unique constraint on ${collection}(${fields.join(', ')})`)
    this.name = 'UniqueConstraintError'
    Object.defineProperty(this, UNIQUE_CONSTRAINT_ERROR, { value: true })
  }

  /** Holds for the UniqueConstraintErrors of every copy of didvault a program loads. Subclasses keep the ordinary check. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    if (this !== UniqueConstraintError) return Function.prototype[Symbol.hasInstance].call(this, value)
    return isBranded(value, UNIQUE_CONSTRAINT_ERROR)
  }
}

/**
 * Thrown by `find` when `options.cursor` is not a `nextCursor` the same collection issued for
 * the same `orderBy` (malformed, edited, truncated, or from another ordering). A caller's
 * mistake, not a storage failure: services report it as a validation error (HTTP 422).
 */
export class InvalidCursorError extends Error {
  constructor(message = 'invalid cursor') {
    super(message)
    this.name = 'InvalidCursorError'
    Object.defineProperty(this, INVALID_CURSOR_ERROR, { value: true })
  }

  /** Holds for the InvalidCursorErrors of every copy of didvault a program loads. Subclasses keep the ordinary check. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    if (this !== InvalidCursorError) return Function.prototype[Symbol.hasInstance].call(this, value)
    return isBranded(value, INVALID_CURSOR_ERROR)
  }
}

const STORAGE_UNAVAILABLE_ERROR = Symbol.for('didvault.StorageUnavailableError')

/**
 * Thrown by adapters when the storage cannot be reached or cannot take writes now: a refused or
 * lost connection, a server shutting down or starting up, a full disk. Services answer it with 503
 * `SERVICE_UNAVAILABLE`. `message` is for the operator (it may name host and cause, never a
 * password); callers are told only `reason`.
 */
export class StorageUnavailableError extends UnavailableError {
  /**
   * The connection was lost while a COMMIT was in flight: the transaction's writes may or may not
   * have been made, so it is not run again. False: nothing was committed.
   */
  readonly outcomeUnknown: boolean

  constructor(message: string, options: { cause?: unknown; outcomeUnknown?: boolean } = {}) {
    const outcomeUnknown = options.outcomeUnknown ?? false
    super(
      message,
      outcomeUnknown
        ? 'the storage connection was lost while committing, so whether it took effect is unknown (check before retrying)'
        : 'storage unavailable, retry later',
      { cause: options.cause },
    )
    this.name = 'StorageUnavailableError'
    this.outcomeUnknown = outcomeUnknown
    Object.defineProperty(this, STORAGE_UNAVAILABLE_ERROR, { value: true })
  }

  /** Holds for the StorageUnavailableErrors of every copy of didvault a program loads. Subclasses keep the ordinary check. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    if (this !== StorageUnavailableError) return Function.prototype[Symbol.hasInstance].call(this, value)
    return isBranded(value, STORAGE_UNAVAILABLE_ERROR)
  }
}

/**
 * What an adapter can do; the conformance suite skips what an adapter says it cannot.
 * `IdentityService.create` refuses an adapter lacking `transactions` or `uniqueIndexes`.
 */
export interface StorageCapabilities {
  /** `transaction(fn)` is atomic and isolated (all or nothing). */
  transactions: boolean
  /** Unique indexes are enforced. */
  uniqueIndexes: boolean
  /** Several processes may share the same database safely. */
  multiProcess: boolean
}

/**
 * How an adapter would answer a find, as its backend plans it: whether indexes narrow what it
 * reads. The conformance suite asks for it for every query the service issues (contract: each is
 * served by an index).
 */
export interface QueryPlan {
  /**
   * True when every source of records in the plan is an index lookup or range bounded by the
   * filter (SQLite `SEARCH`, a MongoDB `IXSCAN` with bounds, a PostgreSQL index scan with an
   * `Index Cond`). False when any reads the whole collection: a table scan, or a walk of an
   * entire index (which spares a sort, not the reading).
   */
  usesIndex: boolean
  /** The backend's own plan, as text for a human (EXPLAIN QUERY PLAN lines, MongoDB's winning plan, ...). */
  plan: string
}

/** Operations on one collection. Adapters return copies: mutating a result never changes storage. */
export interface Collection<T extends StoredRecord = StoredRecord> {
  insert(record: T): Promise<void>
  /** Inserts all or (inside a transaction) none; one round trip where the backend allows. */
  insertMany(records: T[]): Promise<void>
  get(id: string): Promise<T | undefined>
  findOne(where: Where): Promise<T | undefined>
  find(where: Where, options?: FindOptions): Promise<Page<T>>
  /**
   * How many records match `where` (all of them when it is absent), counted by the backend: an adapter never loads
   * the records to count them, and (like `find`) serves a `where` on indexed fields by an index (see
   * {@link StorageAdapter.explain} with `count: true`). Only declared fields may be named.
   */
  count(where?: Where): Promise<number>
  /**
   * Shallow-merges `patch` into the record (a field set to `undefined` is removed). Returns the new record, or undefined when no record
   * has that id.
   */
  update(id: string, patch: Partial<T>): Promise<T | undefined>
  /** Returns whether a record was deleted. */
  delete(id: string): Promise<boolean>
  /** Deletes every match; returns how many. */
  deleteMany(where: Where): Promise<number>
  /**
   * Deletes the records with these ids (one statement where the backend allows); returns how many it deleted — in a
   * transaction, fewer than `ids` (without repeats) means another writer deleted some first.
   */
  deleteIds(ids: readonly string[]): Promise<number>
  /**
   * Atomically adds `by` to the numeric `field` of record `id` and returns the new value; the fields of `set` (values,
   * not `undefined`; neither `id` nor `field`) are written in the same atomic write — one statement where the backend
   * allows (a counter and the state it decides, e.g. an offer's redemptions and `state`). Safe across processes sharing
   * the database. Throws when the record does not exist (and writes nothing).
   *
   * With `atMost`, the write happens only when the new value is at most `atMost`: otherwise nothing is written (neither
   * the count nor `set`) and the value it would have had is returned — a claim only the first caller makes
   * (`increment(id, 'claims', 1, { state }, 1) === 1`) that leaves the record as it is for every later one.
   */
  increment(id: string, field: string, by?: number, set?: Partial<T>, atMost?: number): Promise<number>
}

/** Records to insert into one collection: one element of {@link StorageAdapter.insertAll}. */
export interface CollectionWrite {
  collection: string
  records: StoredRecord[]
}

/** A database. Create collections with {@link StorageAdapter.collection}. */
export interface StorageAdapter {
  readonly name: string
  readonly capabilities: StorageCapabilities
  /** Creates tables/indexes (idempotently, running migrations) for every spec; call once before use. */
  init(specs: readonly CollectionSpec[]): Promise<void>
  collection<T extends StoredRecord = StoredRecord>(name: string): Collection<T>
  /**
   * Runs `fn` atomically: every write through the `tx` adapter inside it commits together or
   * not at all. Writes through the outer adapter are not part of the transaction.
   */
  transaction<R>(fn: (tx: StorageAdapter) => Promise<R>): Promise<R>
  /**
   * Inserts every record into its collection, all or none: one statement where the backend allows (PostgreSQL: one
   * `WITH … INSERT` statement, needing no transaction of its own), else one transaction. A record that would break a
   * unique index (or take an id) throws {@link UniqueConstraintError} naming the collection — and fields — that
   * conflicted, and nothing is written. Through a transaction's `tx`, the records commit or roll back with it.
   * Writes with no records are skipped; none at all is a no-op.
   */
  insertAll(writes: ReadonlyArray<CollectionWrite>): Promise<void>
  /**
   * The plan of the queries `collection(name).find(where, options)` runs — with `options.count`, of the query
   * `collection(name).count(where)` runs — without running them. Rejects like `find` for an undeclared collection or field.
   */
  explain(collection: string, where: Where, options?: ExplainOptions): Promise<QueryPlan>
  /**
   * Optional: why the storage cannot take writes now — the reason of the last write that failed
   * because of the storage itself (e.g. `disk full`), until a write succeeds — or undefined.
   * Readiness reports it: reads may still succeed while every write fails.
   */
  writeFailure?(): string | undefined
  close(): Promise<void>
}
