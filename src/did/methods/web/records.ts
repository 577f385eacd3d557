/**
 * The changes of the service's own did:web documents (public: DID documents are): the record and
 * its collection declaration. Version 0 of a document is its wallet's creation (the wallet's key);
 * each `txsInput` element applied, and the wallet's deletion, is the next version.
 */
import { declareCollection } from '../../../storage/declaration.js'
import type { StoredRecord } from '../../../storage/port.js'
import type { BbsPublicJwk, PublicJwk } from '../../../keys/key-types.js'

/** One change of a did:web document. Validity ends are UNIX seconds, as the did:ethr registries keep them. */
export type DidWebChange =
  /** A service entry `#service-<version>` of type `type`, until `validTo`. */
  | { kind: 'service'; type: string; serviceEndpoint: string; validTo: number }
  /** A verification method `#key-<version>` under `assertionMethod`, until `validTo`; `keyRef` when the service made the key. */
  | { kind: 'delegate'; publicKeyJwk: PublicJwk; keyRef?: string; validTo: number }
  /** `controller` set to `controller`: the document's own key leaves it. */
  | { kind: 'controller'; controller: string }
  /** The wallet was deleted: the DID is deactivated. Keeps the wallet's key and creation so past versions still resolve. */
  | { kind: 'deactivate'; publicKeyJwk: PublicJwk; bbsPublicKeyJwk?: BbsPublicJwk; walletCreatedAt: number }

/**
 * A version of a did:web document the service serves. `id` is `<did>/<version>`; the unique index on
 * (did, version) makes two concurrent writers of one document collide instead of forking its history.
 */
export interface DidWebChangeRecord extends StoredRecord {
  did: string
  /** The document's version after this change: 1, 2, … */
  version: number
  tenantId: string
  walletId: string
  change: DidWebChange
  /** When the change was made, ms since the epoch (the version's `updated`). */
  createdAt: number
}

export const DID_WEB_CHANGES = declareCollection<DidWebChangeRecord>({
  name: 'didWebChanges',
  fields: ['did', 'version', 'tenantId', 'createdAt'],
  // The one query: a document's changes by version.
  indexes: [{ fields: ['did', 'version'], unique: true }],
})
