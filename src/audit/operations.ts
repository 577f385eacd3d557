/** Get Audit Records: one page of the caller's tenant's chain, filtered. */
import type { z } from 'zod'
import type { Caller } from '../auth/context.js'
import { invalid } from '../errors.js'
import { MAX_PAGE } from '../operations/schemas.js'
import { tenantCollectionOf } from '../storage/declaration.js'
import type { StorageAdapter, Where } from '../storage/port.js'
import { entryOf } from './hash.js'
import { AUDIT_RECORDS } from './records.js'
import type { AuditEntry, getAuditQuery } from './schemas.js'

/** The filters of a query, as one storage filter (each served by an index beginning with `tenantId`). */
function auditFilter(q: z.output<typeof getAuditQuery>): Where {
  const filters: Where[] = []
  if (q.action !== undefined) filters.push({ field: 'action', op: 'eq', value: q.action })
  if (q.target !== undefined) filters.push({ field: 'targetId', op: 'eq', value: q.target })
  if (q.actor !== undefined)
    filters.push(
      q.actor.startsWith('did:')
        ? { field: 'actorDids', op: 'containsAny', value: [q.actor] }
        : { field: 'apiKeyId', op: 'eq', value: q.actor },
    )
  const from = q.from === undefined ? undefined : Date.parse(q.from)
  const to = q.to === undefined ? undefined : Date.parse(q.to)
  if (from !== undefined && to !== undefined && from > to) throw invalid('from: must not be after to')
  if (from !== undefined) filters.push({ field: 'time', op: 'gte', value: from })
  if (to !== undefined) filters.push({ field: 'time', op: 'lte', value: to })
  return { and: filters }
}

export async function getAuditRecords(
  ctx: { storage: StorageAdapter },
  caller: Caller,
  q: z.output<typeof getAuditQuery>,
): Promise<{ records: AuditEntry[]; nextCursor?: string }> {
  const page = await tenantCollectionOf(ctx.storage, AUDIT_RECORDS, caller.tenantId).find(auditFilter(q), {
    orderBy: { field: 'seq' },
    limit: q.limit ?? MAX_PAGE,
    cursor: q.cursor,
  })
  const result: { records: AuditEntry[]; nextCursor?: string } = { records: page.items.map(entryOf) }
  if (page.nextCursor !== undefined) result.nextCursor = page.nextCursor
  return result
}
