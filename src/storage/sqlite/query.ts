import { type CursorKey, decodeCursor, encodeCursor, resolveOrder, type SortKey } from '../paging.js'
import type { Condition, FindOptions, OrderBy, Scalar, Where } from '../port.js'
import { type Bound, bindList, bindScalar, columnScalar, LIST_ELEMENTS } from './encoding.js'
import type { Layout } from './layout.js'

const RANGE_OPERATORS = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const

/**
 * Compiles a {@link Where} into an SQL boolean expression over the collection's table, pushing
 * parameters onto `params`. Field names are resolved through the layout (undeclared ones throw);
 * values are always bound. `underOr`: the condition is a part of an `or` (at any depth).
 */
export function compileWhere(layout: Layout, where: Where, params: Bound[], underOr = false): string {
  if (typeof where !== 'object' || where === null) throw new TypeError('where must be an object')
  if ('and' in where) return compileGroup(layout, where.and, ' AND ', '1', params, underOr)
  if ('or' in where) return compileGroup(layout, where.or, ' OR ', '0', params, true)
  return compileCondition(layout, where, params, underOr)
}

function compileGroup(layout: Layout, parts: Where[], joiner: string, empty: string, params: Bound[], underOr: boolean): string {
  if (!Array.isArray(parts)) throw new TypeError('and/or take an array of filters')
  if (parts.length === 0) return empty
  return `(${parts.map((part) => compileWhere(layout, part, params, underOr)).join(joiner)})`
}

/**
 * Short lists are bound one parameter per element, so the planner sees how few rows they match and picks their index; long lists are
 * one JSON parameter (one cached statement for any length).
 */
const SHORT_LIST = 16

function listElements(values: unknown, params: Bound[]): string {
  if (Array.isArray(values) && values.length > 0 && values.length <= SHORT_LIST) {
    params.push(...values.map(bindScalar))
    return values.map(() => '?').join(', ')
  }
  params.push(bindList(values))
  return LIST_ELEMENTS
}

function compileCondition(layout: Layout, condition: Condition, params: Bound[], underOr: boolean): string {
  switch (condition.op) {
    case 'eq': {
      const column = layout.column(condition.field)
      if (condition.value === null) return `${column} IS NULL`
      params.push(bindScalar(condition.value))
      return `${column} = ?`
    }
    case 'ne': {
      const column = layout.column(condition.field)
      if (condition.value === null) return `${column} IS NOT NULL`
      params.push(bindScalar(condition.value))
      return `${column} IS NOT ?`
    }
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      return compileRange(layout.column(condition.field), condition.op, condition.value, params)
    case 'in': {
      const column = layout.column(condition.field)
      const listed = `${column} IN (${listElements(condition.value, params)})`
      return condition.value.includes(null) ? `(${listed} OR ${column} IS NULL)` : listed
    }
    case 'containsAny': {
      const side = layout.sideTable(condition.field)
      const elements = listElements(condition.value, params)
      const element = condition.value.includes(null) ? `(value IN (${elements}) OR value IS NULL)` : `value IN (${elements})`
      // Alone or and-ed, the matching ids are one list the planner may start from. Under an
      // `or` the rows come from another index, and that list would be built in full for each
      // query (every credential a caller ever stored, say): each row's elements are looked up.
      if (underOr) return `EXISTS (SELECT 1 FROM ${side} WHERE ${side}.id = ${layout.table}.id AND ${element})`
      return `id IN (SELECT id FROM ${side} WHERE ${element})`
    }
    case 'exists': {
      if (typeof condition.value !== 'boolean') throw new TypeError('exists takes true or false')
      return `json_type(data, ${layout.path(condition.field)}) IS ${condition.value ? 'NOT ' : ''}NULL`
    }
    default:
      throw new Error(`unknown where operator ${JSON.stringify((condition as { op?: unknown }).op)}`)
  }
}

/**
 * Range comparisons stay within the operand's JSON type (like MongoDB): the extra bound cuts
 * the other types off using SQLite's cross-type order NULL < numbers < TEXT < BLOB (booleans).
 * Both bounds are on the same column, so the index seek stays a single range.
 */
