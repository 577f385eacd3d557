/** Identifiers the PostgreSQL adapter interpolates into SQL: validated, then quoted (values are always bound). */
import { createHash } from 'node:crypto'

/** Collection names: letters and digits separated by single `_` (as on SQLite), at most 63 bytes (PostgreSQL's limit). */
const COLLECTION_NAME = /^[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)*$/
const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/
const MAX_IDENTIFIER = 63

/** Quotes an SQL identifier. */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`
}

/** Throws unless `name` is a valid collection name. */
export function assertCollectionName(name: string): void {
  if (!COLLECTION_NAME.test(name) || name.length > MAX_IDENTIFIER) {
    throw new Error(`invalid collection name ${JSON.stringify(name)}: use letters and digits separated by single _ (at most 63)`)
  }
}

/** Throws unless `field` can be a JSON key literal and part of a column name. */
export function assertFieldName(field: string): void {
  if (!FIELD_NAME.test(field) || field.length > MAX_IDENTIFIER - 2) {
    throw new Error(`invalid field name ${JSON.stringify(field)}: use letters, digits and _`)
  }
}

/** A schema name as given (any identifier), quoted. */
export function quoteSchema(schema: string): string {
  if (schema === '' || schema.length > MAX_IDENTIFIER) throw new Error(`invalid schema name ${JSON.stringify(schema)}`)
  return quoteIdentifier(schema)
}

/** A stable index name within PostgreSQL's 63 bytes: `dv_` and a digest of the collection, kind and columns. */
export function indexName(collection: string, kind: string, fields: readonly string[]): string {
  return `dv_${createHash('sha256')
    .update(`${collection}/${kind}/${fields.join(',')}`)
    .digest('hex')
    .slice(0, 24)}`
}
