/**
 * Get Audit Records: one page of the caller's tenant's chain, filtered. The tenant's committed
 * records are chained first (at most {@link MAX_CHAINED} per request), so a page shows every act
 * committed before it unless more were pending or another process's sequencer was chaining them;
 * those still unchained are reported as `lag`. The chain has one index (tenant, seq), so a
 * filtered page is a bounded scan of the chain from the cursor on: at most {@link MAX_SCANNED}
 * records are read per request, and a page may hold fewer matches than `limit` (even none) with a
 * `nextCursor` to go on from.
 */
import type { z } from 'zod'
import type { Caller } from '../auth/context.js'
import { invalid } from '../errors.js'
import { MAX_PAGE } from '../operations/schemas.js'
import { tenantCollectionOf } from '../storage/declaration.js'
import type { StorageAdapter } from '../storage/port.js'
import { escapeText } from '../text/escape.js'
import { entryOf } from './hash.js'
import { AUDIT_RECORDS, type AuditRecord } from './records.js'
import type { AuditChainReport, AuditEntry, AuditLag, getAuditQuery } from './schemas.js'
import { verifyChain } from './verify-chain.js'
import type { AuditTrail } from './trail.js'

type Query = z.output<typeof getAuditQuery>

/** Records read per round trip, and at most per request. */
const READ = 1_000
const MAX_SCANNED = 10_000
/** Records chained at most before a page is read. */
const MAX_CHAINED = 1_000

/** Whether a record passes the query's filters. */
function matcher(q: Query): (r: AuditRecord) => boolean {
  const from = q.from === undefined ? -Infinity : Date.parse(q.from)
  const to = q.to === undefined ? Infinity : Date.parse(q.to)
  if (from > to) throw invalid('from: must not be after to')
  const actor = q.actor
  // Records hold identifiers escaped: the id as given finds its records (so does its escaped form: escaping is idempotent).
  const target = q.target === undefined ? undefined : escapeText(q.target)
  return (r) =>
    (q.action === undefined || r.action === q.action) &&
    (target === undefined || r.targetId === target) &&
    (actor === undefined || (actor.startsWith('did:') ? r.actorDids.includes(actor) : r.apiKeyId === actor)) &&
    r.time >= from &&
    r.time <= to
}

/** A cursor: the last seq a page looked at. */
const cursorOf = (seq: number) => `s${seq}`
function seqOf(cursor: string | undefined): number {
  if (cursor === undefined) return 0
  if (!/^s[1-9][0-9]{0,15}$/.test(cursor)) throw invalid('cursor: not a cursor of this listing')
  return Number(cursor.slice(1))
}

/** Get Audit Records (`GET /audit`): the matches among the next records of the chain after the cursor, oldest first. */
export async function getAuditRecords(
  ctx: { storage: StorageAdapter; audit: AuditTrail },
  caller: Caller,
  q: Query,
): Promise<{ records: AuditEntry[]; nextCursor?: string; lag?: AuditLag }> {
  const matches = matcher(q)
  const after = seqOf(q.cursor)
  await ctx.audit.chainPending(caller.tenantId, MAX_CHAINED)
  const page = await readPage(ctx.storage, caller.tenantId, matches, q.limit ?? MAX_PAGE, after)
  const lag = await ctx.audit.lag(caller.tenantId)
  if (lag === undefined) return page
  const ageMs = Math.max(0, Date.now() - lag.oldestAppendedAt)
  return { ...page, lag: { records: lag.records, oldest: new Date(lag.oldestAppendedAt).toISOString(), ageMs } }
}

/** The matches among the records of `tenant`'s chain after seq `after`, as one page. */
async function readPage(
  storage: StorageAdapter,
  tenant: string,
  matches: (r: AuditRecord) => boolean,
  limit: number,
  from: number,
): Promise<{ records: AuditEntry[]; nextCursor?: string }> {
  const chain = tenantCollectionOf(storage, AUDIT_RECORDS, tenant)
  const records: AuditEntry[] = []
  let after = from
  for (let scanned = 0; scanned < MAX_SCANNED;) {
    const { items } = await chain.find({ field: 'seq', op: 'gt', value: after }, { orderBy: { field: 'seq' }, limit: READ })
    for (const [i, record] of items.entries()) {
      after = record.seq
      if (matches(record)) records.push(entryOf(record))
      // The page is full: a cursor unless this was the chain's last record.
      if (records.length === limit)
        return i === items.length - 1 && items.length < READ ? { records } : { records, nextCursor: cursorOf(after) }
    }
    if (items.length < READ) return { records }
    scanned += items.length
  }
  return { records, nextCursor: cursorOf(after) }
}

/** Verify the Audit Chain (`GET /audit/verify`): the caller's tenant's chain, walked and checked (reads only). */
export async function verifyAuditChain(ctx: { storage: StorageAdapter }, caller: Caller): Promise<AuditChainReport> {
  const report = await verifyChain(ctx.storage, caller.tenantId)
  return {
    ok: report.break === undefined,
    records: report.records,
    ...(report.break && {
      break: { seq: report.break.seq, problem: report.break.problem, ...(report.break.act && { act: report.break.act }) },
    }),
    ...(report.unchained && {
      unchained: { records: report.unchained.records, oldest: new Date(report.unchained.oldestAppendedAt).toISOString() },
    }),
  }
}
