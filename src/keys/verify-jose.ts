/** Checks a JOSE-form signature (r‖s, r‖s‖v, or EdDSA's 64 bytes) against a public JWK, in OpenSSL (node:crypto). */
import { createPublicKey, KeyObject, verify } from 'node:crypto'
import type { PublicJwk, SignatureAlgorithm } from './key-types.js'

/**
 * Whether `signature` signs `data` under `alg` with the key `jwk` (a public JWK, or its key object made once by the
 * caller); a 65th recovery byte of ES256K-R is ignored.
 */
export function verifyJose(jwk: PublicJwk | KeyObject, alg: SignatureAlgorithm, data: Uint8Array, signature: Uint8Array): boolean {
  const key = jwk instanceof KeyObject ? jwk : createPublicKey({ key: { ...jwk }, format: 'jwk' })
  if (alg === 'EdDSA') return signature.length === 64 && verify(null, data, key, signature)
  if (signature.length !== (alg === 'ES256K-R' ? 65 : 64)) return false
  return verify('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, signature.subarray(0, 64))
}
