/**
 * Stored verifiable credentials: the records and their collection declarations (fields and indexes
 * checked against the record types by the compiler).
 */
import { declareCollection } from '../storage/declaration.js'
import type { StoredRecord } from '../storage/port.js'
import type { EncodedCredential, FormatName } from './formats/index.js'

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
  /** Its format. Absent on records of earlier releases (read them through {@link encodedOfRecord}). */
  format?: FormatName
  /**
   * The credential in its encoded form: the JSON-LD document, the compact VC-JWT, or of an SD-JWT VC the issuer-signed
   * JWT only (its disclosures are in {@link disclosures}). Absent on records of earlier releases.
   */
  encoded?: EncodedCredential
  /**
   * SD-JWT VC: its disclosures (a JSON array of the encoded disclosures, in the credential's order), sealed like other
   * secrets under the record's tenant, collection, id and field (`custody.seal('credentials', record, 'disclosures')`).
   * Absent when it has none.
   */
  disclosures?: string
  /** Records of earlier releases (before 0.3.0): a JSON-LD credential. Read only by {@link encodedOfRecord}. */
  jsonld?: Record<string, unknown>
  /** Records of earlier releases (before 0.3.0): a VC-JWT. Read only by {@link encodedOfRecord}. */
  jwt?: string
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
  /**
   * Its status as this service's status lists hold it: `revoked` or `suspended` (revocation wins); absent when neither
   * (`active`), or when its entries are in lists of other services. Kept in step by Change Credential Status.
   */
  status?: CredentialStatus
  /** The DIDs the caller acted through when storing it (a re-store by others adds theirs). */
  storedBy: string[]
  isPublicAccess: boolean
  /** The role DIDs given at store time: they reach this record only (see `RoleAssignmentRecord.governsCredentials` for its DID). */
  roles: string[]
  /**
   * SHA-256 of the JWT (canonical low-S signature), of the JSON-LD document in canonical JSON (sorted keys), or of an
   * SD-JWT VC's issuer-signed JWT (canonical) and its sorted disclosures.
   */
  hash: string
  /**
   * SHA-256 of `storedBy` (JSON): with `hash`, one record per content and storer — a caller
   * re-storing content it may read gets that record, one that may not gets its own. Absent on
   * records of earlier releases.
   */
  storerKey?: string
  createdAt: number
}

/** A stored credential's status beside `active` (a record without `status`): what Fetch's `status` filter names. */
export type CredentialStatus = 'revoked' | 'suspended'

export const CREDENTIALS = declareCollection<CredentialRecord>({
  name: 'credentials',
  fields: ['tenantId', 'createdAt', 'vcId', 'did', 'issuer', 'subject', 'isPublicAccess', 'hash', 'storerKey', 'format', 'status'],
  arrayFields: ['storedBy', 'roles', 'types'],
  secretFields: ['disclosures'],
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
    // Fetch's `format` and `status` filters, and the overview's counts by format.
    { fields: ['tenantId', 'format', 'createdAt'] },
    { fields: ['tenantId', 'status', 'createdAt'] },
  ],
})

/**
 * A record's format and encoded credential, whichever release wrote it: `{ format, encoded }` since 0.3.0, one member
 * per format (`jsonld`, `jwt`) before. Records are upgraded on read, and rewritten in the current shape whenever they
 * are written (docs/architecture.md *Stored credentials*). The SD-JWT disclosures stay sealed: see `credentials/stored.ts`.
 */
export function encodedOfRecord(record: CredentialRecord): { format: FormatName; encoded: EncodedCredential } {
  if (record.encoded !== undefined)
    return { format: record.format ?? (typeof record.encoded === 'string' ? 'JWT' : 'JSON-LD'), encoded: record.encoded }
  if (record.jsonld !== undefined) return { format: 'JSON-LD', encoded: record.jsonld }
  if (record.jwt !== undefined) return { format: 'JWT', encoded: record.jwt }
  throw new Error(`credential record ${record.id} holds no credential`)
}
