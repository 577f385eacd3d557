/** One collection of the memory adapter: every operation runs synchronously on {@link CollectionData}. */
import { assertAtMost, incrementSet } from '../increment-set.js'
import type { Collection, FindOptions, Page, StoredRecord, Where } from '../port.js'
import { assertLimit, decodeCursor, encodeCursor } from '../paging.js'
import { isScalar } from '../scalars.js'
import { type CollectionData, copyIn, type MemoryDatabase } from './data.js'

export class MemoryCollection<T extends StoredRecord> implements Collection<T> {
  constructor(
    private readonly db: MemoryDatabase,
    private readonly name: string,
    private readonly run: <R>(op: () => R) => Promise<R>,
  ) {}

  private data(): CollectionData {
    return this.db.data(this.name)
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

  count(where: Where = { and: [] }): Promise<number> {
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

  deleteIds(ids: readonly string[]): Promise<number> {
    return this.run(() => {
      const data = this.data()
      const present = [...new Set(ids)].filter((id) => data.records.has(id))
      for (const id of present) this.db.put(data, id, undefined)
      return present.length
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

  increment(id: string, field: string, by = 1, set?: Partial<T>, atMost?: number): Promise<number> {
    return this.run(() => {
      if (!Number.isFinite(by)) throw new TypeError(`increment needs a finite number, got ${by}`)
      assertAtMost(atMost)
      const also = Object.fromEntries(incrementSet(field, set)) as Partial<T>
      const data = this.data()
      const current = data.records.get(id)
      if (current === undefined) throw new Error(`no record "${id}" in collection "${this.name}"`)
      const value = current[field] ?? 0
      if (typeof value !== 'number') throw new Error(`field "${field}" of ${this.name}/${id} is not a number`)
      if (atMost !== undefined && value + by > atMost) return value + by
      this.updateOne(data, id, { ...also, [field]: value + by })
      return value + by
    })
  }
}
