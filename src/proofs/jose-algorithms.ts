/**
 * The JWT side's algorithm → verifier table (as the proof-suite registry is for Data Integrity): for each JOSE
 * algorithm a JWS may be signed under, the key types it signs with, how to read such a key from a DID document's
 * verification method, and the signature check in OpenSSL (node:crypto, `keys/verify-jose.ts`). The DID-signed JWT
 * verifier (`jwt-verifier.ts`) and the JWS-by-DID check (`jws-by-did.ts`) both read keys and check signatures here; an
 * algorithm without a row is refused by each of them as before.
 */
import { KeyObject } from 'node:crypto'
import type { VerificationMethod } from 'did-resolver'
import { publicKeyObject } from '../keys/es256k.js'
import type { KeyType, PublicJwk, SignatureAlgorithm } from '../keys/key-types.js'
import { keyOfJwk } from '../keys/public-key-objects.js'
import { verifyJose } from '../keys/verify-jose.js'
import { joseKeyOf } from './jose-keys.js'
import { secp256k1KeyHex } from './signing-keys.js'

/** One algorithm's verifier. */
export interface JoseVerifier {
  /** The key types that sign under the algorithm. */
  readonly keyTypes: readonly KeyType[]
  /**
   * The public key of `vm` when it is one of {@link keyTypes} (`publicKeyJwk`, `publicKeyMultibase`,
   * `publicKeyBase58`, `publicKeyHex`), made once per key (bounded); undefined otherwise.
   */
  keyOf(vm: VerificationMethod): KeyObject | undefined
  /**
   * Whether `signature` (JOSE form: r‖s, r‖s‖v for ES256K-R, 64 bytes for EdDSA) signs `signingInput` under the
   * algorithm with `key` (a public JWK, or its key object). False for a key of another type or curve, or one OpenSSL
   * refuses.
   */
  verify(signingInput: Uint8Array | string, signature: Uint8Array, key: PublicJwk | KeyObject): boolean
}

/** node:crypto's name of each key type's curve (`asymmetricKeyDetails.namedCurve`, or the key type for Ed25519). */
const CURVE_OF: Readonly<Record<KeyType, string>> = { secp256k1: 'secp256k1', 'P-256': 'prime256v1', Ed25519: 'ed25519' }

const curveOf = (key: KeyObject): string | undefined =>
  key.asymmetricKeyType === 'ec' ? key.asymmetricKeyDetails?.namedCurve : key.asymmetricKeyType

function verifier(alg: SignatureAlgorithm, keyType: KeyType, keyOf: (vm: VerificationMethod) => KeyObject | undefined): JoseVerifier {
  return {
    keyTypes: [keyType],
    keyOf,
    verify(signingInput, signature, key) {
      try {
        // A JWK's key object is remembered: the key of an OID4VCI key proof is imported once, for its check and the credential's `cnf.jwk`.
        const object = key instanceof KeyObject ? key : keyOfJwk(key)?.key
        if (object === undefined || object.type !== 'public' || curveOf(object) !== CURVE_OF[keyType]) return false
        const data = typeof signingInput === 'string' ? Buffer.from(signingInput, 'utf8') : signingInput
        return verifyJose(object, alg, data, signature)
      } catch {
        return false
      }
    },
  }
}

const MAX_REMEMBERED = 10_000
const secp256k1Keys = new Map<string, KeyObject | null>()

/** The secp256k1 key of a method (`publicKeyHex`, or base58 / multibase / JWK), made once (bounded). */
function secp256k1KeyOf(vm: VerificationMethod): KeyObject | undefined {
  const hex = vm.publicKeyHex || secp256k1KeyHex(vm)
  if (!hex) return undefined
  let key = secp256k1Keys.get(hex)
  if (key === undefined) {
    try {
      key = publicKeyObject(hex)
    } catch {
      key = null
    }
    if (secp256k1Keys.size >= MAX_REMEMBERED) secp256k1Keys.delete(secp256k1Keys.keys().next().value!)
    secp256k1Keys.set(hex, key)
  }
  return key ?? undefined
}

/** Every JOSE algorithm a DID-signed JWS may be checked under, and its verifier. */
export const JOSE_VERIFIERS: Readonly<Record<SignatureAlgorithm, JoseVerifier>> = {
  ES256K: verifier('ES256K', 'secp256k1', secp256k1KeyOf),
  'ES256K-R': verifier('ES256K-R', 'secp256k1', secp256k1KeyOf),
  ES256: verifier('ES256', 'P-256', (vm) => joseKeyOf(vm, 'ES256')),
  EdDSA: verifier('EdDSA', 'Ed25519', (vm) => joseKeyOf(vm, 'EdDSA')),
}

/** The verifier of `alg`; undefined for an algorithm without a row (`none`, MACs, anything else). */
export function joseVerifierOf(alg: unknown): JoseVerifier | undefined {
  return typeof alg === 'string' && Object.prototype.hasOwnProperty.call(JOSE_VERIFIERS, alg)
    ? JOSE_VERIFIERS[alg as SignatureAlgorithm]
    : undefined
}
