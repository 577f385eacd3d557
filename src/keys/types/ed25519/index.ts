/** Ed25519 keys: EdDSA (RFC 8037), the 64-byte signature of the data itself. */
import { ed25519 } from '@noble/curves/ed25519.js'
import type { PublicJwk, SignatureAlgorithm } from '../../key-types.js'
import { base64url, unsupported, type KeyCurve, opensslSign } from '../curve.js'

export const ED25519: KeyCurve = {
  type: 'Ed25519',
  generate: () => ed25519.utils.randomSecretKey(),
  publicJwk: (privateKey: Uint8Array): PublicJwk => ({ kty: 'OKP', crv: 'Ed25519', x: base64url(ed25519.getPublicKey(privateKey)) }),
  publicJwkOfBytes(publicKey: Uint8Array): PublicJwk {
    if (publicKey.length !== 32) throw new RangeError('an Ed25519 public key is 32 bytes')
    return { kty: 'OKP', crv: 'Ed25519', x: base64url(publicKey) }
  },
  publicBytes: (privateKey: Uint8Array) => ed25519.getPublicKey(privateKey),
  sign(privateKey: Uint8Array, alg: SignatureAlgorithm, data: Uint8Array, publicJwk?: PublicJwk): Uint8Array {
    if (alg !== 'EdDSA') return unsupported('Ed25519', alg)
    return opensslSign(publicJwk ?? ED25519.publicJwk(privateKey), privateKey, data)
  },
}
