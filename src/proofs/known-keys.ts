/**
 * Public keys a verifier may already know, by address (the service's wallets and generated
 * delegate keys: `wallets/public-keys.ts`), so a signature by one of them is verified directly
 * instead of recovering its signer.
 */
import type { KeyObject } from 'node:crypto'

export interface KnownKeys {
  /** The key of `address`, if known (its public key hashes to the address). */
  keyFor(address: string): Promise<KeyObject | undefined>
  /** The uncompressed public key (hex) of `address`, if known. */
  publicKeyHexFor(address: string): Promise<string | undefined>
  /** Remembers a key recovered from a signature (it hashes to `address`). */
  learn(address: string, publicKey: Uint8Array): void
  /** The verification method that last signed for `hint` (a DID and purpose), to try first. */
  lastSigner(hint: string): string | undefined
  noteSigner(hint: string, methodId: string): void
  /** A key object of a public key given in hex. */
  keyFromHex(publicKeyHex: string): KeyObject
}
