import type { Scalar } from '../port.js'
import { assertScalar, assertScalars } from '../scalars.js'

/**
 * How JSON scalars are represented in SQLite columns that are indexed and compared.
 *
 * `json_extract` turns JSON `true`/`false` into the integers 1/0, which would make `true`
 * equal `1`. Booleans are therefore stored as one-byte BLOBs (x'01', x'00'). Strings stay TEXT
 * and numbers INTEGER/REAL, so comparisons keep the JSON type (`1` never equals `"1"`), and
 * SQLite's cross-type order (NULL < numbers < TEXT < BLOB) gives null/absent < numbers <
 * strings < booleans, the order MongoDB uses for the same types.
 *
 * @param typeExpr SQL expression yielding a `json_type` name ('true', 'integer', ...).
 * @param valueExpr SQL expression yielding the SQL value of the same JSON element.
 */
export function sqlJsonScalar(typeExpr: string, valueExpr: string): string {
  return `CASE ${typeExpr} WHEN 'true' THEN x'01' WHEN 'false' THEN x'00' ELSE ${valueExpr} END`
}

/** A value bound to a statement parameter. */
export type Bound = string | number | Buffer | null

const TRUE = Buffer.from([1])
const FALSE = Buffer.from([0])

/** Binds a query scalar in its column representation (see {@link sqlJsonScalar}). */
export function bindScalar(value: unknown): Bound {
  assertScalar(value)
  if (typeof value === 'boolean') return value ? TRUE : FALSE
  return value
}

/** Binds a list of scalars as one JSON array parameter, expanded in SQL with `json_each`. */
export function bindList(values: unknown): string {
  assertScalars(values)
  return JSON.stringify(values)
}

/** SQL selecting the elements of a list bound with {@link bindList}, in column representation. */
export const LIST_ELEMENTS = `SELECT ${sqlJsonScalar('type', 'value')} FROM json_each(?)`

/** Reads a column value back as the JSON scalar it represents. */
export function columnScalar(value: unknown): Scalar {
  if (Buffer.isBuffer(value)) return value[0] === 1
  return value as Scalar
}
