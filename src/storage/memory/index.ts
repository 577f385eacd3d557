/**
 * In-process {@link StorageAdapter}: records live in Maps, copied in and out with
 * `structuredClone`. Meant for tests, examples and single-process tools; it follows exactly
 * the query semantics of the SQLite and MongoDB adapters (see the conformance suite).
 */
import {
  type Collection,
  type CollectionSpec,
  type Condition,
  type FindOptions,
  type OrderBy,
  type Page,
  type Scalar,
  type StorageAdapter,
  type StorageCapabilities,
  type StoredRecord,
  UniqueConstraintError,
  type Where,
} from '../port.js'
import { DeclaredFields } from '../declared-fields.js'
import { assertLimit, decodeCursor, encodeCursor, resolveOrder, type SortKey } from '../paging.js'
import { assertScalar, assertScalars, isScalar } from '../scalars.js'
import { assertUsable, childScope, closeTransactionAdapter, rootScope, runTransaction, type TransactionScope } from '../transaction-scope.js'

// ---------------------------------------------------------------------------------------------
// Query evaluation (the same semantics the SQL and MongoDB adapters implement)

type Predicate = (record: StoredRecord) => boolean

/** Type classes in sort order: null/absent < numbers < strings < booleans (MongoDB's order). */
function typeRank(value: unknown): number {
  if (value === undefined || value === null) return 0
  if (typeof value === 'number') return 1
  if (typeof value === 'string') return 2
  if (typeof value === 'boolean') return 3
  return 4
}

/** Compares strings by code point, as SQLite (UTF-8 bytes) and MongoDB do; `<` compares UTF-16 units. */
function compareStrings(a: string, b: string): number {
  const length = Math.min(a.length, b.length)
  for (let i = 0; i < length; i++) {
    const x = a.codePointAt(i)!
    const y = b.codePointAt(i)!
    if (x !== y) return x - y
    if (x > 0xffff) i++
  }
  return a.length - b.length
}

/** Total order of field values, across types by {@link typeRank}. */
function compareValues(a: unknown, b: unknown): number {
  const rank = typeRank(a) - typeRank(b)
  if (rank !== 0) return rank
  if (typeof a === 'number') return a - (b as number)
  if (typeof a === 'string') return compareStrings(a, b as string)
  if (typeof a === 'boolean') return Number(a) - Number(b)
  return a === undefined || a === null ? 0 : compareStrings(JSON.stringify(a), JSON.stringify(b))
}

/** `eq` semantics: same JSON type and value; `null` matches null or absent. */
function equals(value: unknown, expected: Scalar): boolean {
  return expected === null ? value === undefined || value === null : value === expected
}

/** Range semantics: only values of the operand's JSON type compare (never null). */
function inRange(value: unknown, op: 'gt' | 'gte' | 'lt' | 'lte', bound: Scalar): boolean {
  if (bound === null || typeRank(value) !== typeRank(bound)) return false
  const order = compareValues(value, bound)
  return op === 'gt' ? order > 0 : op === 'gte' ? order >= 0 : op === 'lt' ? order < 0 : order <= 0
}

/** Field declarations of one collection, used to validate and compile every query. */
class Schema extends DeclaredFields {
  /** Validates `where` and compiles it to a predicate. */
  compile(where: Where): Predicate {
    if (typeof where !== 'object' || where === null) throw new TypeError('where must be an object')
    if ('and' in where) {
      const parts = this.compileAll(where.and)
      return (record) => parts.every((part) => part(record))
    }
    if ('or' in where) {
      const parts = this.compileAll(where.or)
      return (record) => parts.some((part) => part(record))
    }
    return this.compileCondition(where)
  }

  private compileAll(parts: Where[]): Predicate[] {
    if (!Array.isArray(parts)) throw new TypeError('and/or take an array of filters')
    return parts.map((part) => this.compile(part))
  }

