/**
 * A wallet's {@link KeySigner} as the signer object @digitalbazaar/data-integrity signs with: the private key stays
 * behind the key port, which is asked for the JOSE signature of the bytes the cryptosuite gives (`ES256`: ECDSA with
 * SHA-256, r‖s — what ecdsa-rdfc-2019 / ecdsa-jcs-2019 / ecdsa-sd-2023 over P-256 sign; `EdDSA`: Ed25519).
 */
import { invalid } from '../../errors.js'
import type { SignatureAlgorithm } from '../../keys/key-types.js'
import type { BbsSigner, KeySigner } from '../../keys/signer.js'
import type { CryptosuiteDefinition } from './cryptosuites.js'
import type { LibraryBbsSigner, LibrarySigner } from './libraries.js'

/** What the suites sign with: a key port signer's type and its JOSE signatures of bytes (a {@link KeySigner} is one). */
export type JoseSigner = Pick<KeySigner, 'keyType' | 'sign'>

const JOSE_ALGORITHM: Partial<Record<KeySigner['keyType'], SignatureAlgorithm>> = { 'P-256': 'ES256', Ed25519: 'EdDSA' }

/**
 * The library signer of `signer` for `verificationMethod`, after checking the key type fits the cryptosuite.
 *
 * @throws {IdentityError} `VALIDATION_ERROR` (422) when the cryptosuite does not sign with keys of the signer's type
 */
export function librarySignerOf(
  signer: JoseSigner | BbsSigner,
  verificationMethod: string,
  suite: CryptosuiteDefinition,
): LibrarySigner | LibraryBbsSigner {
  if (isBbsSigner(signer)) {
    if (!suite.keyTypes.includes(signer.keyType)) throw invalid(`cryptosuite ${suite.name} does not sign with ${signer.keyType} keys`)
    return bbsLibrarySigner(signer, verificationMethod)
  }
  const alg = JOSE_ALGORITHM[signer.keyType]
  if (alg === undefined || !suite.keyTypes.includes(signer.keyType)) {
    throw invalid(`cryptosuite ${suite.name} does not sign with ${signer.keyType} keys (it takes ${suite.keyTypes.join(', ')})`)
  }
  return { id: verificationMethod, algorithm: signer.keyType, sign: ({ data }) => signer.sign(alg, data) }
}

/** Whether `signer` is a BBS signer (it signs messages under a header, not bytes under a JOSE algorithm). */
export const isBbsSigner = (signer: JoseSigner | BbsSigner): signer is BbsSigner => 'multisign' in signer

/** The library signer of a BBS key: bbs-2023 calls `multisign`; `sign` (its CBOR fallback) is never reached. */
function bbsLibrarySigner(signer: BbsSigner, verificationMethod: string): LibraryBbsSigner {
  return {
    id: verificationMethod,
    algorithm: 'BBS-BLS12-381-SHA-256',
    publicKey: signer.publicKey,
    multisign: ({ header, messages }) => signer.multisign(header, messages),
    sign: () => Promise.reject(new Error('bbs-2023 signs through multisign')),
  }
}
