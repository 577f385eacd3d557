/** P-256 keys: ES256 (ECDSA with SHA-256, r‖s). */
import { p256 } from '@noble/curves/nist.js'
import type { PublicJwk, SignatureAlgorithm } from '../../key-types.js'
import { ecJwk, unsupported, type KeyCurve, opensslSign } from '../curve.js'

export const P256: KeyCurve = {
  type: 'P-256',
  generate: () => p256.utils.randomSecretKey(),
  publicJwk: (privateKey: Uint8Array): PublicJwk => ecJwk('P-256', p256.getPublicKey(privateKey, false)),
  publicJwkOfBytes: (publicKey: Uint8Array): PublicJwk => ecJwk('P-256', p256.Point.fromBytes(publicKey).toBytes(false)),
  publicBytes: (privateKey: Uint8Array) => p256.getPublicKey(privateKey, true),
  sign(privateKey: Uint8Array, alg: SignatureAlgorithm, data: Uint8Array, publicJwk?: PublicJwk): Uint8Array {
    if (alg !== 'ES256') return unsupported('P-256', alg)
    return opensslSign(publicJwk ?? P256.publicJwk(privateKey), privateKey, data)
  },
}