function compileRange(column: string, op: keyof typeof RANGE_OPERATORS, value: Scalar, params: Bound[]): string {
  if (value === null) return '0'
  params.push(bindScalar(value))
  const comparison = `${column} ${RANGE_OPERATORS[op]} ?`
  const upward = op === 'gt' || op === 'gte'
  if (typeof value === 'number') return upward ? `(${comparison} AND ${column} < '')` : comparison
  if (typeof value === 'string') return upward ? `(${comparison} AND ${column} < x'')` : `(${comparison} AND ${column} >= '')`
  return upward ? comparison : `(${comparison} AND ${column} >= x'')`
}

/** A resolved sort order and the column it reads. */
export interface Ordering extends SortKey {
  column: string
}

export function resolveOrdering(layout: Layout, orderBy: OrderBy | undefined): Ordering {
  const order = resolveOrder(orderBy, layout.defaultOrderField, (field) => layout.column(field))
  // `id` is the default order of a collection without `createdAt`: the primary key, not a declared column.
  return { ...order, column: orderBy === undefined && order.field === 'id' ? 'id' : layout.column(order.field) }
}

/** The cursor of a page whose last row is `row` (its ordering column read as `k`). */
export function cursorAfter(ordering: Ordering, row: { k: unknown; id: string }): string {
  return encodeCursor(ordering, { value: columnScalar(row.k), id: row.id })
}

/**
 * The key ranges that follow `after`, in order. NULL (absent) keys sort first ascending and last
 * descending; row-value comparisons skip NULLs, so a page that crosses between the NULL and the
 * non-NULL keys is read as two ranges. Each range is one index seek.
 */
function rangesAfter(ordering: Ordering, after: CursorKey | undefined): Array<{ sql: string; params: Bound[] }> {
  if (after === undefined) return [{ sql: '1', params: [] }]
  const { column } = ordering
  if (after.value === null) {
    const nullsAfter = { sql: `${column} IS NULL AND id ${ordering.descending ? '<' : '>'} ?`, params: [after.id] }
    return ordering.descending ? [nullsAfter] : [nullsAfter, { sql: `${column} IS NOT NULL`, params: [] }]
  }
  const keysAfter = {
    sql: `(${column}, id) ${ordering.descending ? '<' : '>'} (?, ?)`,
    params: [bindScalar(after.value), after.id],
  }
  return ordering.descending ? [keysAfter, { sql: `${column} IS NULL`, params: [] }] : [keysAfter]
}

/** One SELECT of a find, without its LIMIT (see {@link withLimit}). */
export interface FindQuery {
  sql: string
  params: Bound[]
}

/**
 * The query's SQL with `LIMIT n` (-1: none) written in. Not a bound parameter: SQLite plans
 * with a bound LIMIT's value and marks the statement to be prepared again whenever it is
 * bound, i.e. on every run (tens of microseconds for the access `or`, more than running it).
 * One prepared statement per limit used; `n` is an integer (checked by `assertLimit`).
 */
export function withLimit(query: FindQuery, n: number): string {
  if (!Number.isSafeInteger(n)) throw new TypeError(`limit must be an integer, got ${n}`)
  return `${query.sql} LIMIT ${n}`
}

/** The SELECTs that together produce a page, run in order until the page is full. */
export function findQueries(layout: Layout, where: Where, options: FindOptions = {}): { queries: FindQuery[]; ordering: Ordering } {
  const ordering = resolveOrdering(layout, options.orderBy)
  const after = options.cursor === undefined ? undefined : decodeCursor(ordering, options.cursor)
  const whereParams: Bound[] = []
  const whereSql = compileWhere(layout, where, whereParams)
  const direction = ordering.descending ? 'DESC' : 'ASC'
  const queries = rangesAfter(ordering, after).map((range) => ({
    sql:
      `SELECT data, ${ordering.column} AS k, id FROM ${layout.table} WHERE ${whereSql} AND ${range.sql} ` +
      `ORDER BY ${ordering.column} ${direction}, id ${direction}`,
    params: [...whereParams, ...range.params],
  }))
  return { queries, ordering }
}
