/**
 * Change Credential Status (`POST /claims/status`): each item names entries — of a stored
 * credential (`_id`), of a credential `id`, or one by `statusListCredential` + `statusListIndex` —
 * and sets their bit. Every entry is checked (found in this tenant, allocated, the caller controls
 * its issuer, revocation is final) before any is written; a change writes the entry, its list's
 * version and its change-log record in one transaction, and schedules the list's signature.
 */
import { decodeJwt } from '../proofs/jwt-verifier.js'
import { randomUUID } from 'node:crypto'
import type { Caller } from '../auth/context.js'
import { invalid, notFound } from '../errors.js'
import { itemError } from '../operations/batch.js'
import { CREDENTIALS } from '../credentials/records.js'
import { readerFacts } from '../credentials/reader-facts.js'
import { CREDENTIAL_RULES } from '../credentials/policy.js'
import { decide } from '../auth/policy-engine.js'
import { tenantCollections } from '../storage/declaration.js'
import { assertChangesStatus } from './access.js'
import type { StatusContext } from './context.js'
import { listIdOf, listUrlOf } from './list-url.js'
import { STATUS_CHANGES, STATUS_ENTRIES, STATUS_LISTS, type StatusEntryRecord, type StatusListRecord } from './records.js'
import type { ChangeStatusInput, StatusItem, changeStatusResponse } from './schemas.js'
import type { z } from 'zod'

type Ctx = Pick<StatusContext, 'callers' | 'config' | 'now' | 'onError' | 'registries' | 'statusPublisher' | 'storage'>
type Target = { list: StatusListRecord; entry: StatusEntryRecord }

const OPERATION = 'Change Credential Status'

export async function changeStatus(ctx: Ctx, caller: Caller, input: ChangeStatusInput): Promise<z.output<typeof changeStatusResponse>> {
  const out: z.output<typeof changeStatusResponse> = { items: [], errors: [] }
  for (const [index, item] of input.items.entries()) {
    try {
      out.items.push({ index, entries: await changeItem(ctx, caller, item) })
    } catch (err) {
      out.errors.push({ index, error: itemError(ctx, err, OPERATION) })
    }
  }
  return out
}

async function changeItem(ctx: Ctx, caller: Caller, item: StatusItem) {
  const targets = await targetsOf(ctx, caller, item)
  for (const { list } of targets) await assertChangesStatus(ctx, caller, list)
  for (const { list, entry } of targets) {
    if (item.purpose === 'revocation' && entry.value && !item.value)
      throw invalid(`${listUrlOf(list.baseUrl, list.id)}#${entry.index}: revocation is final (a revoked entry is never unrevoked)`)
  }
  const out = []
  for (const { list, entry } of targets) {
    const changed = entry.value !== item.value
    if (changed) await writeChange(ctx, caller, list, entry, item.value)
    const url = listUrlOf(list.baseUrl, list.id)
    out.push({ statusListCredential: url, statusListIndex: String(entry.index), statusPurpose: list.purpose, value: item.value, changed })
  }
  return out
}

async function writeChange(ctx: Ctx, caller: Caller, list: StatusListRecord, entry: StatusEntryRecord, value: boolean): Promise<void> {
  const now = ctx.now()
  await ctx.storage.transaction(async (tx) => {
    const c = tenantCollections(tx, caller.tenantId, { lists: STATUS_LISTS, entries: STATUS_ENTRIES, changes: STATUS_CHANGES })
    await c.entries.update(entry.id, { value, updatedAt: now })
    await c.lists.increment(list.id, 'version')
    await c.lists.update(list.id, { changedAt: now })
    await c.changes.insert({
      id: randomUUID(),
      tenantId: caller.tenantId,
      listId: list.id,
      index: entry.index,
      purpose: list.purpose,
      value,
      byDids: caller.dids,
      byKeys: caller.addresses,
      createdAt: now,
    })
  })
  ctx.statusPublisher.schedule(list.id)
}

/**
 * The entries an item names, in this tenant and of its purpose; 422 when it names none. A stored
 * credential (`_id`) the caller may not read is not told apart from none (the one read rule), so
 * its entries are not revealed.
 */
async function targetsOf(ctx: Ctx, caller: Caller, item: StatusItem): Promise<Target[]> {
  const { tenantId } = caller
  if ('statusListCredential' in item) return [await entryAt(ctx, tenantId, item.statusListCredential, item.statusListIndex, item.purpose)]
  if ('id' in item) {
    const { entries, lists } = tenantCollections(ctx.storage, tenantId, { entries: STATUS_ENTRIES, lists: STATUS_LISTS })
    const found = await entries.all({
      and: [
        { field: 'credentialId', op: 'eq', value: item.id },
        { field: 'purpose', op: 'eq', value: item.purpose },
      ],
    })
    if (found.length === 0) throw notFound(`id: no credential ${item.id} was issued here with a ${item.purpose} status entry`)
    return Promise.all(found.map(async (entry) => ({ entry, list: (await lists.get(entry.listId))! })))
  }
  const { credentials } = tenantCollections(ctx.storage, tenantId, { credentials: CREDENTIALS })
  const record = await credentials.get(item._id)
  if (!record || !decide(CREDENTIAL_RULES.readCredential, await readerFacts(ctx, caller), record).allowed)
    throw notFound(`_id: no stored credential ${item._id}`)
  const named = statusEntriesOf(record.jwt !== undefined ? (decodeJwt(record.jwt).payload as { vc?: unknown }).vc : record.jsonld).filter(
    (e) => e.statusPurpose === item.purpose,
  )
  if (named.length === 0) throw invalid(`_id: credential ${item._id} has no credentialStatus entry of purpose ${item.purpose}`)
  return Promise.all(named.map((e) => entryAt(ctx, tenantId, String(e.statusListCredential), String(e.statusListIndex), item.purpose)))
}

/** The `credentialStatus` entries of a credential (a JSON-LD document, or a VC-JWT's `vc`). */
function statusEntriesOf(credential: unknown): Array<Record<string, unknown>> {
  const status = (credential as { credentialStatus?: unknown } | undefined)?.credentialStatus
  const all = Array.isArray(status) ? (status as unknown[]) : status === undefined ? [] : [status]
  return all.filter((e): e is Record<string, unknown> => typeof e === 'object' && e !== null)
}

/** The allocated entry `index` of the list at `url`, a list of this tenant and of `purpose`. */
async function entryAt(ctx: Ctx, tenantId: string, url: string, index: string | number, purpose: string): Promise<Target> {
  const { entries, lists } = tenantCollections(ctx.storage, tenantId, { entries: STATUS_ENTRIES, lists: STATUS_LISTS })
  const listId = listIdOf(url)
  const list = listId === undefined ? undefined : await lists.get(listId)
  // Another tenant's list is not told apart from no list.
  if (!list || listUrlOf(list.baseUrl, list.id) !== url) throw notFound(`statusListCredential: no status list of this tenant at ${url}`)
  if (list.purpose !== purpose) throw invalid(`purpose: the list at ${url} is a ${list.purpose} list`)
  const position = Number(index)
  if (!Number.isSafeInteger(position) || position < 0 || position >= list.size)
    throw invalid(`statusListIndex: ${index} is out of range (0 to ${list.size - 1})`)
  const entry = await entries.findOne({
    and: [
      { field: 'listId', op: 'eq', value: list.id },
      { field: 'index', op: 'eq', value: position },
    ],
  })
  if (!entry) throw invalid(`statusListIndex: entry ${position} of ${url} is not allocated to a credential`)
  return { list, entry }
}
