/**
 * A collection seen through one tenant: every read is filtered by `tenantId`, every write
 * checks it. Operations only ever get scoped collections, so no code path can read or change
 * another tenant's records by forgetting a filter.
 */
import type { Collection, FindOptions, Page, StorageAdapter, StoredRecord, Where } from './port.js'

export interface TenantRecord extends StoredRecord {
  tenantId: string
}

/** How many records {@link TenantCollection.all} reads per round trip. */
const ALL_PAGE_SIZE = 1_000

export class TenantCollection<T extends TenantRecord> {
  constructor(
    private readonly inner: Collection<T>,
    readonly tenantId: string,
  ) {}

  #scoped(where?: Where): Where {
    const mine: Where = { field: 'tenantId', op: 'eq', value: this.tenantId }
    return where ? { and: [mine, where] } : mine
  }

  #assertMine(record: { tenantId?: unknown }): void {
    if (record.tenantId !== this.tenantId) throw new Error('record of another tenant')
  }

  /** The record `id` of this tenant; undefined when it does not exist or belongs to another tenant. */
  async get(id: string): Promise<T | undefined> {
    const record = await this.inner.get(id)
    return record && record.tenantId === this.tenantId ? record : undefined
  }

  /** The first match in the default order (`createdAt`, then `id`). */
  findOne(where: Where): Promise<T | undefined> {
    return this.inner.findOne(this.#scoped(where))
  }

  /**
   * One page of matches. Every list a caller sees is read this way, with `limit`, and the
   * returned `nextCursor` passed back as `cursor` for the next page.
   *
   * @throws {InvalidCursorError} when `options.cursor` is not a `nextCursor` issued for the same `orderBy`.
   */
  find(where?: Where, options?: FindOptions): Promise<Page<T>> {
    return this.inner.find(this.#scoped(where), options)
  }

  /**
   * Every match, read page by page, however many there are (never cut short). For sets
   * bounded by nature (a vault's wallets, a wallet's delegate keys); a list exposed to callers
   * must use {@link find} with `limit` and `cursor` instead.
   */
  async all(where?: Where, options: Pick<FindOptions, 'orderBy'> = {}): Promise<T[]> {
    const out: T[] = []
    let cursor: string | undefined
    do {
      const page = await this.inner.find(this.#scoped(where), { orderBy: options.orderBy, limit: ALL_PAGE_SIZE, cursor })
      out.push(...page.items)
      cursor = page.nextCursor
    } while (cursor !== undefined)
    return out
  }

  count(where?: Where): Promise<number> {
    return this.inner.count(this.#scoped(where))
  }

  insert(record: T): Promise<void> {
    this.#assertMine(record)
    return this.inner.insert(record)
  }

  /**
   * Inserts every record in one transaction or round trip (see {@link Collection.insertMany}).
   * Throws, writing nothing, when any record belongs to another tenant.
   */
  async insertMany(records: T[]): Promise<void> {
    for (const record of records) this.#assertMine(record)
    await this.inner.insertMany(records)
  }

  /** Shallow-merges `patch` into this tenant's record `id`; undefined when there is none. The tenant cannot be changed. */
  async update(id: string, patch: Partial<T>): Promise<T | undefined> {
    if ('tenantId' in patch) this.#assertMine(patch)
    if (!(await this.get(id))) return undefined
    return this.inner.update(id, patch)
  }

  /** Deletes this tenant's record `id`; false when there is none. */
  async delete(id: string): Promise<boolean> {
    if (!(await this.get(id))) return false
    return this.inner.delete(id)
  }

  /**
   * Deletes every record of this tenant matching `where`, in one statement or round trip;
   * returns how many. `{ and: [] }` matches all of the tenant's records, never another's.
   */
  deleteMany(where: Where): Promise<number> {
    return this.inner.deleteMany(this.#scoped(where))
  }

  /** Atomically adds `by` to the numeric `field` of this tenant's record `id`; throws when there is none. */
  async increment(id: string, field: string, by = 1, set?: Partial<T>, atMost?: number): Promise<number> {
    if (set && 'tenantId' in set) this.#assertMine(set)
    if (!(await this.get(id))) throw new Error('no such record')
    return this.inner.increment(id, field, by, set, atMost)
  }
}

/** The service's collections for one tenant, over a storage adapter (or a transaction's). */
export function tenantCollection<T extends TenantRecord>(storage: StorageAdapter, name: string, tenantId: string) {
  return new TenantCollection<T>(storage.collection<T>(name), tenantId)
}
