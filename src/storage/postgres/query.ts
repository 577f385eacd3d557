/** Compiles the port's filters, orderings and cursors into PostgreSQL statements over a {@link Layout}. */
import { type CursorKey, decodeCursor, encodeCursor, resolveOrder, type SortKey } from '../paging.js'
import type { Condition, FindOptions, Scalar, StoredRecord, Where } from '../port.js'
import { assertScalar, assertScalars, isScalar } from '../scalars.js'
import { KEY_FUNCTION, KEYS_FUNCTION, TYPE_FLOOR } from './keys.js'
import type { Layout } from './layout.js'
import { quoteIdentifier } from './names.js'

/** Parameters of one statement, bound in order as `$1`, `$2`, ... */
export class Params {
  readonly values: unknown[] = []

  /** Binds `value` and returns its placeholder. */
  bind(value: unknown): string {
    return `$${this.values.push(value)}`
  }

  /** Binds a JSON value and returns the expression of its `jsonb`. */
  json(value: unknown): string {
    return `${this.bind(JSON.stringify(value))}::jsonb`
  }
}

/** The key (see ./keys) of a bound scalar. */
function keyOf(layout: Layout, params: Params, value: Scalar): string {
  return `${layout.schema}.${quoteIdentifier(KEY_FUNCTION)}(${params.json(value)})`
}

/** The keys of a bound list of scalars. */
function keysOf(layout: Layout, params: Params, values: Scalar[]): string {
  return `${layout.schema}.${quoteIdentifier(KEYS_FUNCTION)}(${params.json(values)})`
}

/** Compiles a {@link Where} into an SQL boolean expression; undeclared fields throw, values are bound. */
export function compileWhere(layout: Layout, where: Where, params: Params): string {
  if (typeof where !== 'object' || where === null) throw new TypeError('where must be an object')
  if ('and' in where) return compileGroup(layout, where.and, ' AND ', 'TRUE', params)
  if ('or' in where) return compileGroup(layout, where.or, ' OR ', 'FALSE', params)
  return compileCondition(layout, where, params)
}

function compileGroup(layout: Layout, parts: Where[], joiner: string, empty: string, params: Params): string {
  if (!Array.isArray(parts)) throw new TypeError('and/or take an array of filters')
  if (parts.length === 0) return empty
  return `(${parts.map((part) => compileWhere(layout, part, params)).join(joiner)})`
}

const RANGE_OPERATORS = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const

function compileCondition(layout: Layout, condition: Condition, params: Params): string {
  switch (condition.op) {
    case 'eq':
    case 'ne': {
      const column = layout.column(condition.field)
      assertScalar(condition.value)
      if (condition.value === null) return `${column} IS ${condition.op === 'eq' ? '' : 'NOT '}NULL`
      const key = keyOf(layout, params, condition.value)
      return condition.op === 'eq' ? `${column} = ${key}` : `${column} IS DISTINCT FROM ${key}`
    }
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      assertScalar(condition.value)
      return compileRange(layout, condition.field, condition.op, condition.value, params)
    case 'in': {
      const column = layout.column(condition.field)
      assertScalars(condition.value)
      const values = condition.value.filter((value) => value !== null)
      const parts = values.length === 0 ? [] : [`${column} = ANY (${keysOf(layout, params, values)})`]
      if (values.length < condition.value.length) parts.push(`${column} IS NULL`)
      return parts.length === 0 ? 'FALSE' : `(${parts.join(' OR ')})`
    }
    case 'containsAny': {
      const column = layout.arrayColumn(condition.field)
      assertScalars(condition.value)
      return `${column} && ${keysOf(layout, params, condition.value)}`
    }
    case 'exists': {
      layout.declared.any(condition.field)
      if (typeof condition.value !== 'boolean') throw new TypeError('exists takes true or false')
      return `${condition.value ? '' : 'NOT '}(data ? ${params.bind(condition.field)})`
    }
    default:
      throw new Error(`unknown where operator ${JSON.stringify((condition as { op?: unknown }).op)}`)
  }
}