  private compileCondition(condition: Condition): Predicate {
    switch (condition.op) {
      case 'eq': {
        const { value } = condition
        const field = this.scalar(condition.field)
        assertScalar(value)
        return (record) => equals(record[field], value)
      }
      case 'ne': {
        const { value } = condition
        const field = this.scalar(condition.field)
        assertScalar(value)
        return (record) => !equals(record[field], value)
      }
      case 'gt':
      case 'gte':
      case 'lt':
      case 'lte': {
        const { op, value } = condition
        const field = this.scalar(condition.field)
        assertScalar(value)
        return (record) => inRange(record[field], op, value)
      }
      case 'in': {
        const { value } = condition
        const field = this.scalar(condition.field)
        assertScalars(value)
        return (record) => value.some((expected) => equals(record[field], expected))
      }
      case 'containsAny': {
        const { value } = condition
        const field = this.array(condition.field)
        assertScalars(value)
        return (record) => {
          const elements = record[field]
          return Array.isArray(elements) && elements.some((element) => value.includes(element as Scalar))
        }
      }
      case 'exists': {
        const { value } = condition
        const field = this.any(condition.field)
        if (typeof value !== 'boolean') throw new TypeError('exists takes true or false')
        return (record) => (record[field] !== undefined) === value
      }
      default:
        throw new Error(`unknown where operator ${JSON.stringify((condition as { op?: unknown }).op)}`)
    }
  }

  /** Resolves an orderBy to a sort key and its comparator of records (ties by id, same direction). */
  ordering(orderBy: OrderBy | undefined): SortKey & { compare: (a: StoredRecord, b: StoredRecord) => number } {
    const order = resolveOrder(orderBy, this.defaultOrderField, (field) => this.scalar(field))
    const { field } = order
    const sign = order.descending ? -1 : 1
    const compare = (a: StoredRecord, b: StoredRecord): number =>
      sign * (compareValues(a[field], b[field]) || compareStrings(a.id, b.id))
    return { ...order, compare }
  }
}

// ---------------------------------------------------------------------------------------------
// Data and undo journal

/** A deep copy without top-level `undefined` fields (as a JSON store would keep it). */
function copyIn<T extends StoredRecord>(record: T): T {
  if (typeof record !== 'object' || record === null || typeof record.id !== 'string' || record.id === '') {
    throw new TypeError('a record must be an object with a non-empty string id')
  }
  const copy = structuredClone(record)
  for (const key of Object.keys(copy)) if (copy[key] === undefined) delete copy[key]
  return copy
}

/** A unique index: the key of the indexed values → id. */
class UniqueIndex {
  private readonly ids = new Map<string, string>()

  constructor(readonly fields: string[]) {}

  /** The key of `record`, or undefined when a field is null or absent (not constrained). */
  key(record: StoredRecord): string | undefined {
    const values = this.fields.map((field) => record[field])
    return values.some((value) => value === undefined || value === null) ? undefined : JSON.stringify(values)
  }

  owner(key: string): string | undefined {
    return this.ids.get(key)
  }

  add(record: StoredRecord): void {
    const key = this.key(record)
    if (key !== undefined) this.ids.set(key, record.id)
  }

  remove(record: StoredRecord): void {
    const key = this.key(record)
    if (key !== undefined && this.ids.get(key) === record.id) this.ids.delete(key)
  }
}

/** Typed key of a value: `1`, `"1"` and `true` differ; null and absent share one (as `eq null` does). */
function valueKey(value: unknown): string {
  return value === undefined ? 'null' : JSON.stringify(value)
}

/**
 * Equality index of one declared field (or of the elements of an array field): value key → ids.
 * Finds use it to narrow the records they test, so lookups stay O(matches), not O(collection).
 */
class FieldIndex {
  private readonly ids = new Map<string, Set<string>>()

  constructor(
    readonly field: string,
    private readonly elements: boolean,
  ) {}

  private keys(record: StoredRecord): Iterable<string> {
    const value = record[this.field]
    if (!this.elements) return [valueKey(value)]
    return Array.isArray(value) ? new Set(value.map(valueKey)) : []
  }

  add(record: StoredRecord): void {
    for (const key of this.keys(record)) {
      let ids = this.ids.get(key)
      if (ids === undefined) this.ids.set(key, (ids = new Set()))
      ids.add(record.id)
    }
  }

  remove(record: StoredRecord): void {
    for (const key of this.keys(record)) {
      const ids = this.ids.get(key)
      ids?.delete(record.id)
      if (ids?.size === 0) this.ids.delete(key)
    }
  }

  /** Ids of the records holding (or, for an array field, containing) any of `values`. Read-only. */
  lookup(values: Scalar[]): ReadonlySet<string> {
    if (values.length === 1) return this.ids.get(valueKey(values[0])) ?? new Set()
    const union = new Set<string>()
    for (const value of values) for (const id of this.ids.get(valueKey(value)) ?? []) union.add(id)
    return union
  }
}

class CollectionData {
  readonly records = new Map<string, StoredRecord>()
  schema: Schema
  private uniques: UniqueIndex[] = []
  private fieldIndexes = new Map<string, FieldIndex>()

