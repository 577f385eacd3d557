/**
 * What the master key in an HSM (src/custody/hsm-master-key.ts) asks of a PKCS#11 token, implemented over a token's
 * session pool by `src/keys/backends/pkcs11/master-key.ts`. No binding here.
 */

/** What the master key in an HSM asks of a token: AES keys generated in it, AES-GCM (128-bit tag) through it. */
export interface TokenAesKeys {
  /** Generates a non-extractable AES-256 key in the token under `label`. */
  generateAesKey(label: string): Promise<void>
  /** Whether the token holds a secret key labelled `label`. */
  hasAesKey(label: string): Promise<boolean>
  /** Ciphertext ‖ tag. */
  encrypt(label: string, iv: Uint8Array, aad: Uint8Array, plaintext: Uint8Array): Promise<Uint8Array>
  /** @throws {KeyringError} when the key is missing or the tag does not verify */
  decrypt(label: string, iv: Uint8Array, aad: Uint8Array, ciphertext: Uint8Array): Promise<Uint8Array>
}
