/**
 * The library cryptosuites' verifiers, built once per thread: a verifier imports its verification method's public key
 * (WebCrypto `importKey`, which costs more than checking a signature), so it is cached by the cryptosuite and the whole
 * verification method document handed to it (its key material too: a rotated key misses). The ECDSA cryptosuites'
 * verify data learns the key's curve (its hash: SHA-256 for P-256, SHA-384 for P-384) from the method already bound,
 * not from a third import of the key.
 */
import { PromiseLru } from './key-cache.js'
import type { Cryptosuite, LibraryVerifier } from './libraries.js'

/** The verifiers cryptosuites built, by cryptosuite and verification method document. */
const verifiers = new PromiseLru<LibraryVerifier>(256)

/** The cryptosuites whose verify data reads the key's curve by importing the verification method. */
const READS_CURVE_OF_KEY = new Set(['ecdsa-rdfc-2019', 'ecdsa-jcs-2019'])

/** `cryptosuite` (verifying a method whose key has `curve`) with its verifiers cached and, for ECDSA, the curve handed over. */
export function withCachedVerifiers(cryptosuite: Cryptosuite, curve: string): Cryptosuite {
  const createVerifier: Cryptosuite['createVerifier'] = ({ verificationMethod }) =>
    verifiers.get(`${cryptosuite.name}\n${JSON.stringify(verificationMethod)}`, () => cryptosuite.createVerifier({ verificationMethod }))
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