/**
 * Range comparisons stay within the operand's JSON type: keys of one type share their first
 * character, so the other bound is that type's floor or the next one's. One column, one range.
 */
function compileRange(layout: Layout, field: string, op: keyof typeof RANGE_OPERATORS, value: Scalar, params: Params): string {
  const column = layout.column(field)
  if (value === null) return 'FALSE'
  const comparison = `${column} ${RANGE_OPERATORS[op]} ${keyOf(layout, params, value)}`
  const type = typeof value as keyof typeof TYPE_FLOOR
  if (op === 'lt' || op === 'lte') return `(${comparison} AND ${column} >= '${TYPE_FLOOR[type]}')`
  return type === 'boolean' ? comparison : `(${comparison} AND ${column} < '${Number(TYPE_FLOOR[type]) + 1}')`
}

/** A resolved sort order and the column it reads. */
export interface Ordering extends SortKey {
  column: string
}

export function resolveOrdering(layout: Layout, options: FindOptions): Ordering {
  const order = resolveOrder(options.orderBy, layout.declared.defaultOrderField, (field) => layout.column(field))
  // `id` is the default order of a collection without `createdAt`: the primary key, not a declared column.
  return { ...order, column: options.orderBy === undefined && order.field === 'id' ? 'id' : layout.column(order.field) }
}

/** The cursor of a page whose last record is `record`. */
export function cursorAfter(ordering: Ordering, record: StoredRecord): string {
  const value = ordering.column === 'id' ? record.id : record[ordering.field]
  return encodeCursor(ordering, { value: isScalar(value) ? value : null, id: record.id })
}

/**
 * The key ranges that follow `after`, in order, each binding its parameters when written. NULL
 * keys sort first ascending and last descending; row comparisons skip NULLs, so a page crossing
 * between NULL and non-NULL keys is read as two ranges, each one index seek.
 */
function rangesAfter(layout: Layout, ordering: Ordering, after: CursorKey | undefined): Array<(params: Params) => string> {
  if (after === undefined) return [() => 'TRUE']
  const { column } = ordering
  const sign = ordering.descending ? '<' : '>'
  if (after.value === null) {
    const nullsAfter = (params: Params) => `${column} IS NULL AND id ${sign} ${params.bind(after.id)}`
    return ordering.descending ? [nullsAfter] : [nullsAfter, () => `${column} IS NOT NULL`]
  }
  const { value } = after
  const keysAfter = (params: Params) =>
    `(${column}, id) ${sign} (${column === 'id' ? params.bind(value) : keyOf(layout, params, value)}, ${params.bind(after.id)})`
  return ordering.descending ? [keysAfter, () => `${column} IS NULL`] : [keysAfter]
}

/** One SELECT of a find, without its LIMIT. */
export interface FindQuery {
  sql: string
  params: unknown[]
}

/** The SELECTs that together produce a page, run in order until the page is full. */
export function findQueries(layout: Layout, where: Where, options: FindOptions): { queries: FindQuery[]; ordering: Ordering } {
  const ordering = resolveOrdering(layout, options)
  const after = options.cursor === undefined ? undefined : decodeCursor(ordering, options.cursor)
  const direction = ordering.descending ? 'DESC NULLS LAST' : 'ASC NULLS FIRST'
  const idDirection = ordering.descending ? 'DESC' : 'ASC'
  const queries = rangesAfter(layout, ordering, after).map((range) => {
    const params = new Params()
    const whereSql = compileWhere(layout, where, params)
    const order = ordering.column === 'id' ? `id ${idDirection}` : `${ordering.column} ${direction}, id ${idDirection}`
    return { sql: `SELECT data FROM ${layout.table} WHERE ${whereSql} AND ${range(params)} ORDER BY ${order}`, params: params.values }
  })
  return { queries, ordering }
}

/** The query's SQL with `LIMIT n` written in (none when `n` is undefined); `n` is a checked integer. */
export function withLimit(query: FindQuery, n: number | undefined): string {
  if (n === undefined) return query.sql
  if (!Number.isSafeInteger(n)) throw new TypeError(`limit must be an integer, got ${n}`)
  return `${query.sql} LIMIT ${n}`
}
