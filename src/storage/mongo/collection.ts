import type { ClientSession, Collection as NativeCollection, Document } from 'mongodb'
import { assertAtMost, incrementSet } from '../increment-set.js'
import type { Collection, FindOptions, Page, StoredRecord, Where } from '../port.js'
import { mapDuplicateKey } from './errors.js'
import type { UndoJournal } from './journal.js'
import {
  assertFieldName,
  buildFilter,
  buildFind,
  buildUpdate,
  cursorAfter,
  fromDocument,
  type MongoDocument,
  type MongoIndex,
  type MongoSchema,
  toDocument,
} from './query.js'

/** An initialised collection: its driver handle, declared fields and indexes. */
export interface MongoCollectionState {
  native: NativeCollection<Document>
  schema: MongoSchema
  indexes: MongoIndex[]
}

/** What a collection needs from the adapter scope it was obtained from. */
export interface MongoScope {
  /** The state of an initialised collection; throws for unknown ones. */
  state(name: string): MongoCollectionState
  /** Runs `op` when the scope is usable (and, in fallback mode, not inside someone else's transaction). */
  run<R>(op: () => Promise<R>): Promise<R>
  /** The session of the running server-side transaction, if any. */
  readonly session: ClientSession | undefined
  /** The undo journal of the running fallback transaction, if any. */
  readonly journal: UndoJournal | undefined
}

/** A collection of documents `{_id: id, ...fields}`; filters, sorts and updates come from ./query. */
export class MongoCollection<T extends StoredRecord> implements Collection<T> {
  constructor(
    private readonly scope: MongoScope,
    private readonly name: string,
  ) {}

  /** Runs `op` on the collection state with the scope's session, mapping duplicate-key errors. */
  private run<R>(
    op: (state: MongoCollectionState, session: ClientSession | undefined, journal: UndoJournal | undefined) => Promise<R>,
  ): Promise<R> {
    return this.scope.run(async () => {
      const state = this.scope.state(this.name)
      try {
        return await op(state, this.scope.session, this.scope.journal)
      } catch (err) {
        throw mapDuplicateKey(this.name, state.indexes, err)
      }
    })
  }

  insert(record: T): Promise<void> {
    return this.run(async ({ native }, session, journal) => {
      const document = toDocument(record)
      await native.insertOne(document, { session })
      journal?.push(async () => void (await native.deleteOne({ _id: document._id as never })))
    })
  }

  insertMany(records: T[]): Promise<void> {
    return this.run(async ({ native }, session, journal) => {
      const documents = records.map(toDocument)
      if (documents.length === 0) return
      const ids = documents.map((document) => document._id as string)
      try {
        await native.insertMany(documents, { session, ordered: true })
      } catch (err) {
        // Without a server-side transaction, an ordered insert keeps the records before the
        // failing one: they were new (an insert never overwrites), so deleting them restores the
        // collection and the batch is all or nothing.
        if (session === undefined) {
          const failedAt = (err as { writeErrors?: Array<{ index?: number }> }).writeErrors?.[0]?.index
          const inserted = ids.slice(0, typeof failedAt === 'number' ? failedAt : ids.length)
          if (inserted.length > 0) await native.deleteMany({ _id: { $in: inserted as never[] } })
        }
        throw err
      }
      journal?.push(async () => void (await native.deleteMany({ _id: { $in: ids as never[] } })))
    })
  }

  get(id: string): Promise<T | undefined> {
    return this.run(async ({ native }, session) => {
      const document = await native.findOne({ _id: id as never }, { session })
      return document === null ? undefined : fromDocument<T>(document)
    })
  }

  async findOne(where: Where): Promise<T | undefined> {
    return (await this.find(where, { limit: 1 })).items[0]
  }

  find(where: Where, options: FindOptions = {}): Promise<Page<T>> {
    return this.run(async ({ native, schema }, session) => {
      const plan = buildFind(schema, where, options)
      const cursor = native.find(plan.filter, { session, sort: plan.sort })
      if (plan.limit !== undefined) cursor.limit(plan.limit)
      const items = (await cursor.toArray()).map((document) => fromDocument<T>(document))
      if (plan.limit === undefined || items.length < plan.limit) return { items }
      items.pop()
      return { items, nextCursor: cursorAfter(plan.ordering, items[items.length - 1]) }
    })
  }

  count(where: Where = { and: [] }): Promise<number> {
    return this.run(({ native, schema }, session) => native.countDocuments(buildFilter(schema, where), { session }))
  }

  update(id: string, patch: Partial<T>): Promise<T | undefined> {
    return this.run(async ({ native }, session, journal) => {
      const update = buildUpdate(patch)
      if (update === undefined) {
        const document = await native.findOne({ _id: id as never }, { session })
        return document === null ? undefined : fromDocument<T>(document)
      }
      const before = await native.findOneAndUpdate({ _id: id as never }, update, { session, returnDocument: 'before' })
      if (before === null) return undefined
      journal?.push(async () => void (await native.replaceOne({ _id: id as never }, before)))
      return fromDocument<T>(applyUpdate(before, update))
    })
  }

