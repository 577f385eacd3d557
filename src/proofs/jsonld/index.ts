/**
 * JSON-LD credential proofs, fully offline: the suites of the registry (`proofs/suites/`; EcdsaKoblitzSignature2016
 * the secp256k1 default, EcdsaSecp256k1RecoverySignature2020), proof sets, bundled contexts.
 */
import type { KeyType } from '../../keys/key-types.js'
import type { DigestSigner } from '../../keys/signer.js'
import { invalid } from '../../errors.js'
import { JsonLdProofError } from './errors.js'
import { proofsOf, verifyProofSet, type ProofObject, type ProofSetResult } from './proof-set.js'
import { suiteName, suiteOfProof, suiteToSign, type ProofSigner, type SuiteRequest } from '../suites/index.js'
import type { DATA_INTEGRITY_PROOF, KOBLITZ_2016, RECOVERY_2020 } from './suite-names.js'
import type { CanonicalHasher } from './canonical-hasher.js'
import type { JsonLdDocument, ProofOptions, VerifyOptions } from './types.js'

export {
  CREDENTIALS_STATUS_V1_URL,
  CREDENTIALS_V1_URL,
  CREDENTIALS_V2_URL,
  DATA_INTEGRITY_V1_URL,
  DATA_INTEGRITY_V2_URL,
  DID_V1_URL,
  SECP256K1_RECOVERY_2020_V0_URL,
  SECP256K1_RECOVERY_2020_V2_URL,
  SECURITY_V1_URL,
  SECURITY_V2_URL,
  UNDEFINED_TERMS_V2_URL,
  getContext,
  registerContext,
  type ContextDocument,
  type ContextEntry,
} from './contexts.js'
export { UnknownContextError, documentLoader, type LoadedContext } from './document-loader.js'
export { JsonLdProcessingError, JsonLdProofError } from './errors.js'
export { canonize } from './canonize.js'
export {
  KOBLITZ_2016,
  RECOVERY_2020,
  koblitz2016Digest,
  signKoblitz2016,
  signRecovery2020,
  verifyKoblitz2016,
  verifyRecovery2020,
  type Koblitz2016Proof,
  type Recovery2020Proof,
} from '../suites/index.js'
export { issuerOf, proofsOf, type ProofObject, type ProofResult, type ProofSetResult } from './proof-set.js'
export type { JsonLdDocument, ProofOptions, SigningKey, VerifyOptions, VerifyResult } from './types.js'
export type { UndefinedTerms } from './undefined-terms.js'

/** The proof types a request may name (a Data Integrity suite by its `cryptosuite` too). */
export type ProofType = typeof KOBLITZ_2016 | typeof RECOVERY_2020 | typeof DATA_INTEGRITY_PROOF

/** Options of {@link signJsonLd} / {@link addProof}. */
export interface SignJsonLdOptions extends ProofOptions {
  /** Suite of the new proof; the signing key type's default when omitted (secp256k1: `EcdsaKoblitzSignature2016`). */
  proofType?: ProofType
  /** The Data Integrity cryptosuite of the new proof (`proofType` `DataIntegrityProof`, or omitted). */
  cryptosuite?: string
}

/**
 * Resolves when a registered suite signs JSON-LD proofs with a `keyType` key: the one `request` names, else the key
 * type's default (see `suiteToSign` of the suite registry).
 * @throws {IdentityError} 422 naming the suites that fit (check before writing)
 */
export function assertJsonLdSigns(keyType: KeyType, request: SuiteRequest = {}): void {
  suiteToSign(keyType, request)
}

/**
 * Signs an unsigned JSON-LD document with one proof of `options.proofType`.
 *
 * @throws {JsonLdProofError} the document already has a proof (use {@link addProof}), or bad options
 * @throws {UnknownContextError} | {JsonLdProcessingError} the document is not safely canonicalizable
 */
export async function signJsonLd<T extends JsonLdDocument>(
  document: T,
  signer: ProofSigner | DigestSigner,
  options: SignJsonLdOptions,
): Promise<T & { proof: ProofObject | ProofObject[] }> {
  if (proofsOf(document).length > 0) throw new JsonLdProofError('document already has a proof: use addProof to add another')
  return addProof(document, signer, options)
}

