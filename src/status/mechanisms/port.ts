/**
 * The issuing-side status port: what differs between the status mechanisms the service issues — the W3C Bitstring
 * Status List (JSON-LD and VC-JWT credentials) and the IETF Token Status List (SD-JWT VCs). Allocation, storage of
 * entries, batched publication, serving and `POST /claims/status` are shared (`../allocate.ts`, `../sign-list.ts`,
 * `../publish.ts`, `../change.ts`); each mechanism says how entries are grouped, what a credential carries, what a
 * status change makes of an entry, and how a list is signed and served. Adding a mechanism = one folder here and one
 * line in `index.ts`.
 */
import type { Resolvable } from 'did-resolver'
import type { KeySigner } from '../../keys/signer.js'
import type { StatusListRecord, StatusPurpose } from '../records.js'

/** An allocated entry, as a credential names it. */
export interface AllocatedEntry {
  /** The list's URL. */
  url: string
  index: number
  purpose: StatusPurpose
}

/** What signing a list is given: the list, its entries' non-zero statuses (index → status), the signer and the clock. */
export interface ListToSign {
  list: StatusListRecord
  statuses: ReadonlyMap<number, number>
  signer: KeySigner
  /** ms since the epoch. */
  now: number
  /** Whether the signer is an MPC quorum (its lists are signed only by requests with approvals: they do not expire). */
  quorum: boolean
  /** The service's own resolver: names the issuer's key as its documents list it. */
  resolver: Resolvable
  /** How long a signed list is valid, and may be cached, ms (Token Status List `exp` − `iat`, `ttl`). */
  lifetimeMs: number
  ttlMs: number
}

/** A signed list document and its encoded list. */
export interface SignedListDocument {
  credential: string | Record<string, unknown>
  encodedList: string
  /** When the signed document expires (ms), if it does: the publisher signs it again at half its lifetime. */
  expiresAt?: number
}

export interface StatusMechanism {
  readonly name: string
  /**
   * `perPurpose`: one entry per purpose, each in a list of that purpose (Bitstring: one bit each). `perCredential`: one
   * entry holds every purpose of the credential (Token Status List: one status of 2 bits), in the issuer's list.
   */
  readonly entries: 'perPurpose' | 'perCredential'
  /** The status claim entries of a credential (its `content.status`), from its allocated entries. */
  claimOf(entries: readonly AllocatedEntry[]): Array<Record<string, unknown>>
  /**
   * The status an entry holding `current` takes when `purpose` is set to `value`; a string: why the change is refused
   * (422). Statuses are numbers: Bitstring 0 or 1; Token Status List 0 valid, 1 invalid (revoked), 2 suspended.
   */
  next(current: number, purpose: StatusPurpose, value: boolean): number | string
  /** The `value` a change reports for an entry holding `status`, for `purpose`. */
  valueFor(status: number, purpose: StatusPurpose): boolean
  /** Signs the list document. */
  sign(input: ListToSign): Promise<SignedListDocument>
  /** The media type of a served list of `list`. */
  mediaType(list: StatusListRecord): string
}
