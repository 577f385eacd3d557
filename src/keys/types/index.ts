/** The curve code of every key type: one line per type. */
import type { KeyType } from '../key-types.js'
import type { KeyCurve } from './curve.js'
import { ED25519 } from './ed25519/index.js'
import { P256 } from './p-256/index.js'
import { SECP256K1 } from './secp256k1/index.js'

export type { KeyCurve } from './curve.js'
export { signRecoverableDigest } from './secp256k1/index.js'
export { bbsPublicJwk, bbsSign, generateBbsKey } from './bls12-381-g2/index.js'

export const CURVES: Readonly<Record<KeyType, KeyCurve>> = {
  secp256k1: SECP256K1,
  'P-256': P256,
  Ed25519: ED25519,
}
