/** In-memory indexes of a collection, kept in step with its records by {@link CollectionData}. */
import type { Scalar, StoredRecord } from '../port.js'

/** A unique index: the key of the indexed values → id. */
export class UniqueIndex {
  private readonly ids = new Map<string, string>()

  constructor(readonly fields: string[]) {}

  /** The key of `record`, or undefined when a field is null or absent (not constrained). */
  key(record: StoredRecord): string | undefined {
    const values = this.fields.map((field) => record[field])
    return values.some((value) => value === undefined || value === null) ? undefined : JSON.stringify(values)
  }

  owner(key: string): string | undefined {
    return this.ids.get(key)
  }

  add(record: StoredRecord): void {
    const key = this.key(record)
    if (key !== undefined) this.ids.set(key, record.id)
  }

  remove(record: StoredRecord): void {
    const key = this.key(record)
    if (key !== undefined && this.ids.get(key) === record.id) this.ids.delete(key)
  }
}

/** Typed key of a value: `1`, `"1"` and `true` differ; null and absent share one (as `eq null` does). */
export function valueKey(value: unknown): string {
  return value === undefined ? 'null' : JSON.stringify(value)
}

/**
 * Equality index of one declared field (or of the elements of an array field): value key → ids.
 * Finds use it to narrow the records they test, so lookups stay O(matches), not O(collection).
 */
export class FieldIndex {
  private readonly ids = new Map<string, Set<string>>()

  constructor(
    readonly field: string,
    private readonly elements: boolean,
  ) {}

  private keys(record: StoredRecord): Iterable<string> {
    const value = record[this.field]
    if (!this.elements) return [valueKey(value)]
    return Array.isArray(value) ? new Set(value.map(valueKey)) : []
  }

  add(record: StoredRecord): void {
    for (const key of this.keys(record)) {
      let ids = this.ids.get(key)
      if (ids === undefined) this.ids.set(key, (ids = new Set()))
      ids.add(record.id)
    }
  }

  remove(record: StoredRecord): void {
    for (const key of this.keys(record)) {
      const ids = this.ids.get(key)
      ids?.delete(record.id)
      if (ids?.size === 0) this.ids.delete(key)
    }
  }

  /** Ids of the records holding (or, for an array field, containing) any of `values`. Read-only. */
  lookup(values: Scalar[]): ReadonlySet<string> {
    if (values.length === 1) return this.ids.get(valueKey(values[0])) ?? new Set()
    const union = new Set<string>()
    for (const value of values) for (const id of this.ids.get(valueKey(value)) ?? []) union.add(id)
    return union
  }
}
