/**
 * A collection seen through one tenant: every read is filtered by `tenantId`, every write
 * checks it. Operations only ever get scoped collections, so no code path can read or change
 * another tenant's records by forgetting a filter.
 */
import { invalid } from '../errors.js'
import type { Collection, FindOptions, Page, StorageAdapter, StoredRecord, Where } from './port.js'

export interface TenantRecord extends StoredRecord {
  tenantId: string
}

export class TenantCollection<T extends TenantRecord> {
  constructor(
    private readonly inner: Collection<T>,
    readonly tenantId: string,
  ) {}

  #scoped(where?: Where): Where {
    const mine: Where = { field: 'tenantId', op: 'eq', value: this.tenantId }
    return where ? { and: [mine, where] } : mine
  }

  async get(id: string): Promise<T | undefined> {
    const record = await this.inner.get(id)
    return record && record.tenantId === this.tenantId ? record : undefined
  }

  findOne(where: Where): Promise<T | undefined> {
    return this.inner.findOne(this.#scoped(where))
  }

  find(where?: Where, options?: FindOptions): Promise<Page<T>> {
    return this.inner.find(this.#scoped(where), options)
  }

  /**
   * Every match, page by page. More than `max` matches is a 422 asking for a narrower filter:
   * a list is never silently cut short.
   */
  async all(where?: Where, max = 100_000): Promise<T[]> {
    const out: T[] = []
    let cursor: string | undefined
    do {
      const page = await this.inner.find(this.#scoped(where), { limit: 1_000, cursor })
      out.push(...page.items)
      cursor = page.nextCursor
      if (out.length > max) throw invalid(`more than ${max} records match: narrow the filter`)
    } while (cursor)
    return out
  }

  count(where?: Where): Promise<number> {
    return this.inner.count(this.#scoped(where))
  }

  insert(record: T): Promise<void> {
    if (record.tenantId !== this.tenantId) throw new Error('record of another tenant')
    return this.inner.insert(record)
  }

  /** Deletes this tenant's records that match. */
  deleteMany(where: Where): Promise<number> {
    return this.inner.deleteMany(this.#scoped(where))
  }

  async update(id: string, patch: Partial<T>): Promise<T | undefined> {
    if ('tenantId' in patch && patch.tenantId !== this.tenantId) throw new Error('record of another tenant')
    if (!(await this.get(id))) return undefined
    return this.inner.update(id, patch)
  }

  async delete(id: string): Promise<boolean> {
    if (!(await this.get(id))) return false
    return this.inner.delete(id)
  }

  async increment(id: string, field: string, by = 1): Promise<number> {
    if (!(await this.get(id))) throw new Error('no such record')
    return this.inner.increment(id, field, by)
  }
}

/** The service's collections for one tenant, over a storage adapter (or a transaction's). */
export function tenantCollection<T extends TenantRecord>(storage: StorageAdapter, name: string, tenantId: string) {
  return new TenantCollection<T>(storage.collection<T>(name), tenantId)
}