  delete(id: string): Promise<boolean> {
    return this.run(async ({ native }, session, journal) => {
      const removed = await native.findOneAndDelete({ _id: id as never }, { session })
      if (removed === null) return false
      journal?.push(async () => void (await native.insertOne(removed)))
      return true
    })
  }

  deleteIds(ids: readonly string[]): Promise<number> {
    return this.run(async ({ native }, session, journal) => {
      if (ids.length === 0) return 0
      const filter = { _id: { $in: [...new Set(ids)] as never[] } }
      if (journal === undefined) return (await native.deleteMany(filter, { session })).deletedCount
      // Inside a fallback transaction the removed documents are kept to be restored on rollback.
      const removed = await native.find(filter, { session }).toArray()
      if (removed.length === 0) return 0
      const { deletedCount } = await native.deleteMany({ _id: { $in: removed.map((document) => document._id) } }, { session })
      journal.push(async () => void (await native.insertMany(removed, { ordered: false })))
      return deletedCount
    })
  }

  deleteMany(where: Where): Promise<number> {
    return this.run(async ({ native, schema }, session, journal) => {
      const filter = buildFilter(schema, where)
      if (journal === undefined) return (await native.deleteMany(filter, { session })).deletedCount
      // Inside a fallback transaction the removed documents are kept to be restored on rollback.
      const removed = await native.find(filter, { session }).toArray()
      if (removed.length === 0) return 0
      const { deletedCount } = await native.deleteMany({ _id: { $in: removed.map((document) => document._id) } }, { session })
      journal.push(async () => void (await native.insertMany(removed, { ordered: false })))
      return deletedCount
    })
  }

  increment(id: string, field: string, by = 1, set?: Partial<T>, atMost?: number): Promise<number> {
    return this.run(async ({ native }, session, journal) => {
      assertFieldName(field)
      if (!Number.isFinite(by)) throw new TypeError(`increment needs a finite number, got ${by}`)
      assertAtMost(atMost)
      // With `atMost`: a stored number only up to `atMost - by`; an absent or null one (0) only when `by` fits.
      const fits = atMost === undefined || by <= atMost
      const also = incrementSet(field, set)
      for (const [key] of also) assertFieldName(key)
      const fields = Object.fromEntries(also)
      // One atomic findOneAndUpdate (with `set`'s fields); an absent field counts as 0 ($inc creates it), a null one too.
      const number = atMost === undefined ? { $type: 'number' } : { $type: 'number', $lte: atMost - by }
      const numeric = { _id: id as never, $or: [{ [field]: number }, ...(fits ? [{ [field]: { $exists: false } }] : [])] }
      const incremented = also.length > 0 ? { $inc: { [field]: by }, $set: fields } : { $inc: { [field]: by } }
      // The document as it was, so the fallback's undo restores the fields exactly (absent, null or a value).
      let before = await native.findOneAndUpdate(numeric, incremented, { session, returnDocument: 'before' })
      if (fits)
        before ??= await native.findOneAndUpdate(
          { _id: id as never, [field]: { $type: 'null' } },
          { $set: { ...fields, [field]: by } },
          { session, returnDocument: 'before' },
        )
      if (before === null) {
        const stored = await native.findOne({ _id: id as never }, { session })
        const current = stored?.[field] as unknown
        // Past `atMost`: nothing written, the value it would have had.
        if (atMost !== undefined && stored && (current === undefined || current === null || typeof current === 'number'))
          return (current ?? 0) + by
        throw new Error(
          stored ? `field "${field}" of ${this.name}/${id} is not a number` : `no record "${id}" in collection "${this.name}"`,
        )
      }
      const previous = before[field] as number | null | undefined
      // The undo puts back what `set` overwrote: the earlier value, or no field.
      const restored: Record<string, unknown> = {}
      const removed: Record<string, ''> = {}
      for (const [key] of also) {
        if (before[key] === undefined) removed[key] = ''
        else restored[key] = before[key]
      }
      // The counter by `-by` (others may have counted meanwhile), or back to null / absent.
      if (previous === undefined) removed[field] = ''
      else if (previous === null) restored[field] = null
      const undo = {
        ...(typeof previous === 'number' && { $inc: { [field]: -by } }),
        ...(Object.keys(restored).length > 0 && { $set: restored }),
        ...(Object.keys(removed).length > 0 && { $unset: removed }),
      }
      journal?.push(async () => void (await native.updateOne({ _id: id as never }, undo)))
      return (previous ?? 0) + by
    })
  }
}

/** The document `before` with a `$set`/`$unset` update applied (what the server stored). */
function applyUpdate(before: Document, update: MongoDocument): Document {
  const after: Document = { ...before, ...(update.$set as Document | undefined) }
  for (const field of Object.keys((update.$unset as Document | undefined) ?? {})) delete after[field]
  return after
}
