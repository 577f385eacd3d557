/**
 * ES256K signature checks for JWTs: ECDSA over secp256k1 with SHA-256 of the signing input.
 * A check against a known public key runs in OpenSSL (node:crypto), several times faster
 * than pure-JS verification; recovering the signer's address (when only an address is known)
 * uses noble.
 */
import { createPublicKey, verify, type KeyObject } from 'node:crypto'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { addressOf } from './secp256k1.js'

/** A public key as node:crypto wants it, from hex (33-byte compressed or 65-byte uncompressed). */
export function publicKeyObject(publicKeyHex: string): KeyObject {
  const hex = publicKeyHex.replace(/^0x/, '')
  const point = secp256k1.Point.fromBytes(Buffer.from(hex, 'hex')).toBytes(false)
  return createPublicKey({
    key: {
      kty: 'EC',
      crv: 'secp256k1',
      x: Buffer.from(point.subarray(1, 33)).toString('base64url'),
      y: Buffer.from(point.subarray(33)).toString('base64url'),
    },
    format: 'jwk',
  })
}

/** Whether `signature` (r‖s, 64 bytes; a 65th recovery byte is ignored) signs `data` under `key`. */
export function verifyEs256k(data: string, signature: Uint8Array, key: KeyObject): boolean {
  if (signature.length !== 64 && signature.length !== 65) return false
  return verify('sha256', Buffer.from(data, 'utf8'), { key, dsaEncoding: 'ieee-p1363' }, signature.subarray(0, 64))
}

/**
 * The keys (uncompressed) that could have made `signature` over `data`, with their addresses: one
 * when the signature carries its recovery byte (0/1 or 27/28), two otherwise.
 */
export function recoverEs256kKeys(data: string, signature: Uint8Array): Array<{ address: string; publicKey: Uint8Array }> {
  if (signature.length !== 64 && signature.length !== 65) return []
  const digest = sha256(new TextEncoder().encode(data))
  const bits = signature.length === 65 ? [signature[64] >= 27 ? signature[64] - 27 : signature[64]] : [0, 1]
  const out: Array<{ address: string; publicKey: Uint8Array }> = []
  for (const bit of bits) {
    if (bit !== 0 && bit !== 1) continue
    const bytes = new Uint8Array(65)
    bytes[0] = bit
    bytes.set(signature.subarray(0, 64), 1)
    try {
      const publicKey = secp256k1.Point.fromBytes(secp256k1.recoverPublicKey(bytes, digest, { prehash: false })).toBytes(false)
      out.push({ address: addressOf(publicKey), publicKey })
    } catch {
      /* not a valid signature for this recovery bit */
    }
  }
  return out
}
