/**
 * The service's own status lists as its status checks read them ({@link OwnStatusLists}): an
 * entry's bit straight from storage (one read on the `(listId, index)` unique index), with the
 * list's issuer, purpose and size, which never change once it is made (kept in a bounded cache).
 * Storage is the truth the signed lists are made from, so a credential's status is known from
 * its issue and a change from its commit, whether or not the list was published since.
 */
import { collectionOf, tenantCollections } from '../storage/declaration.js'
import type { StatusContext } from './context.js'
import { STATUS_ENTRIES, STATUS_LISTS, type StatusListRecord } from './records.js'
import { BoundedCache } from './status-list-cache.js'
import type { OwnListEntry, OwnStatusLists } from './status-list-source.js'

/** Lists whose unchanging facts are kept. */
const LISTS_KEPT = 1_024

type ListFacts = Pick<StatusListRecord, 'tenantId' | 'issuer' | 'purpose' | 'size'>

export class StoredStatusLists implements OwnStatusLists {
  readonly #lists = new BoundedCache<string, ListFacts>(LISTS_KEPT)

  constructor(private readonly ctx: Pick<StatusContext, 'storage'>) {}

  async entry(listId: string, index: number): Promise<OwnListEntry | undefined> {
    const list = this.#lists.get(listId) ?? (await this.#readList(listId))
    if (list === undefined) return undefined
    const facts = { issuer: list.issuer, purpose: list.purpose, size: list.size }
    if (index >= list.size) return { ...facts, value: false, status: 0 }
    const { entries } = tenantCollections(this.ctx.storage, list.tenantId, { entries: STATUS_ENTRIES })
    const entry = await entries.findOne({
      and: [
        { field: 'listId', op: 'eq', value: listId },
        { field: 'index', op: 'eq', value: index },
      ],
    })
    return { ...facts, value: entry?.value === true, status: entry === undefined ? 0 : (entry.status ?? (entry.value ? 1 : 0)) }
  }

  async #readList(listId: string): Promise<ListFacts | undefined> {
    const list = await collectionOf(this.ctx.storage, STATUS_LISTS).get(listId)
    if (list === undefined) return undefined
    const facts = { tenantId: list.tenantId, issuer: list.issuer, purpose: list.purpose, size: list.size }
    this.#lists.set(listId, facts)
    return facts
  }
}
