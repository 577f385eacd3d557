/**
 * The JWS algorithms an SD-JWT VC or a KB-JWT is signed under here, and the key type each one needs: `alg: none`, MACs
 * and every other algorithm are refused.
 */
import type { KeyType, SignatureAlgorithm } from '../../../keys/key-types.js'

/** The key type of each accepted algorithm. */
const KEY_TYPE_OF: Readonly<Record<string, KeyType>> = { ES256: 'P-256', ES256K: 'secp256k1', EdDSA: 'Ed25519' }

/** The algorithm a key type signs SD-JWTs and KB-JWTs under. */
export const SD_JWT_ALGORITHM_OF: Readonly<Record<KeyType, SignatureAlgorithm>> = {
  'P-256': 'ES256',
  secp256k1: 'ES256K',
  Ed25519: 'EdDSA',
}

/** The key type `alg` needs; undefined for an algorithm not accepted (`none`, `HS256`, `ES256K-R`, …). */
export const keyTypeOfAlgorithm = (alg: unknown): KeyType | undefined =>
  typeof alg === 'string' && Object.hasOwn(KEY_TYPE_OF, alg) ? KEY_TYPE_OF[alg] : undefined

/** Why `alg` is refused, for a check's error (the value is cut short: it is the caller's). */
export const refusedAlgorithm = (alg: unknown): string =>
  alg === 'none' ? 'alg none is refused' : `unsupported algorithm ${String(alg).slice(0, 20)} (ES256, ES256K or EdDSA)`
