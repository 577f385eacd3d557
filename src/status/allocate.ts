/**
 * Allocating status entries (W3C Bitstring Status List *privacy*: indexes at random): an index is
 * taken by inserting its entry, which the unique index `(listId, index)` admits once whichever
 * process inserts it; a collision is retried with another index. A full list rolls over to a new
 * one. Entries of a credential that is not issued after all are released (deleted): their index
 * was never signed into a credential. A new list is published once signed: by the publisher, or —
 * for an MPC issuer, whose quorum only a request brings — at once, with the signing request's approvals.
 */
import { randomBytes, randomInt, randomUUID } from 'node:crypto'
import { invalid } from '../errors.js'
import { tenantCollections } from '../storage/declaration.js'
import { UniqueConstraintError } from '../storage/port.js'
import type { CredentialStatuses, StatusAllocation, StatusRequest } from '../credentials/context.js'
import type { CredentialRecord, CredentialStatus } from '../credentials/records.js'
import { statusOfRecord } from './credential-status.js'
import { listUrlOf } from './list-url.js'
import { mechanismOf } from './mechanisms/index.js'
import { STATUS_ENTRIES, STATUS_LISTS, type StatusEntryRecord, type StatusListRecord, type StatusPurpose } from './records.js'
import type { StatusContext } from './context.js'
import { isQuorumSigner, listSigners, signList, type SigningContext } from './sign-list.js'

/** Random indexes tried in a list before its free indexes are read. */
const RANDOM_TRIES = 8

/** The setting issuing with status needs, as the 422 names it. */
const PUBLIC_URL_SETTING = 'the service option `publicUrl` (`didvault serve --public-url`, DIDVAULT_PUBLIC_URL)'

/** Allocates the status entries of credentials being issued (the credentials' {@link CredentialStatuses} port). */
export class StatusAllocator implements CredentialStatuses {
  constructor(private readonly ctx: SigningContext & Pick<StatusContext, 'config' | 'statusPublisher'>) {}

  statusOf(tenantId: string, record: CredentialRecord): Promise<CredentialStatus | undefined> {
    return statusOfRecord(this.ctx.storage, tenantId, record)
  }

  async allocate(tenantId: string, request: StatusRequest): Promise<StatusAllocation> {
    const baseUrl = this.ctx.config.publicUrl
    if (baseUrl === undefined) throw invalid(`status: issuing with status needs ${PUBLIC_URL_SETTING}; it is not set`)
    // Whether the issuer's lists need its quorum: one registry read for all the purposes and collisions of this credential.
    const quorum = isQuorumSigner((await listSigners(this.ctx, { tenantId, issuer: request.issuer })).owner)
    const mechanism = mechanismOf(request.format)
    const made: Array<{ list: StatusListRecord; entry: StatusEntryRecord }> = []
    const release = () => this.#release(tenantId, made)
    // Per purpose (Bitstring: one bit in a list of that purpose), or one entry holding every purpose (Token Status List).
    // In canonical order: a Token Status List entry goes to the list of its first purpose (revocation before suspension).
    const purposes = [...new Set(request.purposes)].sort()
    const wanted = mechanism.entries === 'perPurpose' ? purposes.map((p) => ({ purpose: p })) : [{ purpose: purposes[0], purposes }]
    try {
      for (const want of wanted) made.push(await this.#allocateOne(tenantId, baseUrl, request, want, quorum))
    } catch (err) {
      await release()
      throw err
    }
    const entries = mechanism.claimOf(
      made.map(({ list, entry }) => ({ url: listUrlOf(list.baseUrl, list.id), index: entry.index, purpose: entry.purpose })),
    )
    return { entries, release }
  }

  async #allocateOne(
    tenantId: string,
    baseUrl: string,
    request: StatusRequest,
    want: { purpose: StatusPurpose; purposes?: StatusPurpose[] },
    quorum: boolean,
  ): Promise<{ list: StatusListRecord; entry: StatusEntryRecord }> {
    const { purpose, purposes } = want
    const { lists, entries } = tenantCollections(this.ctx.storage, tenantId, { lists: STATUS_LISTS, entries: STATUS_ENTRIES })
    let collisions = 0
    for (;;) {
      const list = await this.#openList(tenantId, baseUrl, request, purpose, quorum)
      const index = collisions < RANDOM_TRIES ? randomInt(list.size) : await freeIndex(this.ctx, tenantId, list)
      if (index === undefined) {
        await lists.update(list.id, { full: true })
        collisions = 0
        continue
      }
      const entry: StatusEntryRecord = {
        id: randomUUID(),
        tenantId,
        listId: list.id,
        index,
        purpose,
        credentialId: request.credentialId,
        value: false,
        ...(purposes !== undefined && { purposes, status: 0 }),
        createdAt: this.ctx.now(),
      }
      try {
        await entries.insert(entry)
      } catch (err) {
        if (!(err instanceof UniqueConstraintError)) throw err
        collisions++
        continue
      }
      if ((await lists.increment(list.id, 'allocated')) >= list.size) await lists.update(list.id, { full: true })
      return { list, entry }
    }
  }

