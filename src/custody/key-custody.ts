/**
 * Custody of the secrets the SDK holds (ECS): private keys, mnemonics and account nodes live
 * only inside keyring envelopes at rest, each bound to the record and field it belongs to.
 */
import type { Keyring } from '../keys/keyring.js'
import { secretContext } from '../keys/secret-context.js'

/** The record a sealed secret belongs to (its envelope opens only for the same tenant and id). */
export interface SealedRecordRef {
  tenantId: string
  id: string
}

export class KeyCustody {
  constructor(readonly keyring: Keyring) {}

  /** Seals a secret into an envelope bound to `collection/record/field`. */
  seal(collection: string, record: SealedRecordRef, field: string, secret: Uint8Array): string {
    return this.keyring.seal(secret, secretContext(collection, record, field))
  }

  /** Opens a secret sealed with {@link seal}. The caller wipes the result. */
  open(collection: string, record: SealedRecordRef, field: string, envelope: string): Uint8Array {
    return this.keyring.open(envelope, secretContext(collection, record, field))
  }
}
