import type { CollectionSpec } from '../port.js'
import { sqlJsonScalar } from './encoding.js'

/**
 * Names are interpolated into DDL and JSON paths, so they are validated against these
 * patterns first (values are always bound as parameters).
 * Collection names never contain `__` nor end with `_`, so `<collection>__<field>` side
 * tables can never collide with a collection table or with each other.
 */
const COLLECTION_NAME = /^[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)*$/
const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

/** Quotes an SQL identifier. */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`
}

/** Throws unless `field` can be used in a JSON path and a column name. */
export function assertFieldName(field: string): void {
  if (!FIELD_NAME.test(field)) throw new Error(`invalid field name ${JSON.stringify(field)}: use letters, digits and _`)
}

/** The `'$.field'` JSON path literal of a validated field name. */
export function jsonPath(field: string): string {
  assertFieldName(field)
  return `'$.${field}'`
}

/** One SQL index the layout wants. */
export interface IndexLayout {
  name: string
  unique: boolean
  /** Declared fields the index covers (for error messages). */
  fields: string[]
  /** Quoted columns, in index order. */
  columns: string[]
}

/**
 * How one collection maps onto SQLite: table `"<name>"(id, data)`, one VIRTUAL generated
 * column `f_<field>` per scalar field, one side table `"<name>__<field>"(id, value)` per array
 * field. Every query resolves field names through this class, which throws for undeclared ones.
 */
export class Layout {
  readonly name: string
  readonly table: string
  /** The order used when a find names none: `createdAt` when declared, else `id`. */
  readonly defaultOrderField: string
  readonly scalarFields: readonly string[]
  readonly arrayFields: readonly string[]
  readonly indexes: readonly IndexLayout[]
  /** Quoted columns and side tables by field, resolved once (every query resolves its fields). */
  readonly #columns = new Map<string, string>()
  readonly #sideTables = new Map<string, string>()

  constructor(readonly spec: CollectionSpec) {
    if (!COLLECTION_NAME.test(spec.name)) {
      throw new Error(`invalid collection name ${JSON.stringify(spec.name)}: use letters and digits separated by single _`)
    }
    this.name = spec.name
    this.table = quoteIdentifier(spec.name)
    this.scalarFields = [...new Set(spec.fields)]
    this.arrayFields = [...new Set(spec.arrayFields ?? [])]
    for (const field of [...this.scalarFields, ...this.arrayFields]) assertFieldName(field)
    const overlap = this.arrayFields.find((field) => this.scalarFields.includes(field))
    if (overlap) throw new Error(`field "${overlap}" of "${spec.name}" is declared both in fields and arrayFields`)
    this.defaultOrderField = this.scalarFields.includes('createdAt') ? 'createdAt' : 'id'
    for (const field of this.scalarFields) this.#columns.set(field, quoteIdentifier(columnName(field)))
    for (const field of this.arrayFields) this.#sideTables.set(field, quoteIdentifier(sideTableName(spec.name, field)))
    this.indexes = this.planIndexes()
  }

  /** The quoted generated column of a declared scalar field. */
  column(field: string): string {
    const column = this.#columns.get(field)
    if (column === undefined) {
      throw new Error(`unknown field "${field}" in collection "${this.name}" (declared fields: ${this.scalarFields.join(', ')})`)
    }
    return column
  }

  /** The quoted side table of a declared array field. */
  sideTable(field: string): string {
    const side = this.#sideTables.get(field)
    if (side === undefined) {
      throw new Error(
        `field "${field}" of collection "${this.name}" is not a declared array field (arrayFields: ${this.arrayFields.join(', ')})`,
      )
    }
    return side
  }

  /** The JSON path of a declared scalar or array field. */
  path(field: string): string {
    if (!this.scalarFields.includes(field) && !this.arrayFields.includes(field)) {
      throw new Error(`unknown field "${field}" in collection "${this.name}"`)
    }
    return jsonPath(field)
  }

  /** Maps a column name from an SQLite constraint message back to its field. */
  fieldOfColumn(column: string): string {
    return column.startsWith('f_') ? column.slice(2) : column
  }

  /**
   * Every scalar field gets an index on (column, id): equality and range filters seek it, and
   * `ORDER BY column, id` (the pagination order) walks it without sorting. Declared indexes
   * are added as declared: unique ones on exactly their columns, others with `id` appended
   * so that "filter by A, order by B" pages straight off an (A, B, id) index.
   */
  private planIndexes(): IndexLayout[] {
    const indexes: IndexLayout[] = this.scalarFields.map((field) => ({
      name: `${this.name}/f/${field}`,
      unique: false,
      fields: [field],
      columns: [this.column(field), 'id'],
    }))
    for (const index of this.spec.indexes) {
      const columns = index.fields.map((field) => this.column(field))
      if (index.unique) {
        indexes.push({ name: `${this.name}/ux/${index.fields.join(',')}`, unique: true, fields: index.fields, columns })
      } else if (index.fields.length > 1) {
        indexes.push({
          name: `${this.name}/ix/${index.fields.join(',')}`,
          unique: false,
          fields: index.fields,
          columns: [...columns, 'id'],
        })
      }
    }
    return indexes
  }
}

/** Unquoted name of a scalar field's generated column. */
export function columnName(field: string): string {
  return `f_${field}`
}

/** The generated-column expression of a scalar field (see {@link sqlJsonScalar}). */
export function columnExpression(field: string): string {
  const path = jsonPath(field)
  return sqlJsonScalar(`json_type(data, ${path})`, `json_extract(data, ${path})`)
}

/** Unquoted name of an array field's side table. */
export function sideTableName(collection: string, field: string): string {
  return `${collection}__${field}`
}
