/** What the key port needs of a key type's curve code: generate, public JWK, sign per algorithm. */
import { createPrivateKey, sign as nodeSign } from 'node:crypto'
import type { KeyType, PublicJwk, SignatureAlgorithm } from '../key-types.js'

/**
 * One key type's curve code. Private keys are the raw scalar / seed bytes the curve library
 * takes (32 bytes for all three types); callers wipe what they pass in.
 */
export interface KeyCurve {
  readonly type: KeyType
  /** A fresh random private key. */
  generate(): Uint8Array
  /** The public JWK of a private key. */
  publicJwk(privateKey: Uint8Array): PublicJwk
  /** The public JWK of a public key's bytes: a SEC1 point (compressed or not) for secp256k1 and P-256, the 32 bytes for Ed25519. */
  publicJwkOfBytes(publicKey: Uint8Array): PublicJwk
  /** The public key's bytes an MPC provider shows: the compressed SEC1 point (33 bytes), or Ed25519's 32 bytes. */
  publicBytes(privateKey: Uint8Array): Uint8Array
  /**
   * The JOSE signature of `data` under `alg` (one of {@link ALGORITHMS_OF}[type]): r‖s for
   * ES256K and ES256, r‖s‖v for ES256K-R, the 64-byte signature for EdDSA. `publicJwk`, the key's public JWK when the
   * caller holds it (a key record's), spares deriving it.
   */
  sign(privateKey: Uint8Array, alg: SignatureAlgorithm, data: Uint8Array, publicJwk?: PublicJwk): Uint8Array
}

/** The base64url (no padding) of bytes, as JWK members spell them. */
export const base64url = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64url')

/** Refuses an algorithm the key type does not sign under. */
export function unsupported(type: KeyType, alg: string): never {
  throw new RangeError(`a ${type} key does not sign under ${alg}`)
}

/** The JWK of an uncompressed SEC1 point (65 bytes, 04 prefix) on `crv`. */
export function ecJwk(crv: 'secp256k1' | 'P-256', point: Uint8Array): PublicJwk {
  return { kty: 'EC', crv, x: base64url(point.subarray(1, 33)), y: base64url(point.subarray(33)) }
}

/** The uncompressed SEC1 point (65 bytes, 04 prefix) of an `EC` JWK: the inverse of {@link ecJwk}. */
export function ecPoint(jwk: PublicJwk): Uint8Array {
  if (jwk.kty !== 'EC' || jwk.y === undefined) throw new RangeError(`not an EC public key: ${jwk.kty} ${jwk.crv}`)
  return Uint8Array.from([4, ...Buffer.from(jwk.x, 'base64url'), ...Buffer.from(jwk.y, 'base64url')])
}

/**
 * The JOSE signature of `data` by OpenSSL (node:crypto) with the private key of `publicJwk` (P-256: ECDSA with SHA-256,
 * r‖s; Ed25519: EdDSA), handed to OpenSSL as a private JWK (the quickest import node:crypto has; the JWK's `d` string
 * cannot be wiped, like the curve library's own intermediates). OpenSSL signs these curves several times faster than
 * pure JavaScript.
 */
export function opensslSign(publicJwk: PublicJwk, privateKey: Uint8Array, data: Uint8Array): Uint8Array {
  if (privateKey.length !== 32) throw new RangeError(`a ${publicJwk.crv} private key is 32 bytes`)
  const key = createPrivateKey({ key: { ...publicJwk, d: base64url(privateKey) }, format: 'jwk' })
  return new Uint8Array(
    publicJwk.crv === 'Ed25519' ? nodeSign(null, data, key) : nodeSign('sha256', data, { key, dsaEncoding: 'ieee-p1363' }),
  )
}
