/**
 * The MongoDB query language documents the adapter sends, built from the port's `Where`,
 * `FindOptions` and patches. Pure: documents in, documents out, no driver import, so the
 * mapping is unit-tested against the in-memory adapter with a Mongo query evaluator.
 *
 * Records are stored with `_id` = record `id` and every other field as is. The port's
 * semantics map onto MongoDB's own (type-bracketed comparisons, null matching absent fields,
 * BSON sort order null < numbers < strings < booleans, strings by code point):
 *
 * | port | MongoDB |
 * |---|---|
 * | `eq v` / `eq null` | `{f: {$eq: v}}` / `{f: null}` (null or absent) |
 * | `ne v` | `{f: {$ne: v}}` (absent and null match `ne v`) |
 * | `gt/gte/lt/lte v` | `{f: {$gt: v}}` ... (same JSON type only); a null bound matches nothing |
 * | `in [..]` | `{f: {$in: [..]}}` (null lists null or absent) |
 * | `containsAny [..]` | `{f: {$elemMatch: {$in: [..]}}}` (arrays only, a scalar never matches) |
 * | `exists b` | `{f: {$exists: b}}` (null is present) |
 * | `and` / `or` | `$and` / `$or`; an empty `and` matches all, an empty `or` nothing |
 * | order by f, then id | `sort({f: ±1, _id: ±1})`; a cursor is a range on the (f, _id) pair |
 */
import { DeclaredFields } from '../declared-fields.js'
import { assertLimit, decodeCursor, encodeCursor, resolveOrder, type SortKey } from '../paging.js'
import { assertScalar, assertScalars, isScalar } from '../scalars.js'
import type { CollectionSpec, Condition, FindOptions, Scalar, StoredRecord, Where } from '../port.js'

/** A MongoDB query, update or sort document. */
export type MongoDocument = Record<string, unknown>

/** Matches no document; served by the `_id` index. */
const NOTHING: MongoDocument = { _id: { $in: [] } }

/** BSON type aliases of the JSON scalar types, in BSON sort order (null first). */
const SCALAR_TYPES = ['number', 'string', 'bool'] as const

function scalarType(value: Scalar): (typeof SCALAR_TYPES)[number] {
  return typeof value === 'number' ? 'number' : typeof value === 'string' ? 'string' : 'bool'
}

/** Field names become document keys and paths: no `$` prefix, no dots, not `_id`. */
const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

/** Throws unless `field` is safe as a top-level MongoDB field name. */
export function assertFieldName(field: string): void {
  if (!FIELD_NAME.test(field) || field === '_id')
    throw new Error(`invalid field name ${JSON.stringify(field)}: use letters, digits and _ (not _id)`)
}

/** The declared fields of one collection, against which every query is validated; names must be plain MongoDB field names. */
export class MongoSchema extends DeclaredFields {
  constructor(spec: CollectionSpec) {
    super(spec, assertFieldName)
  }
}

/** Translates a validated `where` into a MongoDB filter. */
export function buildFilter(schema: MongoSchema, where: Where): MongoDocument {
  if (typeof where !== 'object' || where === null) throw new TypeError('where must be an object')
  if ('and' in where) {
    const parts = buildAll(schema, where.and)
    return parts.length === 0 ? {} : parts.length === 1 ? parts[0] : { $and: parts }
  }
  if ('or' in where) {
    const parts = buildAll(schema, where.or)
    return parts.length === 0 ? NOTHING : parts.length === 1 ? parts[0] : { $or: parts }
  }
  return buildCondition(schema, where)
}

function buildAll(schema: MongoSchema, parts: Where[]): MongoDocument[] {
  if (!Array.isArray(parts)) throw new TypeError('and/or take an array of filters')
  return parts.map((part) => buildFilter(schema, part))
}

function buildCondition(schema: MongoSchema, condition: Condition): MongoDocument {
  switch (condition.op) {
    case 'eq': {
      const field = schema.scalar(condition.field)
      assertScalar(condition.value)
      return condition.value === null ? { [field]: null } : { [field]: { $eq: condition.value } }
    }
    case 'ne': {
      const field = schema.scalar(condition.field)
      assertScalar(condition.value)
      return { [field]: { $ne: condition.value } }
    }
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const field = schema.scalar(condition.field)
      assertScalar(condition.value)
      return condition.value === null ? NOTHING : { [field]: { [`$${condition.op}`]: condition.value } }
    }
    case 'in': {
      const field = schema.scalar(condition.field)
      assertScalars(condition.value)
      return { [field]: { $in: condition.value } }
    }
    case 'containsAny': {
      const field = schema.array(condition.field)
      assertScalars(condition.value)
      return { [field]: { $elemMatch: { $in: condition.value } } }
    }
    case 'exists': {
      const field = schema.any(condition.field)
      if (typeof condition.value !== 'boolean') throw new TypeError('exists takes true or false')
      return { [field]: { $exists: condition.value } }
    }
    default:
      throw new Error(`unknown where operator ${JSON.stringify((condition as { op?: unknown }).op)}`)
  }
}

/** A resolved ordering and the stored field it sorts on (`_id` for `id`). */
export interface MongoOrdering extends SortKey {
  key: string
}

export function resolveOrdering(schema: MongoSchema, orderBy: FindOptions['orderBy']): MongoOrdering {
  const order = resolveOrder(orderBy, schema.defaultOrderField, (field) => schema.scalar(field))
  return { ...order, key: order.field === 'id' ? '_id' : order.field }
}

