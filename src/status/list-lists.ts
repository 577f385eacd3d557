/**
 * List Status Lists (`GET /status-lists`): the caller's tenant's lists, oldest first, one page, each described from its
 * record (the stored signed list's date and ETag included) and, when asked, with its current bits read from its set
 * entries (the index on `listId`, `value`).
 */
import type { z } from 'zod'
import type { Caller } from '../auth/context.js'
import { MAX_PAGE } from '../operations/schemas.js'
import { tenantCollectionOf } from '../storage/declaration.js'
import type { StorageAdapter } from '../storage/port.js'
import { listUrlOf } from './list-url.js'
import { mechanismOf } from './mechanisms/index.js'
import { STATUS_ENTRIES, STATUS_LISTS, type StatusListRecord } from './records.js'
import type { listStatusListsQuery, StatusListSummary, statusListsPage } from './schemas.js'
import { isDirty } from './sign-list.js'

/** Set entries read per round trip when a list's bits are asked for. */
const ENTRIES_PAGE = 1_000

const iso = (ms: number) => new Date(ms).toISOString()

export async function listStatusLists(
  ctx: { storage: StorageAdapter },
  caller: Caller,
  q: z.output<typeof listStatusListsQuery>,
): Promise<z.output<typeof statusListsPage>> {
  const lists = tenantCollectionOf(ctx.storage, STATUS_LISTS, caller.tenantId)
  const page = await lists.find(undefined, { limit: q.limit ?? MAX_PAGE, cursor: q.cursor })
  const summaries: StatusListSummary[] = []
  for (const list of page.items) {
    const summary = summaryOf(list)
    summaries.push(q.withBits === true ? { ...summary, bits: await bitsOf(ctx.storage, caller.tenantId, list) } : summary)
  }
  return { lists: summaries, ...(page.nextCursor !== undefined && { nextCursor: page.nextCursor }) }
}

function summaryOf(list: StatusListRecord): StatusListSummary {
  return {
    id: list.id,
    url: listUrlOf(list.baseUrl, list.id),
    purpose: list.purpose,
    format: list.format,
    mechanism: mechanismOf(list.format).name as StatusListSummary['mechanism'],
    size: list.size,
    allocated: list.allocated,
    full: list.full,
    issuer: list.issuer,
    createdAt: iso(list.createdAt),
    updatedAt: iso(list.changedAt ?? list.createdAt),
    ...(list.signedAt !== undefined && list.credential !== undefined && { signedAt: iso(list.signedAt) }),
    ...(list.expiresAt !== undefined && { expiresAt: iso(list.expiresAt) }),
    ...(list.etag !== undefined && { etag: list.etag }),
    pending: list.credential === undefined || isDirty(list),
  }
}

/** The list's current statuses: bit `i` (most significant first) set when entry `i`'s status is not 0; base64url. */
async function bitsOf(storage: StorageAdapter, tenantId: string, list: StatusListRecord): Promise<string> {
  const bytes = new Uint8Array(Math.ceil(list.size / 8))
  const entries = tenantCollectionOf(storage, STATUS_ENTRIES, tenantId)
  let cursor: string | undefined
  do {
    const page = await entries.find(
      {
        and: [
          { field: 'listId', op: 'eq', value: list.id },
          { field: 'value', op: 'eq', value: true },
        ],
      },
      { limit: ENTRIES_PAGE, cursor },
    )
    for (const entry of page.items) if (entry.index >= 0 && entry.index < list.size) bytes[entry.index >> 3] |= 0x80 >> (entry.index & 7)
    cursor = page.nextCursor
  } while (cursor !== undefined)
  return Buffer.from(bytes).toString('base64url')
}