  /**
   * The oldest list of the issuer for this purpose and format that is not full; a new one when
   * there is none. An MPC issuer's list is signed now when it never was (with the request's quorum).
   */
  async #openList(
    tenantId: string,
    baseUrl: string,
    request: StatusRequest,
    purpose: StatusPurpose,
    quorum: boolean,
  ): Promise<StatusListRecord> {
    const list = await this.#existingList(tenantId, request, purpose)
    if (quorum) {
      const open = list ?? (await this.#newList(tenantId, baseUrl, request, purpose))
      return open.credential === undefined ? ((await signList(this.ctx, open.id, request.approvals ?? {})) ?? open) : open
    }
    if (list) return list
    const made = await this.#newList(tenantId, baseUrl, request, purpose)
    // Published once signed (an empty list): signed within the interval, or on the first GET.
    this.ctx.statusPublisher.schedule(made.id)
    return made
  }

  #existingList(tenantId: string, request: StatusRequest, purpose: StatusPurpose): Promise<StatusListRecord | undefined> {
    const { lists } = tenantCollections(this.ctx.storage, tenantId, { lists: STATUS_LISTS })
    return lists.findOne({
      and: [
        { field: 'issuer', op: 'eq', value: request.issuer },
        { field: 'purpose', op: 'eq', value: purpose },
        { field: 'format', op: 'eq', value: request.format },
        { field: 'full', op: 'eq', value: false },
      ],
    })
  }

  async #newList(tenantId: string, baseUrl: string, request: StatusRequest, purpose: StatusPurpose): Promise<StatusListRecord> {
    const list: StatusListRecord = {
      id: randomBytes(16).toString('base64url'),
      tenantId,
      issuer: request.issuer,
      purpose,
      format: request.format,
      size: this.ctx.config.statusListSize,
      baseUrl,
      full: false,
      allocated: 0,
      version: 0,
      signedVersion: -1,
      createdAt: this.ctx.now(),
    }
    await tenantCollections(this.ctx.storage, tenantId, { lists: STATUS_LISTS }).lists.insert(list)
    return list
  }

  async #release(tenantId: string, made: Array<{ list: StatusListRecord; entry: StatusEntryRecord }>): Promise<void> {
    const { lists, entries } = tenantCollections(this.ctx.storage, tenantId, { lists: STATUS_LISTS, entries: STATUS_ENTRIES })
    for (const { list, entry } of made.splice(0)) {
      if (await entries.delete(entry.id)) await lists.increment(list.id, 'allocated', -1)
    }
  }
}

/** A free index of `list`, at random among those not allocated; undefined when every index is. */
async function freeIndex(ctx: Pick<StatusContext, 'storage'>, tenantId: string, list: StatusListRecord): Promise<number | undefined> {
  const { entries } = tenantCollections(ctx.storage, tenantId, { entries: STATUS_ENTRIES })
  const taken = new Set((await entries.all({ field: 'listId', op: 'eq', value: list.id })).map((e) => e.index))
  if (taken.size >= list.size) return undefined
  const free: number[] = []
  for (let i = 0; i < list.size; i++) if (!taken.has(i)) free.push(i)
  return free[randomInt(free.length)]
}
