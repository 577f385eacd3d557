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
   * ES256K and ES256, r‖s‖v for ES256K-R, the 64-byte signature for EdDSA.
   */
  sign(privateKey: Uint8Array, alg: SignatureAlgorithm, data: Uint8Array): Uint8Array
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
 * The JOSE signature of `data` by OpenSSL (node:crypto) with a raw private key of `type` (P-256: ECDSA with SHA-256,
 * r‖s; Ed25519: EdDSA): the key is wrapped in a PKCS#8 document (RFC 5915 without the optional public key for P-256,
 * RFC 8410 for Ed25519) that is wiped after OpenSSL has read it. OpenSSL signs these curves an order of magnitude faster
 * than pure JavaScript.
 */
export function opensslSign(type: 'P-256' | 'Ed25519', privateKey: Uint8Array, data: Uint8Array): Uint8Array {
  if (privateKey.length !== 32) throw new RangeError(`a ${type} private key is 32 bytes`)
  const der = Buffer.concat([PKCS8_PREFIX[type], privateKey])
  try {
    const key = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' })
    return new Uint8Array(type === 'Ed25519' ? nodeSign(null, data, key) : nodeSign('sha256', data, { key, dsaEncoding: 'ieee-p1363' }))
  } finally {
    der.fill(0)
  }
}

/** The PKCS#8 bytes before a 32-byte private key: P-256 (id-ecPublicKey, prime256v1, ECPrivateKey v1) and Ed25519. */
const PKCS8_PREFIX = {
  'P-256': Buffer.from('3041020100301306072a8648ce3d020106082a8648ce3d030107042730250201010420', 'hex'),
  Ed25519: Buffer.from('302e020100300506032b657004220420', 'hex'),
} as const
