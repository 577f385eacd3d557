/**
 * The signing seam. Every signature didvault makes with a wallet's key — JWTs, JSON-LD proofs,
 * DID-auth tokens, status lists, registry transactions — goes through the wallet's
 * {@link KeySigner}, so keys behind the key port, keys sealed in 0.1.0 wallet records and keys
 * held by an MPC/threshold provider are interchangeable. A {@link DigestSigner} is the
 * secp256k1 form that signs a digest: what the did:ethr registries and the secp256k1 JSON-LD
 * suites sign with.
 */
import type { BbsKeyType, KeyType, PublicJwk, SignatureAlgorithm } from './key-types.js'

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

/**
 * A key as everything that signs sees it, whatever holds it (the key port's backends, a 0.1.0
 * wallet's sealed record, an MPC provider): its type and public JWK, JOSE signatures under the
 * algorithms of its type (`ALGORITHMS_OF`), and — for secp256k1 keys only — the
 * {@link DigestSigner} that signs a 32-byte digest the caller computed (`ES256K-R`), which the
 * did:ethr registries and the secp256k1 JSON-LD suites take. JWTs sign through
 * {@link KeySigner.sign}, never through the digest.
 */
export interface KeySigner {
  readonly keyType: KeyType
  readonly publicJwk: PublicJwk
  /** The JOSE signature of `data` under `alg` (docs/keys.md); 422 for an algorithm the key type does not sign under. */
  sign(alg: SignatureAlgorithm, data: Uint8Array): Promise<Uint8Array>
  /** The digest signer of a secp256k1 key; undefined for other key types. */
  readonly digest?: DigestSigner
}

/**
 * A BLS12-381 key as bbs-2023 signs with it: a BBS signature (`BBS-BLS12-381-SHA-256`) over a header and a list of
 * messages, made wherever the private key is held; the public key (the 96-byte compressed G2 point) goes into the base
 * proof.
 */
export interface BbsSigner {
  readonly keyType: BbsKeyType
  readonly publicKey: Uint8Array
  /** The BBS signature (80 bytes) of `messages` under `header`. */
  multisign(header: Uint8Array, messages: readonly Uint8Array[]): Promise<Uint8Array>
}