  constructor(spec: CollectionSpec) {
    this.schema = new Schema(spec)
    this.reindex(spec)
  }

  /** Adopts a (possibly changed) spec, rebuilding the indexes over existing records. */
  reindex(spec: CollectionSpec): void {
    const schema = new Schema(spec)
    const uniques = spec.indexes.filter((index) => index.unique).map((index) => new UniqueIndex(index.fields))
    for (const unique of uniques) {
      for (const record of this.records.values()) {
        const key = unique.key(record)
        if (key !== undefined && unique.owner(key) !== undefined) throw new UniqueConstraintError(spec.name, unique.fields)
        unique.add(record)
      }
    }
    const fieldIndexes = new Map<string, FieldIndex>()
    for (const field of schema.fields) fieldIndexes.set(field, new FieldIndex(field, false))
    for (const field of schema.arrayFields) fieldIndexes.set(field, new FieldIndex(field, true))
    for (const index of fieldIndexes.values()) for (const record of this.records.values()) index.add(record)
    this.schema = schema
    this.uniques = uniques
    this.fieldIndexes = fieldIndexes
  }

  /** Throws when `record` would duplicate another record's id (when new) or unique key. */
  assertUnique(record: StoredRecord, isNew: boolean): void {
    if (isNew && this.records.has(record.id)) throw new UniqueConstraintError(this.schema.spec.name, ['id'])
    for (const unique of this.uniques) {
      const key = unique.key(record)
      const owner = key === undefined ? undefined : unique.owner(key)
      if (owner !== undefined && owner !== record.id) throw new UniqueConstraintError(this.schema.spec.name, unique.fields)
    }
  }

  /** Sets (`next`) or removes (`undefined`) the record `id`, keeping every index in step. */
  set(id: string, next: StoredRecord | undefined): void {
    const previous = this.records.get(id)
    if (previous !== undefined) {
      for (const unique of this.uniques) unique.remove(previous)
      for (const index of this.fieldIndexes.values()) index.remove(previous)
    }
    if (next === undefined) {
      this.records.delete(id)
      return
    }
    this.records.set(id, next)
    for (const unique of this.uniques) unique.add(next)
    for (const index of this.fieldIndexes.values()) index.add(next)
  }

  /** The records that may match a validated `where`: narrowed through the field indexes when it allows. */
  candidates(where: Where): Iterable<StoredRecord> {
    const ids = this.candidateIds(where)
    if (ids === undefined) return this.records.values()
    return [...ids].map((id) => this.records.get(id)!)
  }

  /** A superset of the ids matching `where`, or undefined when only a full scan can tell. */
  private candidateIds(where: Where): ReadonlySet<string> | undefined {
    if ('and' in where) {
      let smallest: ReadonlySet<string> | undefined
      for (const part of where.and) {
        const ids = this.candidateIds(part)
        if (ids !== undefined && (smallest === undefined || ids.size < smallest.size)) smallest = ids
      }
      return smallest
    }
    if ('or' in where) {
      const union = new Set<string>()
      for (const part of where.or) {
        const ids = this.candidateIds(part)
        if (ids === undefined) return undefined
        for (const id of ids) union.add(id)
      }
      return union
    }
    const index = this.fieldIndexes.get(where.field)
    if (where.op === 'eq') return index?.lookup([where.value])
    if (where.op === 'in' || where.op === 'containsAny') return index?.lookup(where.value)
    return undefined
  }
}

interface UndoEntry {
  data: CollectionData
  id: string
  previous: StoredRecord | undefined
}

/** All collections, and the journal that lets atomic sections and transactions undo writes. */
class MemoryDatabase {
  readonly collections = new Map<string, CollectionData>()
  closed = false
  private readonly journal: UndoEntry[] = []
  private openSections = 0

  /** Sets (or with `undefined` removes) a record, journaling the previous one inside sections. */
  put(data: CollectionData, id: string, next: StoredRecord | undefined): void {
    if (this.openSections > 0) this.journal.push({ data, id, previous: data.records.get(id) })
    data.set(id, next)
  }

  /** Opens an atomic section; returns the mark {@link end} needs. */
  begin(): number {
    this.openSections++
    return this.journal.length
  }

  /** Closes the section opened at `mark`, undoing its writes unless `commit`. */
  end(mark: number, commit: boolean): void {
    if (!commit) for (const entry of this.journal.splice(mark).reverse()) entry.data.set(entry.id, entry.previous)
    if (--this.openSections === 0) this.journal.length = 0
  }

