/** Validates a collection's queries and compiles them to predicates and comparators of records. */
import { DeclaredFields } from '../declared-fields.js'
import { resolveOrder, type SortKey } from '../paging.js'
import type { Condition, OrderBy, Scalar, StoredRecord, Where } from '../port.js'
import { assertScalar, assertScalars } from '../scalars.js'
import { compareStrings, compareValues, equals, inRange } from './values.js'

export type Predicate = (record: StoredRecord) => boolean

/** Field declarations of one collection, used to validate and compile every query. */
export class Schema extends DeclaredFields {
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
    const compare = (a: StoredRecord, b: StoredRecord): number => sign * (compareValues(a[field], b[field]) || compareStrings(a.id, b.id))
    return { ...order, compare }
  }
}
