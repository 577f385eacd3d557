/**
 * Walks audit chains and checks them: every record's hash recomputed, `seq` 1, 2, 3… without a
 * gap, each `prevHash` the hash of the record before (the first one's 64 zeros), and the chain's
 * head naming its last seq and hash (so a cut tail shows). Records committed but not chained yet
 * are the chain's lag, reported beside it, never a break. Reads only. `didvault audit verify` and
 * the crash harness call it.
 */
import type { StorageAdapter } from '../storage/port.js'
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

async function walkChain(storage: StorageAdapter, tenant: string): Promise<ChainReport> {
  const records = collectionOf(storage, AUDIT_RECORDS)
  const head = await collectionOf(storage, AUDIT_HEADS).get(tenant)
  let expected = 1
  let prevHash = GENESIS_HASH
  let cursor: string | undefined
  const broken = (seq: number, problem: string, at?: AuditRecord): ChainReport => ({
    tenant,
    records: expected - 1,
    break: { tenant, seq, problem, ...(at && { act: { action: at.action, targetType: at.targetType, targetId: at.targetId } }) },
  })
  do {
    const page = await records.find({ field: 'tenantId', op: 'eq', value: tenant }, { orderBy: { field: 'seq' }, limit: PAGE, cursor })
    for (const record of page.items) {
      if (record.seq !== expected)
        return broken(
          expected,
          record.seq > expected ? `record ${expected} is missing (next is ${record.seq})` : `seq ${record.seq} repeats`,
        )
      if (record.prevHash !== prevHash) return broken(expected, 'prevHash is not the hash of the record before', record)
      if (hashOf(record) !== record.hash) return broken(expected, 'hash does not match the record (it was changed)', record)
      prevHash = record.hash
      expected += 1
    }
    cursor = page.nextCursor
  } while (cursor !== undefined)
  const last = expected - 1
  if (!head) return last === 0 ? { tenant, records: 0 } : broken(last, 'the chain has no head record')
  if (head.seq !== last) return broken(Math.min(head.seq, last + 1), `the head names record ${head.seq}, the chain ends at ${last}`)
  if (head.hash !== undefined && head.hash !== prevHash) return broken(last, 'the head’s hash is not the hash of the last record')
  return { tenant, records: last }
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