/** The cursor of a page whose last record is `last`. */
export function cursorAfter(ordering: MongoOrdering, last: StoredRecord): string {
  const value = ordering.key === '_id' ? last.id : last[ordering.field]
  return encodeCursor(ordering, { value: isScalar(value) ? value : null, id: last.id })
}

/**
 * The records after the cursor key (value, id) in the ordering: a range on the (key, _id) pair.
 * MongoDB comparisons stay within one BSON type, so the types that sort after (ascending) or
 * before (descending) the key's type are added by `$type`, and null/absent keys by `null`.
 */
function after(ordering: MongoOrdering, value: Scalar, id: string): MongoDocument {
  const { key } = ordering
  if (key === '_id') return { _id: { [ordering.descending ? '$lt' : '$gt']: id } }
  const past = ordering.descending ? '$lt' : '$gt'
  const tie = { [key]: value === null ? null : { $eq: value }, _id: { [past]: id } }
  if (value === null) return ordering.descending ? tie : { $or: [tie, { [key]: { $ne: null } }] }
  const rank = SCALAR_TYPES.indexOf(scalarType(value))
  const otherTypes = ordering.descending ? SCALAR_TYPES.slice(0, rank) : SCALAR_TYPES.slice(rank + 1)
  const parts: MongoDocument[] = [{ [key]: { [past]: value } }, tie]
  if (otherTypes.length > 0) parts.push({ [key]: { $type: [...otherTypes] } })
  if (ordering.descending) parts.push({ [key]: null })
  return { $or: parts }
}

/** What a `find` sends: the filter, the sort and the limit (one more than asked: tells whether a next page exists). */
export interface FindPlan {
  filter: MongoDocument
  sort: Record<string, 1 | -1>
  limit: number | undefined
  ordering: MongoOrdering
}

export function buildFind(schema: MongoSchema, where: Where, options: FindOptions = {}): FindPlan {
  const { limit } = options
  assertLimit(limit)
  const ordering = resolveOrdering(schema, options.orderBy)
  let filter = buildFilter(schema, where)
  if (options.cursor !== undefined) {
    const key = decodeCursor(ordering, options.cursor)
    const range = after(ordering, key.value, key.id)
    filter = Object.keys(filter).length === 0 ? range : { $and: [filter, range] }
  }
  const direction = ordering.descending ? -1 : 1
  const sort: Record<string, 1 | -1> = ordering.key === '_id' ? { _id: direction } : { [ordering.key]: direction, _id: direction }
  return { filter, sort, limit: limit === undefined ? undefined : limit + 1, ordering }
}

/** A record as stored: `id` becomes `_id`; top-level `undefined` fields are dropped. */
export function toDocument(record: StoredRecord): MongoDocument {
  if (typeof record !== 'object' || record === null || typeof record.id !== 'string' || record.id === '') {
    throw new TypeError('a record must be an object with a non-empty string id')
  }
  const { id, ...fields } = record
  if ('_id' in fields) throw new TypeError('a record may not carry an _id field (its id is stored as _id)')
  const document: MongoDocument = { _id: id }
  for (const [field, value] of Object.entries(fields)) if (value !== undefined) document[field] = value
  return document
}

/** The record of a stored document. */
export function fromDocument<T extends StoredRecord>(document: MongoDocument): T {
  const { _id, ...fields } = document
  return { id: _id as string, ...fields } as T
}

/**
 * `$set` / `$unset` of a shallow-merge patch (`undefined` removes a field; `id` is never changed). Undefined when the patch changes
 * nothing.
 */
export function buildUpdate(patch: Record<string, unknown>): MongoDocument | undefined {
  const $set: MongoDocument = {}
  const $unset: Record<string, ''> = {}
  for (const [field, value] of Object.entries(patch)) {
    if (field === 'id') continue
    assertFieldName(field)
    if (value === undefined) $unset[field] = ''
    else $set[field] = value
  }
  const update: MongoDocument = {}
  if (Object.keys($set).length > 0) update.$set = $set
  if (Object.keys($unset).length > 0) update.$unset = $unset
  return Object.keys(update).length === 0 ? undefined : update
}

/** One index the adapter creates. */
export interface MongoIndex {
  name: string
  key: Record<string, 1>
  unique: boolean
  /** Declared fields (for {@link UniqueConstraintError}). */
  fields: string[]
  /** Unique indexes constrain only records holding a non-null scalar in every field (the port's rule). */
  partialFilterExpression?: MongoDocument
}

/**
 * The indexes of a collection: every scalar and array field on (field, _id), so each port
 * query's conditions and its (field, id) ordering seek an index (array fields are multikey);
 * declared non-unique indexes with `_id` appended, so "filter by A, order by B" pages straight
 * off (A, B, _id); declared unique indexes on exactly their fields, partial on non-null values.
 */
export function planIndexes(schema: MongoSchema): MongoIndex[] {
  const indexes: MongoIndex[] = [...schema.fields, ...schema.arrayFields].map((field) => ({
    name: `f_${field}`,
    key: { [field]: 1, _id: 1 },
    unique: false,
    fields: [field],
  }))
  for (const index of schema.spec.indexes) {
    const key: Record<string, 1> = {}
    for (const field of index.fields) key[field] = 1
    if (index.unique) {
      const partialFilterExpression: MongoDocument = {}
      for (const field of index.fields) partialFilterExpression[field] = { $type: [...SCALAR_TYPES] }
      indexes.push({ name: `ux_${index.fields.join('_')}`, key, unique: true, fields: index.fields, partialFilterExpression })
    } else if (index.fields.length > 1) {
      indexes.push({ name: `ix_${index.fields.join('_')}`, key: { ...key, _id: 1 }, unique: false, fields: index.fields })
    }
  }
  return indexes
}
