/**
 * Change Credential Status (`POST /claims/status`): each item names entries — of a stored
 * credential (`_id`), of a credential `id`, or one by `statusListCredential` + `statusListIndex` —
 * and sets their bit. Every entry is checked (found in this tenant, allocated, the caller controls
 * its issuer, revocation is final, against the values the request's earlier items set) before
 * any is written; then the request's changes — entries, their lists' versions, change-log
 * records — are written in one transaction (item by item when that fails, so a failing item is
 * its own error), and the lists' signatures scheduled. A list of an MPC issuer is signed with the
 * request's approvals before that transaction and stored in it, with the changes it reflects.
 */
import { randomUUID } from 'node:crypto'
import type { Caller } from '../auth/context.js'
import { IdentityError, conflict, invalid, notFound } from '../errors.js'
import { principalOf } from '../did/methods/ethr/index.js'
import { assertSomethingDone, itemError } from '../operations/batch.js'
import { CREDENTIALS } from '../credentials/records.js'
import { readerFacts } from '../credentials/reader-facts.js'
import type { ReaderFacts } from '../credentials/read-rule.js'
import { CREDENTIAL_RULES } from '../credentials/policy.js'
import { decide } from '../auth/policy-engine.js'
import { tenantCollections } from '../storage/declaration.js'
import { assertChangesStatus } from './access.js'
import { isQuorumSigner, signedListOf, type ListSigners, type SignedList, type SigningContext } from './sign-list.js'
import { serially } from './serially.js'
import type { WalletRecord } from '../wallets/records.js'
import type { StatusContext } from './context.js'
import { listIdOf, listUrlOf } from './list-url.js'
import { mechanismOf } from './mechanisms/index.js'
import { STATUS_CHANGES, STATUS_ENTRIES, STATUS_LISTS, type StatusEntryRecord, type StatusListRecord } from './records.js'
import { refreshStoredStatuses, statusReferencesOf } from './credential-status.js'
import type { ChangeStatusInput, StatusItem, changeStatusResponse } from './schemas.js'
import type { z } from 'zod'

type Ctx = SigningContext & Pick<StatusContext, 'audit' | 'callers' | 'config' | 'onError' | 'onItemFailure' | 'statusPublisher'>
type Target = { list: StatusListRecord; entry: StatusEntryRecord }
/** A change of an entry, with the wallet that signs its list (its issuer DID's owner). */
type Write = Target & { value: boolean; status: number; owner: WalletRecord }
/**
 * A request's state: the statuses its earlier items set (entry id → status), its access checks (per
 * list, each resolving to the list's signers), the caller's read facts.
 */
type Batch = { values: Map<string, number>; allowed: Map<string, Promise<ListSigners>>; reader?: Promise<ReaderFacts> }

/** What an item of the request is (its error message: `change status failed`). */
const ITEM = 'change status'
/** Signatures of an MPC issuer's list made again when another change of it committed first. */
const QUORUM_LIST_ATTEMPTS = 3

/** Another change of a list committed between its signature and this write: the list is read and signed again. */
class ListMoved extends Error {}

export async function changeStatus(ctx: Ctx, caller: Caller, input: ChangeStatusInput): Promise<z.output<typeof changeStatusResponse>> {
  const out: z.output<typeof changeStatusResponse> = { items: [], errors: [] }
  const batch: Batch = { values: new Map(), allowed: new Map() }
  const planned: Array<{ index: number; writes: Write[] }> = []
  for (const [index, item] of input.items.entries()) {
    try {
      const { entries, writes } = await planItem(ctx, caller, item, batch)
      out.items.push({ index, entries })
      planned.push({ index, writes })
    } catch (err) {
      out.errors.push({ index, error: itemError(ctx, caller, err, ITEM) })
    }
  }
  try {
    await writeChanges(
      ctx,
      caller,
      planned.flatMap((p) => p.writes),
    )
  } catch {
    // Item by item, so that a failing item is its own error and the others are written.
    const failed = new Set<number>()
    for (const { index, writes } of planned) {
      try {
        await writeChanges(ctx, caller, writes)
      } catch (err) {
        failed.add(index)
        out.errors.push({ index, error: itemError(ctx, caller, err, ITEM) })
      }
    }
    out.items = out.items.filter((i) => !failed.has(i.index))
    out.errors.sort((a, b) => a.index - b.index)
  }
  assertSomethingDone(
    out.items.length,
    out.errors.map((e) => e.error),
  )
  return out
}

