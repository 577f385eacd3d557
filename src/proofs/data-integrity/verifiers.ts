/**
 * The library cryptosuites' verifiers, built once per thread: a verifier imports its verification method's public key
 * (WebCrypto `importKey`, which costs more than checking a signature), so it is cached by the cryptosuite and the whole
 * verification method document handed to it (its key material too: a rotated key misses). The ECDSA cryptosuites'
 * verify data learns the key's curve (its hash: SHA-256 for P-256, SHA-384 for P-384) from the method already bound,
 * not from a third import of the key. The whole-document cryptosuites over P-256 and Ed25519 check signatures with the
 * key's node:crypto object made once ({@link verifyJose}, as the key port does) — the library's Ed25519 verifier makes a
 * key object on every call, its ECDSA one goes through WebCrypto's thread pool — after the library built its verifier
 * (which checks the key); the verify data stays the library's.
 */
import { createPublicKey, type KeyObject } from 'node:crypto'
import { jwkOfMultikey } from '../../did/methods/index.js'
import { keyTypeOfJwk, type SignatureAlgorithm } from '../../keys/key-types.js'
import { verifyJose } from '../../keys/verify-jose.js'
import { PromiseLru } from './key-cache.js'
import type { Cryptosuite, LibraryVerifier } from './libraries.js'

/** The verifiers cryptosuites built, by cryptosuite and verification method document. */
const verifiers = new PromiseLru<LibraryVerifier>(256)

/** The JOSE algorithm of the whole-document cryptosuites' signatures over P-256 (ES256: SHA-256, r‖s) and Ed25519. */
const JOSE_OF_WHOLE_DOCUMENT: Readonly<Record<string, SignatureAlgorithm>> = {
  'ecdsa-rdfc-2019': 'ES256',
  'ecdsa-jcs-2019': 'ES256',
  'eddsa-rdfc-2022': 'EdDSA',
  'eddsa-jcs-2022': 'EdDSA',
}

/** The node:crypto key of a P-256 or Ed25519 Multikey of `curve`; undefined for any other key. */
function keyObjectOf(publicKeyMultibase: unknown, curve: string): KeyObject | undefined {
  const jwk = typeof publicKeyMultibase === 'string' ? jwkOfMultikey(publicKeyMultibase) : undefined
  if (jwk === undefined || keyTypeOfJwk(jwk) !== curve || (curve !== 'P-256' && curve !== 'Ed25519')) return undefined
  return createPublicKey({ key: { ...jwk }, format: 'jwk' })
}

/** The cryptosuites whose verify data reads the key's curve by importing the verification method. */
const READS_CURVE_OF_KEY = new Set(['ecdsa-rdfc-2019', 'ecdsa-jcs-2019'])

/** `cryptosuite` (verifying a method whose key has `curve`) with its verifiers cached and, for ECDSA, the curve handed over. */
export function withCachedVerifiers(cryptosuite: Cryptosuite, curve: string): Cryptosuite {
  const createVerifier: Cryptosuite['createVerifier'] = ({ verificationMethod }) =>
    verifiers.get(`${cryptosuite.name}\n${JSON.stringify(verificationMethod)}`, async () => {
      const verifier = await cryptosuite.createVerifier({ verificationMethod })
      const alg = JOSE_OF_WHOLE_DOCUMENT[cryptosuite.name]
      const key = alg === undefined || verifier.algorithm !== curve ? undefined : keyObjectOf(verificationMethod.publicKeyMultibase, curve)
      if (key === undefined) return verifier
      return {
        id: verifier.id,
        algorithm: verifier.algorithm,
        verify: async ({ data, signature }) => signature !== undefined && verifyJose(key, alg, data, signature),
      }
    })
  const createVerifyData = cryptosuite.createVerifyData
  if (createVerifyData === undefined || !READS_CURVE_OF_KEY.has(cryptosuite.name)) return { ...cryptosuite, createVerifier }
  // Without a `verificationMethod`, these cryptosuites take the curve from `dataIntegrityProof.signer.algorithm`.
  const withCurve: Cryptosuite['createVerifyData'] = ({ dataIntegrityProof, ...options }) =>
    createVerifyData({
      ...options,
      verificationMethod: undefined,
      dataIntegrityProof: Object.create(dataIntegrityProof as object, { signer: { value: { algorithm: curve } } }) as object,
    })
  return { ...cryptosuite, createVerifier, createVerifyData: withCurve }
}