/**
 * Adds a proof of the suite `options` name (`proofType`, `cryptosuite`; by default the one of the signer's key type) to
 * the document's proof set (the document may be unsigned) and returns the new copy. Every proof of a set signs the
 * document without any proof, so existing proofs stay valid. A bare {@link DigestSigner} signs as a secp256k1 key.
 *
 * @throws {IdentityError} 422 a suite that is not registered or does not sign with the key's type
 * @throws {JsonLdProofError} bad options
 * @throws {UnknownContextError} | {JsonLdProcessingError} the document is not safely canonicalizable
 */
export async function addProof<T extends JsonLdDocument>(
  document: T,
  signer: ProofSigner | DigestSigner,
  options: SignJsonLdOptions,
): Promise<T & { proof: ProofObject | ProofObject[] }> {
  const { proofType, cryptosuite, ...proofOptions } = options
  const proofSigner = 'keyType' in signer ? signer : secp256k1Signer(signer)
  const suite = suiteToSign(proofSigner.keyType, { proofType, cryptosuite })
  // Only a selective-disclosure suite (one that derives) has mandatory pointers.
  if (proofOptions.mandatoryPointers !== undefined && suite.derive === undefined)
    throw invalid(`mandatoryPointers: only with a selective-disclosure cryptosuite (ecdsa-sd-2023, bbs-2023), not ${suiteName(suite)}`)
  return suite.sign(document, proofSigner, proofOptions)
}

/**
 * Derives from `document` — a credential with one base proof of a selective-disclosure suite (ecdsa-sd-2023, bbs-2023) — the
 * credential revealing its mandatory claims and those `selectivePointers` select, with the derived proof: the suite
 * of the base proof derives (the registry's `ProofSuite.derive`). Needs no key.
 *
 * @throws {IdentityError} 422: no single base proof of a suite that derives, a malformed pointer, a pointer that
 *   selects nothing, a document over the hasher's bounds or not safely canonicalizable
 */
export async function deriveJsonLd(
  document: JsonLdDocument,
  selectivePointers: string[],
  options: { hasher: CanonicalHasher },
): Promise<JsonLdDocument> {
  const deriving = proofsOf(document).flatMap((found) => {
    const proof = (typeof found === 'object' && found !== null ? found : {}) as ProofObject
    const suite = suiteOfProof(String(proof.type), typeof proof.cryptosuite === 'string' ? proof.cryptosuite : undefined)
    return suite?.derive === undefined ? [] : [suite]
  })
  if (deriving.length !== 1)
    throw invalid(
      'the credential must carry exactly one proof of a selective-disclosure cryptosuite (ecdsa-sd-2023, bbs-2023) to derive from, ' +
        `found ${deriving.length}`,
    )
  return deriving[0].derive!(document, selectivePointers, options)
}

/** A secp256k1 key that signs digests only. */
function secp256k1Signer(digest: DigestSigner): ProofSigner {
  return {
    keyType: 'secp256k1',
    digest,
    sign: () => Promise.reject(new JsonLdProofError('a digest signer signs the secp256k1 suites’ digests only')),
  }
}

/**
 * Verifies every proof of a document (one proof or a proof set, of either suite). It is
 * verified when it has at least one proof, all of them verify, and at least one is by the
 * document's `issuer` (or `options.issuer`); `proofs` tells each proof's outcome and the DID
 * that made it. Each proof's `creator` / `verificationMethod` must be a DID URL naming a key
 * that `resolveSigningKeys` finds for that DID (co-signers' proofs are bound to their own DID),
 * so a valid signature by another DID's key alone does not make a credential verified. An
 * invalid or unsupported proof, or a document jsonld safe mode rejects, is `verified: false`
 * with the reason, never a throw.
 *
 * @throws {UnknownContextError} the document references an unknown context (422)
 */
export async function verifyJsonLd(document: JsonLdDocument, options: VerifyOptions): Promise<ProofSetResult> {
  return verifyProofSet(document, options, suiteOfProof)
}
