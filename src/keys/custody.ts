/**
 * Custody of the keys the SDK holds (ECS): private keys live only inside keyring envelopes
 * at rest and in memory for the duration of one signature.
 */
import type { Keyring } from './keyring.js'
import { LocalSigner } from './secp256k1.js'
import type { DigestSigner } from './signer.js'
import { secretContext } from '../storage/collections.js'

/** The parts of a record a sealed secret is bound to. */
export interface SecretOwner {
  tenantId: string
  id: string
}

export class KeyCustody {
  constructor(readonly keyring: Keyring) {}

  /** Seals a secret into an envelope bound to `collection/record/field`. */
  seal(collection: string, owner: SecretOwner, field: string, secret: Uint8Array): string {
    return this.keyring.seal(secret, secretContext(collection, owner, field))
  }

  /** Opens a secret sealed with {@link seal}. The caller wipes the result. */
  open(collection: string, owner: SecretOwner, field: string, envelope: string): Uint8Array {
    return this.keyring.open(envelope, secretContext(collection, owner, field))
  }

  /**
   * Runs `fn` with a signer over the private key sealed in `envelope`; the key is wiped from
   * memory when `fn` settles.
   */
  async withSigner<R>(collection: string, owner: SecretOwner, envelope: string, fn: (signer: DigestSigner) => Promise<R>): Promise<R> {
    const key = this.open(collection, owner, 'privateKey', envelope)
    const signer = new LocalSigner(key)
    key.fill(0)
    try {
      return await fn(signer)
    } finally {
      signer.wipe()
    }
  }
}