/** Checks an item (every entry found, the caller controls its issuer, revocation final) against the values earlier items set. */
async function planItem(ctx: Ctx, caller: Caller, item: StatusItem, batch: Batch) {
  const targets = await targetsOf(ctx, caller, item, batch)
  const owners = new Map<string, WalletRecord>()
  for (const { list } of targets) owners.set(list.id, (await allowedFor(ctx, caller, list, batch)).owner)
  const statusOf = (entry: StatusEntryRecord) => batch.values.get(entry.id) ?? entry.status ?? (entry.value ? 1 : 0)
  // Every entry's next status (or the refusal: revocation is final) before any is taken.
  const nexts = targets.map(({ list, entry }) => {
    const next = mechanismOf(list.format).next(statusOf(entry), item.purpose, item.value)
    if (typeof next === 'string') throw invalid(`${listUrlOf(list.baseUrl, list.id)}#${entry.index}: ${next}`)
    return next
  })
  const entries = []
  const writes: Write[] = []
  for (const [i, { list, entry }] of targets.entries()) {
    const status = nexts[i]
    const changed = statusOf(entry) !== status
    if (changed) {
      writes.push({ list, entry, value: item.value, status, owner: owners.get(list.id)! })
      batch.values.set(entry.id, status)
    }
    const url = listUrlOf(list.baseUrl, list.id)
    entries.push({
      statusListCredential: url,
      statusListIndex: String(entry.index),
      statusPurpose: item.purpose,
      value: item.value,
      changed,
    })
  }
  return { entries, writes }
}

/**
 * Writes the changes in one transaction — entries, each list's version (once per list), change
 * records, the new signatures of MPC issuers' lists — and schedules the other lists' signatures.
 */
async function writeChanges(ctx: Ctx, caller: Caller, writes: Write[]): Promise<void> {
  if (writes.length === 0) return
  const perList = new Map<string, Write[]>()
  for (const write of writes) perList.set(write.list.id, [...(perList.get(write.list.id) ?? []), write])
  const quorumLists = quorumListsOf(perList)
  if (quorumLists.size === 0) {
    await commit(ctx, caller, writes, perList, new Map())
    for (const listId of perList.keys()) ctx.statusPublisher.schedule(listId)
    return
  }
  // Changes of one quorum list wait for each other in this process; another process's are retried.
  await serially([...quorumLists.keys()], async () => {
    for (let attempt = 1; ; attempt++) {
      const signed = await quorumSignatures(ctx, caller, quorumLists, perList)
      try {
        await commit(ctx, caller, writes, perList, signed)
        break
      } catch (err) {
        if (!(err instanceof ListMoved)) throw err
        if (attempt >= QUORUM_LIST_ATTEMPTS) throw conflict(`status list ${err.message} kept changing while it was being signed; try again`)
      }
    }
  })
  for (const listId of perList.keys()) if (!quorumLists.has(listId)) ctx.statusPublisher.schedule(listId)
}

/** The quorum lists among `perList` (their issuer DID's owner is an MPC wallet: signed with the request's approvals), with that owner. */
function quorumListsOf(perList: Map<string, Write[]>): Map<string, WalletRecord> {
  const quorum = new Map<string, WalletRecord>()
  for (const [listId, [{ owner }]] of perList) if (isQuorumSigner(owner)) quorum.set(listId, owner)
  return quorum
}

/** The new signatures of `quorumLists` with their changes (and the request's approvals), by list id, with the version each follows. */
async function quorumSignatures(ctx: Ctx, caller: Caller, quorumLists: Map<string, WalletRecord>, perList: Map<string, Write[]>) {
  const signed = new Map<string, { version: number; signed: SignedList }>()
  const { lists } = tenantCollections(ctx.storage, caller.tenantId, { lists: STATUS_LISTS })
  for (const [listId, wallet] of quorumLists) {
    const list = (await lists.get(listId))!
    const changes = perList.get(listId)!.map(({ entry, status }) => ({ index: entry.index, status }))
    signed.set(listId, { version: list.version, signed: await signedListOf(ctx, list, wallet, changes, caller) })
  }
  return signed
}

