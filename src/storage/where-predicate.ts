/**
 * A {@link Where} evaluated on records already in memory, with the port's semantics (the memory
 * adapter's, which every adapter is held to by the conformance suite). For a record read by its
 * primary key: `id` is not a field a `where` may name, so a lookup by id that other filters
 * narrow reads the one record and holds it to them here. Never a substitute for a query.
 */
import { Schema } from './memory/schema.js'
import type { CollectionSpec, StoredRecord, Where } from './port.js'

/** A predicate for `where` over records of the collection `spec` (undeclared fields throw, as in a query). */
export function wherePredicate(spec: CollectionSpec, where: Where): (record: StoredRecord) => boolean {
  return new Schema(spec).compile(where)
}
