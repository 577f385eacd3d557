/**
 * Stored verifiable credentials: the records and their collection declarations (fields and indexes
 * checked against the record types by the compiler).
 */
import { declareCollection } from '../storage/declaration.js'
import type { StoredRecord } from '../storage/port.js'
import type { FormatName } from './formats/index.js'

/**
 * A stored verifiable credential (DESIGN §4 *Store VCs*). `id` is the stored-VC identifier
 * (`_id`); `vcId` the credential's own `id` (its DID, canonical spelling, or URI).
 */
export interface CredentialRecord extends StoredRecord {
  tenantId: string
  /** The credential's `id` (JWT: `jti`): a DID (as a principal) or URI; absent when it has none. */
  vcId?: string
  /** `vcId` when it is a DID: what role assignments and the owner rule name. */
  did?: string
  format: FormatName
  jsonld?: Record<string, unknown>
  jwt?: string
  /** A compact SD-JWT VC. */
  sdjwt?: string
  /** The issuer DID as a principal (a did:ethr public-key DID in its address form): what Fetch's `issuer` and the read rule match. */
  issuer?: string
  /** The subject DID as a principal, like `issuer`. */
  subject?: string
  /** `vcId`, `issuer`, `subject` as the credential spells them, where that differs from the principal kept above (responses show it). */
  spelled?: { vcId?: string; issuer?: string; subject?: string }
  /** Its types (`VerifiableCredential` included). */
  types: string[]
  issuanceDate?: string
  expirationDate?: string
  /** The DIDs the caller acted through when storing it (a re-store by others adds theirs). */
  storedBy: string[]
  isPublicAccess: boolean
  /** The role DIDs given at store time: they reach this record only (see `RoleAssignmentRecord.governsCredentials` for its DID). */
  roles: string[]
  /** SHA-256 of the JWT (canonical low-S signature), or of the JSON-LD document in canonical JSON (sorted keys). */
  hash: string
  /**
   * SHA-256 of `storedBy` (JSON): with `hash`, one record per content and storer — a caller
   * re-storing content it may read gets that record, one that may not gets its own. Absent on
   * records of earlier releases.
   */
  storerKey?: string
  createdAt: number
}

export const CREDENTIALS = declareCollection<CredentialRecord>({
  name: 'credentials',
  fields: ['tenantId', 'createdAt', 'vcId', 'did', 'issuer', 'subject', 'isPublicAccess', 'hash', 'storerKey'],
  arrayFields: ['storedBy', 'roles', 'types'],
  indexes: [
    // Idempotent re-store: one record per content and storer; its prefix finds the copies of a content.
    { fields: ['tenantId', 'hash', 'storerKey'], unique: true },
    // Each read-access ground and each filter is one index ending in createdAt, the order of a page.
    { fields: ['tenantId', 'createdAt'] },
    { fields: ['tenantId', 'vcId', 'createdAt'] },
    { fields: ['tenantId', 'did', 'createdAt'] },
    { fields: ['tenantId', 'issuer', 'createdAt'] },
    { fields: ['tenantId', 'subject', 'createdAt'] },
    { fields: ['tenantId', 'isPublicAccess', 'createdAt'] },
  ],
})