async function commit(
  ctx: Ctx,
  caller: Caller,
  writes: Write[],
  perList: Map<string, Write[]>,
  signed: Map<string, { version: number; signed: SignedList }>,
): Promise<void> {
  const now = ctx.now()
  await ctx.storage.transaction(async (tx) => {
    const c = tenantCollections(tx, caller.tenantId, { lists: STATUS_LISTS, entries: STATUS_ENTRIES, changes: STATUS_CHANGES })
    for (const [listId, quorum] of signed) if ((await c.lists.get(listId))?.version !== quorum.version) throw new ListMoved(listId)
    for (const { entry, status } of writes)
      await c.entries.update(entry.id, { value: status !== 0, ...(entry.purposes !== undefined && { status }), updatedAt: now })
    for (const [listId, listWrites] of perList) {
      await c.lists.increment(listId, 'version', listWrites.length)
      await c.lists.update(listId, { changedAt: now, ...signed.get(listId)?.signed })
    }
    await c.changes.insertMany(
      writes.map(({ list, entry, value }) => ({
        id: randomUUID(),
        tenantId: caller.tenantId,
        listId: list.id,
        index: entry.index,
        purpose: list.purpose,
        value,
        byDids: caller.dids,
        byKeys: caller.addresses,
        createdAt: now,
      })),
    )
    // One record per entry changed; its target is the credential the entry is of (by its entry, when it has no `id`).
    const acts = writes.map(({ list, entry }) => ({
      action: 'credential.status' as const,
      target: { type: 'credential', id: entry.credentialId || `${listUrlOf(list.baseUrl, list.id)}#${entry.index}` },
    }))
    await ctx.audit.append(tx, caller, acts)
    // The stored copies of the credentials changed: their `status` (Fetch's filter) in step with their entries.
    await refreshStoredStatuses(tx, caller.tenantId, [...new Set(writes.map(({ entry }) => entry.credentialId).filter((id) => id !== ''))])
  })
}

/**
 * The entries an item names, in this tenant and of its purpose; 422 when it names none. A stored
 * credential (`_id`) the caller may not read is not told apart from none (the one read rule), so
 * its entries are not revealed; nor is an entry of a list the caller may not change told apart
 * from an unallocated one ({@link entryAt}), nor a credential `id` of another issuer from none
 * ({@link entryById}).
 */
async function targetsOf(ctx: Ctx, caller: Caller, item: StatusItem, batch: Batch): Promise<Target[]> {
  const { tenantId } = caller
  if ('statusListCredential' in item)
    return [await entryAt(ctx, caller, item.statusListCredential, item.statusListIndex, item.purpose, batch)]
  if ('id' in item) return [await entryById(ctx, caller, item, batch)]
  const { credentials } = tenantCollections(ctx.storage, tenantId, { credentials: CREDENTIALS })
  const record = await credentials.get(item._id)
  batch.reader ??= readerFacts(ctx, caller)
  if (!record || !decide(CREDENTIAL_RULES.readCredential, await batch.reader, record).allowed)
    throw notFound(`_id: no stored credential ${item._id}`)
  const named = statusReferencesOf(record).filter((e) => e.purpose === undefined || e.purpose === item.purpose)
  if (named.length === 0) throw invalid(`_id: credential ${item._id} has no credentialStatus entry of purpose ${item.purpose}`)
  return Promise.all(named.map((e) => entryAt(ctx, caller, e.url, e.index, item.purpose, batch)))
}

/** Most credentials an ambiguous `id`'s error names. */
const NAMED_AT_MOST = 10

/**
 * The entry of the one credential with this `id` (and a `purpose` entry) whose status the caller
 * may change: entries in lists of other issuers are not looked at — another issuer of the tenant
 * reusing the `id` neither blocks the change nor learns of it. None: 422 NOT_FOUND, as for an `id`
 * never issued. Several: 422 naming them — the `_id`s of their stored copies the caller may read,
 * the list URL and index of the others — so that the caller names one.
 */
async function entryById(ctx: Ctx, caller: Caller, item: Extract<StatusItem, { id: string }>, batch: Batch): Promise<Target> {
  const { entries, lists } = tenantCollections(ctx.storage, caller.tenantId, { entries: STATUS_ENTRIES, lists: STATUS_LISTS })
  // A Token Status List entry holds several purposes (`purposes`): read by credential, kept when it has this one.
  const found = (await entries.all({ field: 'credentialId', op: 'eq', value: item.id })).filter((e) => purposesOf(e).includes(item.purpose))
  const mine: Target[] = []
  for (const entry of found) {
    const list = (await lists.get(entry.listId))!
    if (await mayChange(ctx, caller, list, batch)) mine.push({ entry, list })
  }
  if (mine.length === 1) return mine[0]
  if (mine.length === 0)
    throw notFound(
      `id: no credential ${item.id} whose status you may change was issued here with a ${item.purpose} status entry ` +
        '(an MPC issuer’s entries need its quorum’s approvals with the request)',
    )
  const named = await namesOf(ctx, caller, item, mine, batch)
  const shown = named.slice(0, NAMED_AT_MOST).join(', ')
  const more = named.length > NAMED_AT_MOST ? ` and ${named.length - NAMED_AT_MOST} more` : ''
  throw invalid(
    `id: ${mine.length} credentials ${item.id} whose status you may change have a ${item.purpose} entry; name one: ${shown}${more}`,
  )
}

