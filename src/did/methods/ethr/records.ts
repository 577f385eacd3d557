/**
 * The embedded ERC-1056 registry's change log and heads (public: DID documents are): the records
 * and their collection declarations (fields and indexes checked against the record types by the
 * compiler).
 */
import { declareCollection } from '../../../storage/declaration.js'
import type { StoredRecord } from '../../../storage/port.js'

/**
 * One ERC-1056 event of the embedded registry. Events are public (DID documents are), so
 * they carry no tenant: they are the embedded equivalent of a chain's logs. `id` is
 * `<network>/<identity>/<seq>`; `seq` counts from 1 per identity, and the unique index on
 * (network, identity, seq) makes two concurrent writers of the same identity collide instead
 * of forking its change chain.
 */
export interface DidEventRecord extends StoredRecord {
  /** Random per write attempt: tells whether an attempt whose outcome was unknown did land. */
  nonce: string
  network: string
  /** EIP-55 address of the identity. */
  identity: string
  seq: number
  event: 'DIDOwnerChanged' | 'DIDDelegateChanged' | 'DIDAttributeChanged'
  /** The identity's owner after this event (so the latest event answers `identityOwner`). */
  owner: string
  delegateType?: string
  delegate?: string
  name?: string
  /** Attribute bytes, 0x-hex. */
  value?: string
  /** UNIX seconds (0 for a revoked attribute). */
  validTo?: number
  /** Time of the event, UNIX seconds (the block time of an on-chain registry). */
  at: number
  createdAt: number
}

export const DID_EVENTS = declareCollection<DidEventRecord>({
  name: 'didEvents',
  fields: ['network', 'identity', 'seq', 'createdAt'],
  // The one query: an identity's events by seq (its head: seq desc, limit 1).
  indexes: [{ fields: ['network', 'identity', 'seq'], unique: true }],
})

/**
 * The latest event of an identity in the embedded registry, written in the same transaction
 * as the event: resolution learns whether anything changed with one primary-key read. `id` is
 * `<network>/<identity>`.
 */
export interface DidHeadRecord extends StoredRecord {
  network: string
  identity: string
  seq: number
  /** The identity's current owner. */
  owner: string
  /** Time of the latest event, UNIX seconds. */
  at: number
  createdAt: number
}

export const DID_HEADS = declareCollection<DidHeadRecord>({
  name: 'didHeads',
  fields: ['owner', 'network', 'identity', 'createdAt'],
  // Read by id; listed by owner (Fetch Verifiable Credentials: the DIDs handed to the caller's keys).
  indexes: [{ fields: ['owner', 'network', 'identity'] }],
})
