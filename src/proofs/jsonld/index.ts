/**
 * JSON-LD credential proofs, fully offline: EcdsaKoblitzSignature2016 (default) and
 * EcdsaSecp256k1RecoverySignature2020, proof sets, bundled contexts.
 */
import { invalid } from '../../errors.js'
import type { KeyType } from '../../keys/key-types.js'
import type { DigestSigner, KeySigner } from '../../keys/signer.js'
import { JsonLdProofError, shown } from './errors.js'
import { KOBLITZ_2016, KOBLITZ_2016_SUITE, signKoblitz2016 } from './koblitz2016.js'
import { proofsOf, verifyProofSet, type ProofObject, type ProofSetResult, type ProofSuite } from './proof-set.js'
import { RECOVERY_2020, RECOVERY_2020_SUITE, signRecovery2020 } from './recovery2020.js'
import type { JsonLdDocument, ProofOptions, VerifyOptions } from './types.js'

export {
  CREDENTIALS_STATUS_V1_URL,
  CREDENTIALS_V1_URL,
  CREDENTIALS_V2_URL,
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
export { KOBLITZ_2016, koblitz2016Digest, signKoblitz2016, verifyKoblitz2016, type Koblitz2016Proof } from './koblitz2016.js'
export { RECOVERY_2020, signRecovery2020, verifyRecovery2020, type Recovery2020Proof } from './recovery2020.js'
export { issuerOf, proofsOf, type ProofObject, type ProofResult, type ProofSetResult } from './proof-set.js'
export type { JsonLdDocument, ProofOptions, SigningKey, VerifyOptions, VerifyResult } from './types.js'
export type { UndefinedTerms } from './undefined-terms.js'

/** The proof suites didvault signs and verifies. */
export type ProofType = typeof KOBLITZ_2016 | typeof RECOVERY_2020

/** Options of {@link signJsonLd} / {@link addProof}. */
export interface SignJsonLdOptions extends ProofOptions {
  /** Suite of the new proof; `EcdsaKoblitzSignature2016` when omitted. */
  proofType?: ProofType
}

/** The suites didvault signs JSON-LD proofs with, by key type (Data Integrity suites for P-256 and Ed25519 come next). */
export const JSON_LD_SUITES_OF: Readonly<Record<KeyType, readonly ProofType[]>> = {
  secp256k1: [KOBLITZ_2016, RECOVERY_2020],
  'P-256': [],
  Ed25519: [],
}

/**
 * Resolves for a key type a JSON-LD suite here signs with (secp256k1).
 * @throws {IdentityError} 422 naming the suites that can sign, and what comes next, for another key type
 */
export function assertJsonLdSigns(keyType: KeyType): void {
  if (JSON_LD_SUITES_OF[keyType].length > 0) return
  throw invalid(
    `a ${keyType} key cannot sign a JSON-LD proof here: the JSON-LD suites (${JSON_LD_SUITES_OF.secp256k1.join(', ')}) ` +
      'sign with secp256k1 keys; Data Integrity suites for P-256 and Ed25519 come next. Sign as a JWT (format: "JWT")',
  )
}

/**
 * The digest signer the JSON-LD suites sign with, of `signer`'s key.
 * @throws {IdentityError} 422 naming the suites that can sign, for a key type no suite here signs with (check before writing)
 */
export function jsonLdSignerOf(signer: KeySigner): DigestSigner {
  assertJsonLdSigns(signer.keyType)
  if (!signer.digest) throw new Error(`a ${signer.keyType} signer without a digest signer`)
  return signer.digest
}

const SUITES: ReadonlyMap<string, ProofSuite> = new Map([
  [KOBLITZ_2016, KOBLITZ_2016_SUITE],
  [RECOVERY_2020, RECOVERY_2020_SUITE],
])

/**
 * Signs an unsigned JSON-LD document with one proof of `options.proofType`.
 *
 * @throws {JsonLdProofError} the document already has a proof (use {@link addProof}), or bad options
 * @throws {UnknownContextError} | {JsonLdProcessingError} the document is not safely canonicalizable
 */
export async function signJsonLd<T extends JsonLdDocument>(
  document: T,
  signer: DigestSigner,
  options: SignJsonLdOptions,
): Promise<T & { proof: ProofObject | ProofObject[] }> {
  if (proofsOf(document).length > 0) throw new JsonLdProofError('document already has a proof: use addProof to add another')
  return addProof(document, signer, options)
}

/**
 * Adds a proof of `options.proofType` to the document's proof set (the document may be
 * unsigned) and returns the new copy. Every proof of a set signs the document without any
 * proof, so existing proofs stay valid.
 *
 * @throws {JsonLdProofError} unknown proof type or bad options
 * @throws {UnknownContextError} | {JsonLdProcessingError} the document is not safely canonicalizable
 */
export async function addProof<T extends JsonLdDocument>(
  document: T,
  signer: DigestSigner,
  options: SignJsonLdOptions,
): Promise<T & { proof: ProofObject | ProofObject[] }> {
  const { proofType = KOBLITZ_2016, ...proofOptions } = options
  switch (proofType) {
    case KOBLITZ_2016:
      return signKoblitz2016(document, signer, proofOptions)
    case RECOVERY_2020:
      return signRecovery2020(document, signer, proofOptions)
    default:
      throw new JsonLdProofError(`unsupported proof type ${JSON.stringify(shown(String(proofType)))}`)
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
  return verifyProofSet(document, options, (type) => SUITES.get(type))
}
