/**
 * Status lists (W3C Bitstring Status List v1.0; IETF Token Status List for SD-JWT VCs): the lists, the entries allocated in them, and
 * the log of every status change. Declarations are checked against the record types by the compiler.
 */
import { declareCollection } from '../storage/declaration.js'
import type { StoredRecord } from '../storage/port.js'

import type { StatusPurpose } from '../credentials/schemas.js'
import type { FormatName } from '../credentials/formats/index.js'

export type { StatusPurpose }

/**
 * A status list of one issuer DID, per tenant, purpose and credential format. `id` is the list
 * id (random, URL-safe), global: the list is published at `<baseUrl>/status/<id>`.
 */
export interface StatusListRecord extends StoredRecord {
  tenantId: string
  /** The issuer DID (principal). */
  issuer: string
  purpose: StatusPurpose
  format: FormatName
  /** Entries in the list (131,072 unless the service was configured otherwise). */
  size: number
  /** The public base URL the list was issued under: its URL is signed into credentials and never changes. */
  baseUrl: string
  /** True once every index is allocated: new entries go to a new list. */
  full: boolean
  /** Entries allocated (atomically incremented; released ones are taken back). */
  allocated: number
  /** Incremented with every status change. */
  version: number
  /** The `version` the stored signed list reflects (at least). -1 before the first signature. */
  signedVersion: number
  /** The signed list: a `BitstringStatusListCredential` (a VC-JWT or a JSON-LD document), or a Status List Token. */
  credential?: string | Record<string, unknown>
  /** `encodedList` of the stored signed list: multibase base64url of the GZIP of the bitstring. */
  encodedList?: string
  /** ETag of the stored signed list (quoted). */
  etag?: string
  signedAt?: number
  /** When the stored signed list expires (ms; a Status List Token's `exp`): signed again from half its lifetime on. */
  expiresAt?: number
  /** When a change last made the list differ from its signed copy. */
  changedAt?: number
  createdAt: number
}

export const STATUS_LISTS = declareCollection<StatusListRecord>({
  name: 'status_lists',
  fields: ['tenantId', 'issuer', 'purpose', 'format', 'full', 'createdAt'],
  // The open list of an issuer for a purpose and format: the oldest not full.
  indexes: [
    { fields: ['tenantId', 'issuer', 'purpose', 'format', 'full', 'createdAt'] },
    // The tenant's lists, oldest first (List Status Lists).
    { fields: ['tenantId', 'createdAt'] },
  ],
})

/**
 * One allocated index of a list: the entry of one credential. `value` is whether its status is not 0 (its bit, in a
 * Bitstring list). In a Token Status List (SD-JWT VCs, `purpose` the first of `purposes`) `status` is its value: 0 valid,
 * 1 invalid (revoked), 2 suspended.
 */
export interface StatusEntryRecord extends StoredRecord {
  tenantId: string
  listId: string
  index: number
  purpose: StatusPurpose
  /** The credential's `id` (its DID or URI) as signed. */
  credentialId: string
  value: boolean
  /** Token Status List: the purposes the credential was issued with (its one entry holds them all). */
  purposes?: StatusPurpose[]
  /** Token Status List: the entry's status (absent: 0). */
  status?: number
  createdAt: number
  updatedAt?: number
}

export const STATUS_ENTRIES = declareCollection<StatusEntryRecord>({
  name: 'status_entries',
  fields: ['tenantId', 'listId', 'index', 'purpose', 'credentialId', 'value', 'createdAt'],
  indexes: [
    // An index is allocated once per list, whichever process allocates it.
    { fields: ['listId', 'index'], unique: true },
    // The set bits of a list (signing), and all its entries (free indexes).
    { fields: ['listId', 'value', 'createdAt'] },
    // A credential's entries, by `id`.
    { fields: ['tenantId', 'credentialId', 'purpose', 'createdAt'] },
  ],
})

/** A status change: who, when, which entry, what value. */
export interface StatusChangeRecord extends StoredRecord {
  tenantId: string
  listId: string
  index: number
  purpose: StatusPurpose
  value: boolean
  /** The DIDs the caller acted through. */
  byDids: string[]
  /** The addresses of the keys that signed the caller's tokens. */
  byKeys: string[]
  createdAt: number
}

export const STATUS_CHANGES = declareCollection<StatusChangeRecord>({
  name: 'status_changes',
  fields: ['tenantId', 'listId', 'index', 'createdAt'],
  arrayFields: ['byDids', 'byKeys'],
  indexes: [{ fields: ['tenantId', 'listId', 'index', 'createdAt'] }],
})