  /** Runs the synchronous `fn` all-or-nothing. */
  atomically<R>(fn: () => R): R {
    const mark = this.begin()
    try {
      const result = fn()
      this.end(mark, true)
      return result
    } catch (err) {
      this.end(mark, false)
      throw err
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Collections and adapters

class MemoryCollection<T extends StoredRecord> implements Collection<T> {
  constructor(
    private readonly db: MemoryDatabase,
    private readonly name: string,
    private readonly run: <R>(op: () => R) => Promise<R>,
  ) {}

  private data(): CollectionData {
    const data = this.db.collections.get(this.name)
    if (data === undefined) throw new Error(`unknown collection "${this.name}": declare it in init(specs)`)
    return data
  }

  private insertOne(data: CollectionData, record: T): void {
    const copy = copyIn(record)
    data.assertUnique(copy, true)
    this.db.put(data, copy.id, copy)
  }

  insert(record: T): Promise<void> {
    return this.run(() => this.insertOne(this.data(), record))
  }

  insertMany(records: T[]): Promise<void> {
    return this.run(() => {
      const data = this.data()
      this.db.atomically(() => records.forEach((record) => this.insertOne(data, record)))
    })
  }

  get(id: string): Promise<T | undefined> {
    return this.run(() => {
      const record = this.data().records.get(id)
      return record && (structuredClone(record) as T)
    })
  }

  async findOne(where: Where): Promise<T | undefined> {
    return (await this.find(where, { limit: 1 })).items[0]
  }

  find(where: Where, options: FindOptions = {}): Promise<Page<T>> {
    return this.run(() => {
      const { limit } = options
      assertLimit(limit)
      const data = this.data()
      const ordering = data.schema.ordering(options.orderBy)
      const key = options.cursor === undefined ? undefined : decodeCursor(ordering, options.cursor)
      const after: StoredRecord | undefined = key && { id: key.id, [ordering.field]: key.value }
      const matches = data.schema.compile(where)
      const sorted = [...data.candidates(where)]
        .filter((record) => matches(record) && (after === undefined || ordering.compare(record, after) > 0))
        .sort(ordering.compare)
      const items = sorted.slice(0, limit).map((record) => structuredClone(record) as T)
      if (limit === undefined || sorted.length <= limit) return { items }
      const last = items[items.length - 1]
      const value = last[ordering.field]
      return { items, nextCursor: encodeCursor(ordering, { value: isScalar(value) ? value : null, id: last.id }) }
    })
  }

  count(where: Where): Promise<number> {
    return this.run(() => {
      const data = this.data()
      const matches = data.schema.compile(where)
      let count = 0
      for (const record of data.candidates(where)) if (matches(record)) count++
      return count
    })
  }

  private updateOne(data: CollectionData, id: string, patch: Partial<T>): T | undefined {
    const current = data.records.get(id)
    if (current === undefined) return undefined
    const next = copyIn({ ...current, ...patch, id } as T)
    data.assertUnique(next, false)
    this.db.put(data, id, next)
    return structuredClone(next)
  }

  update(id: string, patch: Partial<T>): Promise<T | undefined> {
    return this.run(() => this.updateOne(this.data(), id, patch))
  }

  delete(id: string): Promise<boolean> {
    return this.run(() => {
      const data = this.data()
      if (!data.records.has(id)) return false
      this.db.put(data, id, undefined)
      return true
    })
  }

  deleteMany(where: Where): Promise<number> {
    return this.run(() => {
      const data = this.data()
      const matches = data.schema.compile(where)
      const ids = [...data.candidates(where)].filter(matches).map((record) => record.id)
      for (const id of ids) this.db.put(data, id, undefined)
      return ids.length
    })
  }

  increment(id: string, field: string, by = 1): Promise<number> {
    return this.run(() => {
      if (!Number.isFinite(by)) throw new TypeError(`increment needs a finite number, got ${by}`)
      const data = this.data()
      const current = data.records.get(id)
      if (current === undefined) throw new Error(`no record "${id}" in collection "${this.name}"`)
      const value = current[field] ?? 0
      if (typeof value !== 'number') throw new Error(`field "${field}" of ${this.name}/${id} is not a number`)
      this.updateOne(data, id, { [field]: value + by } as Partial<T>)
      return value + by
    })
  }
}

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

  init(specs: CollectionSpec[]): Promise<void> {
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
