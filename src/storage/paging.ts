/**
 * Ordering, limits and cursors of `find`, the same for every adapter: one resolution of
 * `orderBy`, one check of `limit`, one cursor codec.
 *
 * A cursor is the base64url JSON of the ordering it was issued for and the (value, id) key of
 * the last record of its page; the next page starts strictly after that key. Decoding accepts
 * only the exact encoding this module produces, so a truncated, edited or foreign cursor is an
 * {@link InvalidCursorError}, never a silently different page.
 */
import { InvalidCursorError, type OrderBy, type Scalar } from './port.js'
import { isScalar } from './scalars.js'

/** A resolved ordering: by `field`, ties broken by `id` in the same direction. */
export interface SortKey {
  field: string
  descending: boolean
}

/**
 * Resolves `orderBy` (default: `defaultField` ascending). `check` throws for a field the
 * collection does not declare.
 */
export function resolveOrder(orderBy: OrderBy | undefined, defaultField: string, check: (field: string) => unknown): SortKey {
  const direction = orderBy?.direction ?? 'asc'
  if (direction !== 'asc' && direction !== 'desc') throw new Error(`invalid order direction ${JSON.stringify(direction)}`)
  const field = orderBy === undefined ? defaultField : orderBy.field
  if (orderBy !== undefined) check(field)
  return { field, descending: direction === 'desc' }
}

/** Throws unless `limit` is absent or a positive safe integer. */
export function assertLimit(limit: number | undefined): void {
  if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 1))
    throw new RangeError(`limit must be a positive integer, got ${limit}`)
}

/** Where a page ended: the ordered value (null when absent or not a scalar) and the id of its last record. */
export interface CursorKey {
  value: Scalar
  id: string
}

interface CursorPayload {
  f: string
  d: 'asc' | 'desc'
  v: Scalar
  id: string
}

function payloadOf(order: SortKey, key: CursorKey): CursorPayload {
  return { f: order.field, d: order.descending ? 'desc' : 'asc', v: key.value, id: key.id }
}

function encodePayload(payload: CursorPayload): string {
  return Buffer.from(JSON.stringify(payload)).toString('base64url')
}

/** The opaque `nextCursor` of a page ordered by `order` whose last record has `key`. */
export function encodeCursor(order: SortKey, key: CursorKey): string {
  return encodePayload(payloadOf(order, key))
}

/**
 * The key a cursor carries. Throws {@link InvalidCursorError} when `cursor` is not exactly
 * what {@link encodeCursor} produced, or was issued for another ordering.
 */
export function decodeCursor(order: SortKey, cursor: unknown): CursorKey {
  if (typeof cursor !== 'string' || cursor === '') throw new InvalidCursorError('invalid cursor: not a cursor this storage issued')
  let payload: unknown
  try {
    payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
  } catch {
    throw new InvalidCursorError('invalid cursor: not a cursor this storage issued')
  }
  const { f, d, v, id } = (payload ?? {}) as Partial<CursorPayload>
  const wellFormed =
    typeof f === 'string' &&
    (d === 'asc' || d === 'desc') &&
    isScalar(v) &&
    typeof id === 'string' &&
    id !== '' &&
    // Only the canonical encoding: rejects extra fields, reordered keys, padding and stray characters.
    encodePayload({ f, d, v, id }) === cursor
  if (!wellFormed) throw new InvalidCursorError('invalid cursor: not a cursor this storage issued')
  if (f !== order.field || d !== (order.descending ? 'desc' : 'asc'))
    throw new InvalidCursorError('invalid cursor: it was issued for a different orderBy')
  return { value: v, id }
}
