import type { CollectionSpec } from '../port.js'
import { DeclaredFields } from '../declared-fields.js'
import { assertCollectionName, assertFieldName, indexName, quoteIdentifier } from './names.js'

/** One index the layout wants on the collection's table. */
export interface IndexLayout {
  name: string
  unique: boolean
  /** Declared fields the index covers (named by {@link UniqueConstraintError}s). */
  fields: string[]
  /** Index key expressions, in order. */
  columns: string[]
  /** `btree` or `gin` (array fields). */
  method: 'btree' | 'gin'
}

/**
 * How one collection maps onto PostgreSQL: table `<schema>."<name>"(id text COLLATE "C", data
 * jsonb)`, one STORED generated column `k_<field>` (the sortable key of `data -> field`, see
 * ./keys) per scalar field and `a_<field>` (the keys of its elements) per array field. Queries
 * resolve field names through this class, which throws for undeclared ones.
 */
export class Layout {
  readonly name: string
  /** The schema-qualified, quoted table. */
  readonly table: string
  readonly declared: DeclaredFields
  readonly indexes: readonly IndexLayout[]

  constructor(
    readonly spec: CollectionSpec,
    readonly schema: string,
  ) {
    assertCollectionName(spec.name)
    this.name = spec.name
    this.table = `${schema}.${quoteIdentifier(spec.name)}`
    this.declared = new DeclaredFields(spec, assertFieldName)
    const overlap = [...this.declared.arrayFields].find((field) => this.declared.fields.has(field))
    if (overlap) throw new Error(`field "${overlap}" of "${spec.name}" is declared both in fields and arrayFields`)
    this.indexes = this.planIndexes()
  }

  /** The quoted key column of a declared scalar field. */
  column(field: string): string {
    return quoteIdentifier(`k_${this.declared.scalar(field)}`)
  }

  /** The quoted keys column of a declared array field. */
  arrayColumn(field: string): string {
    return quoteIdentifier(`a_${this.declared.array(field)}`)
  }

  /** The declared fields of the index PostgreSQL names in a unique violation (the primary key is `id`). */
  fieldsOfIndex(name: string | undefined): string[] {
    return this.indexes.find((index) => index.name === name)?.fields ?? ['id']
  }

  /**
   * Every scalar field gets a btree on (key NULLS FIRST, id): equality and range filters seek it,
   * and the pagination order walks it (backwards for descending pages). Array fields get a GIN
   * index for `containsAny` (`&&`). Declared unique indexes are exactly their columns (NULL keys
   * never conflict); other compound ones get `id` appended, so "filter by A, order by B" pages
   * straight off (A, B, id).
   */
  private planIndexes(): IndexLayout[] {
    const key = (field: string) => `${this.column(field)} NULLS FIRST`
    const indexes: IndexLayout[] = [...this.declared.fields].map((field) => ({
      name: indexName(this.name, 'f', [field]),
      unique: false,
      fields: [field],
      columns: [key(field), 'id'],
      method: 'btree' as const,
    }))
    for (const field of this.declared.arrayFields) {
      indexes.push({
        name: indexName(this.name, 'a', [field]),
        unique: false,
        fields: [field],
        columns: [this.arrayColumn(field)],
        method: 'gin',
      })
    }
    for (const index of this.spec.indexes) {
      const columns = index.fields.map(key)
      if (index.unique) {
        indexes.push({ name: indexName(this.name, 'ux', index.fields), unique: true, fields: index.fields, columns, method: 'btree' })
      } else if (index.fields.length > 1) {
        const name = indexName(this.name, 'ix', index.fields)
        indexes.push({ name, unique: false, fields: index.fields, columns: [...columns, 'id'], method: 'btree' })
      }
    }
    return indexes
  }
}
