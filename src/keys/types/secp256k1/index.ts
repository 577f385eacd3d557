/** secp256k1 keys: ES256K (r‖s, low-S) and ES256K-R (r‖s‖v), SHA-256 of the data; and r‖s‖v over a digest given. */
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { sha256 } from '@noble/hashes/sha2.js'
import type { PublicJwk, SignatureAlgorithm } from '../../key-types.js'
import { ecJwk, unsupported, type KeyCurve } from '../curve.js'

/**
 * The recoverable signature r‖s‖v (v ∈ {0, 1}, low-S, RFC 6979) of a 32-byte digest the caller
 * computed: what the did:ethr registries sign (a keccak digest).
 */
export function signRecoverableDigest(privateKey: Uint8Array, digest: Uint8Array): Uint8Array {
  if (digest.length !== 32) throw new RangeError('the digest must be 32 bytes')
  // noble's 'recovered' layout is v‖r‖s; JOSE's ES256K-R is r‖s‖v.
  const sig = secp256k1.sign(digest, privateKey, { prehash: false, format: 'recovered' })
  const out = new Uint8Array(65)
  out.set(sig.subarray(1, 65), 0)
  out[64] = sig[0]
  return out
}

export const SECP256K1: KeyCurve = {
  type: 'secp256k1',
  generate: () => secp256k1.utils.randomSecretKey(),
  publicJwk: (privateKey: Uint8Array): PublicJwk => ecJwk('secp256k1', secp256k1.getPublicKey(privateKey, false)),
  publicJwkOfBytes: (publicKey: Uint8Array): PublicJwk => ecJwk('secp256k1', secp256k1.Point.fromBytes(publicKey).toBytes(false)),
  publicBytes: (privateKey: Uint8Array) => secp256k1.getPublicKey(privateKey, true),
  sign(privateKey: Uint8Array, alg: SignatureAlgorithm, data: Uint8Array): Uint8Array {
    if (alg === 'ES256K-R') return signRecoverableDigest(privateKey, sha256(data))
    if (alg === 'ES256K') return secp256k1.sign(sha256(data), privateKey, { prehash: false, format: 'compact' })
    return unsupported('secp256k1', alg)
  },
}
