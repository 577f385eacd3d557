/**
 * A public JWK as the bytes did:key and Multikey carry, and back: the 32-byte Ed25519 key, the
 * 33-byte compressed point of P-256 and secp256k1 (an uncompressed point or one off the curve
 * is refused). Points are checked and converted by @noble/curves.
 */
import { p256 } from '@noble/curves/nist.js'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { ed25519 } from '@noble/curves/ed25519.js'
import { base64urlnopad as base64url } from '@scure/base'
import { invalid } from '../../errors.js'
import { keyTypeOfJwk, type KeyType, type PublicJwk } from '../../keys/key-types.js'

const CURVES = { 'P-256': p256, secp256k1 } as const

/** The key's bytes (Ed25519: 32; P-256, secp256k1: the 33-byte compressed point). @throws {Error} a JWK that is no valid key */
export function publicKeyBytes(jwk: PublicJwk): Uint8Array {
  const type = keyTypeOfJwk(jwk)
  if (type === undefined) throw new Error('not a secp256k1, P-256 or Ed25519 public JWK')
  if (type === 'Ed25519') {
    const bytes = base64url.decode(jwk.x)
    if (bytes.length !== 32) throw new Error('an Ed25519 key is 32 bytes')
    ed25519.Point.fromBytes(bytes)
    return bytes
  }
  const x = base64url.decode(jwk.x)
  const y = base64url.decode(jwk.y!)
  if (x.length !== 32 || y.length !== 32) throw new Error(`a ${type} coordinate is 32 bytes`)
  const uncompressed = new Uint8Array(65)
  uncompressed[0] = 4
  uncompressed.set(x, 1)
  uncompressed.set(y, 33)
  return CURVES[type].Point.fromBytes(uncompressed).toBytes(true)
}

/**
 * {@link publicKeyBytes} of the key a DID is created for.
 * @throws {IdentityError} 422 naming the method, for a JWK that is no valid public key of its curve
 */
export function keyBytesToCreate(method: string, jwk: PublicJwk): Uint8Array {
  try {
    return publicKeyBytes(jwk)
  } catch (err) {
    throw invalid(`did:${method} takes a valid public key: ${(err as Error).message}`.slice(0, 200))
  }
}

/** The JWK of a key's bytes (as {@link publicKeyBytes} gives them). @throws {Error} bytes that are no key of that type */
export function publicJwkOf(type: KeyType, bytes: Uint8Array): PublicJwk {
  if (type === 'Ed25519') {
    if (bytes.length !== 32) throw new Error('an Ed25519 key is 32 bytes')
    ed25519.Point.fromBytes(bytes)
    return { kty: 'OKP', crv: 'Ed25519', x: base64url.encode(bytes) }
  }
  if (bytes.length !== 33) throw new Error(`a ${type} did:key carries a compressed point (33 bytes)`)
  const point = CURVES[type].Point.fromBytes(bytes).toBytes(false)
  return { kty: 'EC', crv: type, x: base64url.encode(point.subarray(1, 33)), y: base64url.encode(point.subarray(33)) }
}

/** The X25519 key of an Ed25519 key (RFC 7748 birational map), for did:key's `keyAgreement`. */
export function x25519OfEd25519(bytes: Uint8Array): Uint8Array {
  return ed25519.utils.toMontgomery(bytes)
}
