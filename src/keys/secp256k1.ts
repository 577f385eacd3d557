/**
 * secp256k1 key material: generation, public keys, Ethereum addresses and the in-memory
 * {@link DigestSigner} for keys the SDK holds (ECS).
 */
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js'
import type { DigestSigner, RecoverableSignature } from './signer.js'

/** A fresh random 32-byte private key. */
export function generatePrivateKey(): Uint8Array {
  return secp256k1.utils.randomSecretKey()
}

/** Uncompressed public key (65 bytes, 04 prefix) of a private key. */
export function publicKeyOf(privateKey: Uint8Array): Uint8Array {
  return secp256k1.getPublicKey(privateKey, false)
}

/** The uncompressed form (65 bytes, 04 prefix) of a compressed public key (33 bytes). */
export function uncompressedOf(publicKey: Uint8Array): Uint8Array {
  return secp256k1.Point.fromBytes(publicKey).toBytes(false)
}

/** EIP-55 address of an uncompressed (65-byte) or compressed (33-byte) public key. */
export function addressOf(publicKey: Uint8Array): string {
  const uncompressed = publicKey.length === 65 ? publicKey : uncompressedOf(publicKey)
  return checksummed(bytesToHex(keccak_256(uncompressed.subarray(1)).subarray(12)))
}

/** EIP-55 mixed-case spelling of a lowercase hex address (40 characters, no 0x). */
function checksummed(lower: string): string {
  const hash = bytesToHex(keccak_256(new TextEncoder().encode(lower)))
  let out = '0x'
  for (let i = 0; i < 40; i++) out += parseInt(hash[i], 16) >= 8 ? lower[i].toUpperCase() : lower[i]
  return out
}

/** Signs a 32-byte digest: deterministic (RFC 6979), low-S, with the recovery bit. */
export function signDigest(privateKey: Uint8Array, digest: Uint8Array): RecoverableSignature {
  // noble v2 'recovered' layout: recovery byte, then r (32), then s (32); s is low-S.
  const sig = secp256k1.sign(digest, privateKey, { prehash: false, format: 'recovered' })
  return { recovery: sig[0] as 0 | 1, r: sig.slice(1, 33), s: sig.slice(33, 65) }
}

const HALF_N = secp256k1.Point.CURVE().n / 2n

/** Whether `sig` has the low-S form (s ≤ n/2) that Ethereum and did-jwt require. */
export function isLowS(sig: RecoverableSignature): boolean {
  return BigInt('0x' + bytesToHex(sig.s)) <= HALF_N
}

/**
 * The low-S form of a signature's `s` (32 bytes, big-endian): `s` itself when s ≤ n/2, else
 * n − s, which makes the same signature (its recovery bit flips). `flipped` tells which.
 */
export function lowS(s: Uint8Array): { s: Uint8Array; flipped: boolean } {
  const value = BigInt('0x' + bytesToHex(s))
  if (value <= HALF_N) return { s, flipped: false }
  return { s: hexToBytes((HALF_N * 2n + 1n - value).toString(16).padStart(64, '0')), flipped: true }
}

/** Recovers the uncompressed public key that made `sig` over `digest`. */
export function recoverPublicKey(sig: RecoverableSignature, digest: Uint8Array): Uint8Array {
  const bytes = new Uint8Array(65)
  bytes[0] = sig.recovery
  bytes.set(sig.r, 1)
  bytes.set(sig.s, 33)
  const compressed = secp256k1.recoverPublicKey(bytes, digest, { prehash: false })
  return secp256k1.Point.fromBytes(compressed).toBytes(false)
}

/** A signer over a private key held in memory. The key is copied; `wipe()` zeroes the copy. */
export class LocalSigner implements DigestSigner {
  readonly publicKeyHex: string
  readonly address: string
  readonly #key: Uint8Array

  constructor(privateKey: Uint8Array) {
    this.#key = Uint8Array.from(privateKey)
    const pub = publicKeyOf(this.#key)
    this.publicKeyHex = bytesToHex(pub)
    this.address = addressOf(pub)
  }

  async sign(digest: Uint8Array): Promise<RecoverableSignature> {
    return signDigest(this.#key, digest)
  }

  wipe(): void {
    this.#key.fill(0)
  }
}

export { bytesToHex, hexToBytes }