/**
 * How the caller names each of `targets` instead of by `id`: `_id <id>` for those with a stored
 * copy it may read, `<list URL>#<index>` (statusListCredential + statusListIndex) for the others.
 */
async function namesOf(
  ctx: Ctx,
  caller: Caller,
  item: Extract<StatusItem, { id: string }>,
  targets: Target[],
  batch: Batch,
): Promise<string[]> {
  const urlOf = ({ list, entry }: Target) => `${listUrlOf(list.baseUrl, list.id)}#${entry.index}`
  const unnamed = new Set(targets.map(urlOf))
  const { credentials } = tenantCollections(ctx.storage, caller.tenantId, { credentials: CREDENTIALS })
  const spellings = [...new Set([item.id, principalOf(item.id)])]
  const stored = await credentials.find({ field: 'vcId', op: 'in', value: spellings }, { limit: 100 })
  batch.reader ??= readerFacts(ctx, caller)
  const reader = await batch.reader
  const names: string[] = []
  for (const record of stored.items) {
    if (!decide(CREDENTIAL_RULES.readCredential, reader, record).allowed) continue
    const urls = statusReferencesOf(record)
      .filter((e) => e.purpose === undefined || e.purpose === item.purpose)
      .map((e) => `${e.url}#${e.index}`)
      .filter((url) => unnamed.has(url))
    if (urls.length === 0) continue
    names.push(`_id ${record.id}`)
    for (const url of urls) unnamed.delete(url)
  }
  return [...names, ...unnamed]
}

/** The access check of `list` for this request, made once per list: resolves to its signers, or rejects (403). */
function allowedFor(ctx: Ctx, caller: Caller, list: StatusListRecord, batch: Batch): Promise<ListSigners> {
  let allowed = batch.allowed.get(list.id)
  if (allowed === undefined) {
    allowed = assertChangesStatus(ctx, caller, list)
    // Awaited where it matters; a refusal is not an unhandled rejection meanwhile.
    allowed.catch(() => undefined)
    batch.allowed.set(list.id, allowed)
  }
  return allowed
}

/** Whether the caller may change entries of `list` in this request (a refusal other than 403 is thrown). */
async function mayChange(ctx: Ctx, caller: Caller, list: StatusListRecord, batch: Batch): Promise<boolean> {
  try {
    await allowedFor(ctx, caller, list, batch)
    return true
  } catch (err) {
    if (err instanceof IdentityError && err.errorType === 'FORBIDDEN') return false
    throw err
  }
}

/** The purposes an entry holds: its list's, or (Token Status List) those its credential was issued with. */
const purposesOf = (entry: StatusEntryRecord): string[] => entry.purposes ?? [entry.purpose]

/**
 * The allocated entry `index` of the list at `url`, a list of this tenant and of `purpose`. A
 * caller who may not change the list's entries is refused (403) before anything about them is
 * read: an allocated index and a free one get the same answer.
 */
async function entryAt(ctx: Ctx, caller: Caller, url: string, index: string | number, purpose: string, batch: Batch): Promise<Target> {
  const { entries, lists } = tenantCollections(ctx.storage, caller.tenantId, { entries: STATUS_ENTRIES, lists: STATUS_LISTS })
  const listId = listIdOf(url)
  const list = listId === undefined ? undefined : await lists.get(listId)
  // Another tenant's list is not told apart from no list.
  if (!list || listUrlOf(list.baseUrl, list.id) !== url) throw notFound(`statusListCredential: no status list of this tenant at ${url}`)
  await allowedFor(ctx, caller, list, batch)
  const perPurpose = mechanismOf(list.format).entries === 'perPurpose'
  if (perPurpose && list.purpose !== purpose) throw invalid(`purpose: the list at ${url} is a ${list.purpose} list`)
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
  if (!purposesOf(entry).includes(purpose)) throw invalid(`purpose: entry ${position} of ${url} was issued without ${purpose} status`)
  return { list, entry }
}
