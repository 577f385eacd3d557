/**
 * A stored credential's status as this service's status lists hold it — what Fetch's `status` filter reads: the
 * entries its document names (`credentialStatus`, an SD-JWT VC's `status.status_list`) looked up in the tenant's lists;
 * `revoked` when one says so (revocation wins), else `suspended` when one does, else none (`active`). Entries in lists
 * of other services are not looked at. Set when a credential is stored and by every status change of its entries
 * (in the change's transaction).
 */
import { principalOf } from '../did/methods/ethr/index.js'
import { CREDENTIALS, encodedOfRecord, type CredentialRecord, type CredentialStatus } from '../credentials/records.js'
import { storedDocument } from '../credentials/stored.js'
import { decodeJwt } from '../proofs/jwt-verifier.js'
import { tenantCollections } from '../storage/declaration.js'
import type { StorageAdapter } from '../storage/port.js'
import { listIdOf, listUrlOf } from './list-url.js'
import { STATUS_ENTRIES, STATUS_LISTS, type StatusEntryRecord } from './records.js'

/** Token Status List statuses (draft-ietf-oauth-status-list §7.1): 1 invalid (revoked), 2 suspended. */
const TOKEN_INVALID = 1
const TOKEN_SUSPENDED = 2

/** What one entry says of its credential. */
function statusOfEntry(entry: StatusEntryRecord): CredentialStatus | undefined {
  if (entry.purposes !== undefined) {
    const status = entry.status ?? (entry.value ? TOKEN_INVALID : 0)
    return status === TOKEN_INVALID ? 'revoked' : status === TOKEN_SUSPENDED ? 'suspended' : undefined
  }
  if (!entry.value) return undefined
  return entry.purpose === 'revocation' ? 'revoked' : 'suspended'
}

/** The status of `record` (a credential of `tenantId`) from its entries in the tenant's lists; undefined: active. */
export async function statusOfRecord(
  storage: StorageAdapter,
  tenantId: string,
  record: CredentialRecord,
): Promise<CredentialStatus | undefined> {
  const { lists, entries } = tenantCollections(storage, tenantId, { lists: STATUS_LISTS, entries: STATUS_ENTRIES })
  let found: CredentialStatus | undefined
  for (const reference of statusReferencesOf(record)) {
    const listId = listIdOf(reference.url)
    const list = listId === undefined ? undefined : await lists.get(listId)
    const index = Number(reference.index)
    if (!list || listUrlOf(list.baseUrl, list.id) !== reference.url || !Number.isSafeInteger(index)) continue
    const entry = await entries.findOne({
      and: [
        { field: 'listId', op: 'eq', value: list.id },
        { field: 'index', op: 'eq', value: index },
      ],
    })
    const status = entry && statusOfEntry(entry)
    if (status === 'revoked') return status
    found ??= status
  }
  return found
}

/**
 * Brings the `status` of the tenant's stored copies of the credentials `credentialIds` (their `id`s as signed) in step
 * with their entries; called in the transaction that changes them.
 */
export async function refreshStoredStatuses(tx: StorageAdapter, tenantId: string, credentialIds: readonly string[]): Promise<void> {
  if (credentialIds.length === 0) return
  const { credentials } = tenantCollections(tx, tenantId, { credentials: CREDENTIALS })
  const spellings = [...new Set(credentialIds.flatMap((id) => [id, principalOf(id)]))]
  for (const record of await credentials.all({ field: 'vcId', op: 'in', value: spellings }, { orderBy: { field: 'vcId' } })) {
    const status = await statusOfRecord(tx, tenantId, record)
    if (status !== record.status) await credentials.update(record.id, { status })
  }
}

/** A status entry a stored credential names: its list URL, index, and purpose (none: a Token Status List's, any). */
export type StatusReference = { url: string; index: string; purpose?: string }

/**
 * The status entries a stored credential names: the `credentialStatus` entries of its W3C document (a JSON-LD
 * document, or a VC-JWT's `vc`), or an SD-JWT VC's `status.status_list { idx, uri }`.
 */
export function statusReferencesOf(record: CredentialRecord): StatusReference[] {
  const { encoded } = encodedOfRecord(record)
  const document = storedDocument(record)
  if (document === undefined) return typeof encoded === 'string' ? tokenStatusReferenceOf(encoded) : []
  const status = document.credentialStatus
  const all = Array.isArray(status) ? (status as unknown[]) : status === undefined ? [] : [status]
  return all
    .filter((e): e is Record<string, unknown> => typeof e === 'object' && e !== null)
    .map((e) => ({ url: String(e.statusListCredential), index: String(e.statusListIndex), purpose: String(e.statusPurpose) }))
}

/** The `status.status_list` of an SD-JWT VC's issuer-signed JWT (as a record keeps it, or compact), if it has one. */
function tokenStatusReferenceOf(issuerSigned: string): StatusReference[] {
  let payload: Record<string, unknown>
  try {
    payload = decodeJwt(issuerSigned.split('~')[0]).payload
  } catch {
    return []
  }
  const ref = (payload.status as { status_list?: { idx?: unknown; uri?: unknown } } | undefined)?.status_list
  if (typeof ref?.uri !== 'string' || typeof ref.idx !== 'number') return []
  return [{ url: ref.uri, index: String(ref.idx) }]
}
