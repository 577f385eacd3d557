/**
 * Walks audit chains and checks them: every record's hash recomputed, `seq` 1, 2, 3… without a
 * gap, each `prevHash` the hash of the record before (the first one's 64 zeros), and the chain's
 * head naming its last seq and hash (so a cut tail shows). Records committed but not chained yet
 * are the chain's lag, reported beside it, never a break. Reads only. `didvault audit verify` and
 * the crash harness call it.
 */
import type { StorageAdapter, Where } from '../storage/port.js'
import { collectionOf } from '../storage/declaration.js'
import { hashOf } from './hash.js'
import { chainLag, type ChainLag } from './lag.js'
import { AUDIT_APPENDS, AUDIT_HEADS, AUDIT_RECORDS, GENESIS_HASH, type AuditRecord } from './records.js'

/** The first break of a chain: the record where it shows, and what is wrong there. */
export interface ChainBreak {
  tenant: string
  seq: number
  problem: string
  /** The act of the record where it shows, as stored (when that record is there): what an operator looks for. */
  act?: { action: string; targetType: string; targetId: string }
}

export interface ChainReport {
  tenant: string
  /** Records walked (up to the break). */
  records: number
  /** Undefined when the chain is intact. */
  break?: ChainBreak
  /** Records committed but not chained yet; undefined when there are none. */
  unchained?: ChainLag
}

const PAGE = 1_000

/** Checks one chain (a tenant id, or `@system`). */
export async function verifyChain(storage: StorageAdapter, tenant: string): Promise<ChainReport> {
  const report = await walkChain(storage, tenant)
  const unchained = await chainLag(storage, tenant)
  return unchained === undefined ? report : { ...report, unchained }
}

/** Times the walk follows a head that moved on while it read (a chain being extended) before it stops following. */
const HEAD_ROUNDS = 10

/**
 * Reads the records first and the head after them, so the head is never older than a record read: a
 * sequencer moves records and the head in one transaction, and only forward. A head behind the
 * walk's end means records beyond the head (a break). A head ahead of it may mean records chained
 * meanwhile: the walk reads on, checking that head's hash when it reaches its seq; if it cannot reach
 * it, the records that head named (committed before it was read) are gone — a cut tail. A chain still
 * growing after `HEAD_ROUNDS` rounds is reported intact up to where the walk reached (a cut under such
 * load shows as a gap, the sequencer chaining on after the cut).
 */
async function walkChain(storage: StorageAdapter, tenant: string): Promise<ChainReport> {
  const records = collectionOf(storage, AUDIT_RECORDS)
  const heads = collectionOf(storage, AUDIT_HEADS)
  let expected = 1
  let prevHash = GENESIS_HASH
  /** A head read while it was ahead of the walk: its hash is checked when the walk reaches its seq. */
  let ahead: { seq: number; hash?: string } | undefined
  const broken = (seq: number, problem: string, at?: AuditRecord): ChainReport => ({
    tenant,
    records: expected - 1,
    break: { tenant, seq, problem, ...(at && { act: { action: at.action, targetType: at.targetType, targetId: at.targetId } }) },
  })
  const headHashBreak = (seq: number) => broken(seq, 'the head’s hash is not the hash of the last record')
  /** Walks the records after the last one checked; a break, or undefined. */
  const walkOn = async (): Promise<ChainReport | undefined> => {
    const where: Where = {
      and: [
        { field: 'tenantId', op: 'eq', value: tenant },
        { field: 'seq', op: 'gt', value: expected - 1 },
      ],
    }
    let cursor: string | undefined
    do {
      const page = await records.find(where, { orderBy: { field: 'seq' }, limit: PAGE, cursor })
      for (const record of page.items) {
        if (record.seq !== expected)
          return broken(
            expected,
            record.seq > expected ? `record ${expected} is missing (next is ${record.seq})` : `seq ${record.seq} repeats`,
          )
        if (record.prevHash !== prevHash) return broken(expected, 'prevHash is not the hash of the record before', record)
        if (hashOf(record) !== record.hash) return broken(expected, 'hash does not match the record (it was changed)', record)
        if (ahead?.seq === record.seq && ahead.hash !== undefined && ahead.hash !== record.hash) return headHashBreak(record.seq)
        prevHash = record.hash
        expected += 1
      }
      cursor = page.nextCursor
    } while (cursor !== undefined)
    return undefined
  }
  const cut = (headSeq: number, last: number) =>
    broken(Math.min(headSeq, last + 1), `the head names record ${headSeq}, the chain ends at ${last}`)
  for (let round = 0; ; round++) {
    const walkBreak = await walkOn()
    if (walkBreak) return walkBreak
    const last = expected - 1
    // A head read before this walk named records that were committed then: the walk must have reached them.
    if (ahead && ahead.seq > last) return cut(ahead.seq, last)
    const head = await heads.get(tenant)
    if (!head) return last === 0 ? { tenant, records: 0 } : broken(last, 'the chain has no head record')
    if (head.seq > last) {
      if (round === HEAD_ROUNDS) return { tenant, records: last }
      ahead = head
      continue
    }
    if (head.seq !== last) return cut(head.seq, last)
    if (head.hash !== undefined && head.hash !== prevHash) return headHashBreak(last)
    return { tenant, records: last }
  }
}

/** Whether `tenant` has a chain: a head, or records waiting to be chained. */
export async function chainExists(storage: StorageAdapter, tenant: string): Promise<boolean> {
  if (await collectionOf(storage, AUDIT_HEADS).get(tenant)) return true
  return (await collectionOf(storage, AUDIT_APPENDS).findOne({ field: 'tenantId', op: 'eq', value: tenant })) !== undefined
}

/** Every chain the storage holds — by their heads, in order of creation, then those with only unchained records — or the one named. */
export async function verifyChains(storage: StorageAdapter, tenant?: string): Promise<ChainReport[]> {
  if (tenant !== undefined) return [await verifyChain(storage, tenant)]
  const heads = collectionOf(storage, AUDIT_HEADS)
  const reports: ChainReport[] = []
  const seen = new Set<string>()
  let cursor: string | undefined
  do {
    const page = await heads.find({ and: [] }, { limit: PAGE, cursor })
    for (const head of page.items) {
      seen.add(head.tenantId)
      reports.push(await verifyChain(storage, head.tenantId))
    }
    cursor = page.nextCursor
  } while (cursor !== undefined)
  for (const chain of await chainsWithAppends(storage)) if (!seen.has(chain)) reports.push(await verifyChain(storage, chain))
  return reports
}

/** The chains holding unchained records (a walk of them all, in append order: normally few, the integration lag). */
async function chainsWithAppends(storage: StorageAdapter): Promise<string[]> {
  const appends = collectionOf(storage, AUDIT_APPENDS)
  const chains = new Set<string>()
  let cursor: string | undefined
  do {
    const page = await appends.find(
      { field: 'state', op: 'eq', value: 'appended' },
      { orderBy: { field: 'createdAt' }, limit: PAGE, cursor },
    )
    for (const record of page.items) chains.add(record.tenantId)
    cursor = page.nextCursor
  } while (cursor !== undefined)
  return [...chains]
}
