/** The collection, records and helpers every conformance group shares. */
import { expect } from 'vitest'
import type { Collection, CollectionSpec, OrderBy, StorageAdapter, StoredRecord, Where } from '../port.js'

/** What the factory given to the conformance suite returns. */
export interface StorageFixture {
  /** A ready adapter; the suite calls `init` and, after each test, `close`. */
  storage: StorageAdapter
  /** Called after `storage.close()` (drop a temp directory, a test database...). */
  cleanup?: () => Promise<void>
}

export interface Item extends StoredRecord {
  tenantId: string
  name?: string | null
  n?: number | string | null
  createdAt?: string
  flag?: boolean | number | null
  tags?: unknown[]
  [field: string]: unknown
}

export const ITEMS = 'conformance_items'

/** A second collection, for writes spanning collections (`insertAll`): a note's `key` is unique in its tenant. */
export const NOTES = 'conformance_notes'

export interface Note extends StoredRecord {
  tenantId: string
  key: string
}

export const SPECS: CollectionSpec[] = [
  {
    name: ITEMS,
    fields: ['name', 'tenantId', 'n', 'createdAt', 'flag'],
    arrayFields: ['tags'],
    indexes: [{ fields: ['tenantId', 'name'], unique: true }, { fields: ['tenantId', 'createdAt'] }],
  },
  { name: NOTES, fields: ['tenantId', 'key'], indexes: [{ fields: ['tenantId', 'key'], unique: true }] },
]

/** {@link SPECS} declared `cached`: an adapter with a read cache answers their reads outside transactions from it. */
export const CACHED_SPECS: CollectionSpec[] = SPECS.map((spec) => ({ ...spec, cached: true }))

const RUN = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`
let sequence = 0

/** A tenant id no other test (or earlier run) uses. */
export function freshTenant(): string {
  return `t-${RUN}-${++sequence}`
}

/** A strictly increasing ISO timestamp, so insertion order is creation order. */
export function nextCreatedAt(): string {
  return new Date(Date.UTC(2024, 0, 1) + ++sequence * 1000).toISOString()
}

export function item(tenantId: string, key: string, fields: Partial<Item> = {}): Item {
  return { id: `${tenantId}-${key}`, tenantId, createdAt: nextCreatedAt(), ...fields }
}

/** The note `key` of `tenantId` (its id: `<tenant>-note-<key>`). */
export function note(tenantId: string, key: string, id = `${tenantId}-note-${key}`): Note {
  return { id, tenantId, key }
}

export function inTenant(tenantId: string, where?: Where): Where {
  const scope: Where = { field: 'tenantId', op: 'eq', value: tenantId }
  return where === undefined ? scope : { and: [scope, where] }
}

export function ids(records: StoredRecord[]): string[] {
  return records.map((record) => record.id)
}

export function sortedIds(records: StoredRecord[]): string[] {
  return ids(records).sort()
}

export function idsOf(tenantId: string, keys: string[]): string[] {
  return keys.map((key) => `${tenantId}-${key}`).sort()
}

/** Reads every page of a find and returns the concatenated records. */
export async function readAllPages(items: Collection<Item>, where: Where, limit: number, orderBy?: OrderBy): Promise<Item[]> {
  const all: Item[] = []
  let cursor: string | undefined
  for (let pages = 0; pages < 1000; pages++) {
    const page = await items.find(where, { limit, orderBy, cursor })
    expect(page.items.length).toBeLessThanOrEqual(limit)
    all.push(...page.items)
    if (page.nextCursor === undefined) return all
    expect(page.items).toHaveLength(limit)
    cursor = page.nextCursor
  }
  throw new Error('pagination did not terminate')
}
