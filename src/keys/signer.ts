/**
 * The signing seam. Every signature didvault makes — JWTs, JSON-LD proofs, DID-auth tokens,
 * registry transactions — goes through a {@link DigestSigner}, so keys held encrypted by the
 * SDK (ECS) and keys held by an MPC/threshold provider are interchangeable.
 */

/** A secp256k1 signature with low-S and the recovery bit. `r` and `s` are 32-byte big-endian. */
export interface RecoverableSignature {
  r: Uint8Array
  s: Uint8Array
  recovery: 0 | 1
}

/** Signs a 32-byte digest (already hashed) with one secp256k1 key. */
export interface DigestSigner {
  /** Uncompressed public key, hex, 65 bytes with the 04 prefix. */
  readonly publicKeyHex: string
  /** EIP-55 checksummed Ethereum address of the key. */
  readonly address: string
  sign(digest: Uint8Array): Promise<RecoverableSignature>
}
