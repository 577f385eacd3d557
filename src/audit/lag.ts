/**
 * The integration lag of a chain: its records committed with their acts but not yet chained by
 * the sequencer. Shown by `GET /audit` and `didvault audit verify`; never a break of the chain.
 */
import type { StorageAdapter } from '../storage/port.js'
import { collectionOf } from '../storage/declaration.js'
import { AUDIT_APPENDS } from './records.js'

/** Committed records of a chain the sequencer has not chained yet. */
export interface ChainLag {
  /** How many. */
  records: number
  /** When the oldest was appended (wall clock, ms since the epoch). */
  oldestAppendedAt: number
}

/** `chain`'s unchained records, or undefined when every committed record is chained. */
export async function chainLag(storage: StorageAdapter, chain: string): Promise<ChainLag | undefined> {
  const appends = collectionOf(storage, AUDIT_APPENDS)
  const where = { field: 'tenantId', op: 'eq', value: chain } as const
  const { items } = await appends.find(where, { orderBy: { field: 'createdAt' }, limit: 1 })
  if (items.length === 0) return undefined
  return { records: await appends.count(where), oldestAppendedAt: items[0].createdAt }
}
