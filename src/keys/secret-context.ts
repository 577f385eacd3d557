/** The context bound into a secret's envelope (its associated data): the record and field it belongs to. */

/**
 * A JSON array, not a joined string: a tenant id or record id containing a separator cannot make
 * two different records share a context. An envelope copied onto another record, field or
 * tenant does not open.
 */
export function secretContext(collection: string, record: { tenantId: string; id: string }, field: string): string {
  return JSON.stringify([record.tenantId, collection, record.id, field])
}
