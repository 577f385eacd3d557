/** The records of one collection with their indexes, and the database of all collections with its undo journal. */
import { type CollectionSpec, type QueryPlan, type Scalar, type StoredRecord, UniqueConstraintError, type Where } from '../port.js'
import { FieldIndex, UniqueIndex } from './indexes.js'
import { Schema } from './schema.js'

/** A deep copy without top-level `undefined` fields (as a JSON store would keep it). */
export function copyIn<T extends StoredRecord>(record: T): T {
  if (typeof record !== 'object' || record === null || typeof record.id !== 'string' || record.id === '') {
    throw new TypeError('a record must be an object with a non-empty string id')
  }
  const copy = structuredClone(record)
  for (const key of Object.keys(copy)) if (copy[key] === undefined) delete copy[key]
  return copy
}

/** The records of one collection, its schema and indexes. */
export class CollectionData {
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
    const access = this.access(where)
    if (access === undefined) return this.records.values()
    return [...candidateIds(access)].map((id) => this.records.get(id)!)
  }

  /** How {@link candidates} reads the records of a validated `where`: the plan it follows, as a {@link QueryPlan}. */
  plan(where: Where): QueryPlan {
    const access = this.access(where)
    const name = this.schema.spec.name
    return { usesIndex: access !== undefined, plan: access === undefined ? `SCAN ${name}` : describeAccess(name, access).join('\n') }
  }

  /** The index lookups that find a superset of the matches of `where`, or undefined when only a full scan can tell. */
  private access(where: Where): Access | undefined {
    if ('and' in where) {
      const parts = where.and.map((part) => this.access(part)).filter((part) => part !== undefined)
      return parts.length === 0 ? undefined : parts.length === 1 ? parts[0] : { smallestOf: parts }
    }
    if ('or' in where) {
      const parts = where.or.map((part) => this.access(part))
      return parts.every((part) => part !== undefined) ? { unionOf: parts } : undefined
    }
    const index = this.fieldIndexes.get(where.field)
    if (index === undefined) return undefined
    if (where.op === 'eq') return { index, values: [where.value] }
    if (where.op === 'in' || where.op === 'containsAny') return { index, values: where.value }
    return undefined
  }
}

/** Index lookups: one field index, the smallest answer of several (an `and`), or the union of several (an `or`). */
type Access = { index: FieldIndex; values: Scalar[] } | { smallestOf: Access[] } | { unionOf: Access[] }

/** The ids `access` finds. */
function candidateIds(access: Access): ReadonlySet<string> {
  if ('index' in access) return access.index.lookup(access.values)
  if ('smallestOf' in access) {
    let smallest: ReadonlySet<string> | undefined
    for (const part of access.smallestOf) {
      const ids = candidateIds(part)
      if (smallest === undefined || ids.size < smallest.size) smallest = ids
    }
    return smallest!
  }
  const union = new Set<string>()
  for (const part of access.unionOf) for (const id of candidateIds(part)) union.add(id)
  return union
}

/** `access` as plan lines, children indented under their parent. */
function describeAccess(collection: string, access: Access, depth = 0): string[] {
  const indent = '  '.repeat(depth)
  if ('index' in access) return [`${indent}SEARCH ${collection} USING INDEX ${access.index.field} (${access.values.length} value(s))`]
  const [title, parts] = 'smallestOf' in access ? ['SMALLEST OF', access.smallestOf] : ['UNION OF', access.unionOf]
  return [`${indent}${title}`, ...parts.flatMap((part) => describeAccess(collection, part, depth + 1))]
}

export interface UndoEntry {
  data: CollectionData
  id: string
  previous: StoredRecord | undefined
}

/** All collections, and the journal that lets atomic sections and transactions undo writes. */
export class MemoryDatabase {
  readonly collections = new Map<string, CollectionData>()
  closed = false
  private readonly journal: UndoEntry[] = []
  private openSections = 0

  /** The collection `name`; throws when `init` did not declare it. */
  data(name: string): CollectionData {
    const data = this.collections.get(name)
    if (data === undefined) throw new Error(`unknown collection "${name}": declare it in init(specs)`)
    return data
  }

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
