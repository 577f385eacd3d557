/**
 * The `EcdsaKoblitzSignature2016` suite: the 2017 Linked Data Signatures "create verify
 * hash" over secp256k1, the proof shape jolocom-lib and the didvault spec use:
 * `{type, creator, created, nonce?, domain?, signatureValue}`.
 *
 * digest = sha256( sha256(c14n(proof options)) ‖ sha256(c14n(document without proof)) )
 *
 * - proof options: the proof without `signatureValue`, `id` and `type` (the LD Signatures
 *   2017 algorithm removes exactly these three; jolocom-lib's `normalizeLdProof` does the
 *   same), canonicalized with `@context` = [security/v2, ...the document's `@context`].
 *   Security v2 (which includes v1) defines `created`, `creator`, `nonce` and `domain`
 *   with the IRIs jolocom-lib's own context uses (dc:created, dc:creator, sec:nonce,
 *   sec:domain), so the result equals jolocom-lib's (which uses the document's context
 *   alone) whenever that context defines the terms, and it also works for a W3C VC whose
 *   `credentials/v1` context does not define them: with `credentials/v1` alone safe mode
 *   rejects `created` as undefined, and placing security/v2 *after* the protected
 *   `credentials/v1` is a protected-term redefinition. Security first, the document's
 *   own (possibly protected) contexts after it, always processes.
 * - c14n: RDFC-1.0 (URDNA2015) N-Quads, jsonld safe mode.
 * - signatureValue: hex of r‖s (64 bytes), low-S; verification rejects high-S.
 */
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex, concatBytes, hexToBytes, randomBytes } from '@noble/hashes/utils.js'
import type { DigestSigner } from '../../../keys/signer.js'
import { IN_THREAD_HASHER, type CanonicalHasher } from '../../jsonld/canonical-hasher.js'
import { SECURITY_V2_URL } from '../../jsonld/contexts.js'
import { shown } from '../../jsonld/errors.js'
import { hasHighS, signedByAnyKey, toCompactLowS } from '../../jsonld/keys.js'
import { appendProof, contextList, unsignedOf, verifyProofSet } from '../../jsonld/proof-set.js'
import { digestProofOptions, digestSignerOf } from '../digest-signer.js'
import type { ProofCheckContext, ProofObject, ProofSuite } from '../port.js'
import type { JsonLdDocument, ProofOptions, VerifyOptions, VerifyResult } from '../../jsonld/types.js'
import { KOBLITZ_2016 } from '../../jsonld/suite-names.js'

/** The suite's proof type. */
export { KOBLITZ_2016 }

/** An EcdsaKoblitzSignature2016 proof. */
export type Koblitz2016Proof = {
  type: typeof KOBLITZ_2016
  /** DID URL of the signing key. */
  creator: string
  /** ISO 8601 signing time. */
  created: string
  nonce?: string
  domain?: string
  /** Hex r‖s, 64 bytes, low-S. */
  signatureValue: string
}

/** Bytes of the nonce generated when none is given. */
const NONCE_BYTES = 8

/**
 * The 32-byte digest a Koblitz2016 `proof` signs over `document` (whose own `proof`, if
 * any, is ignored). The proof's `signatureValue`, `id` and `type` do not enter it. Both
 * canonicalizations are one unit of work of `hasher`.
 *
 * @throws {UnknownContextError} | {JsonLdProcessingError} when canonicalization fails
 */
export async function koblitz2016Digest(
  document: JsonLdDocument,
  proof: ProofObject,
  hasher: CanonicalHasher = IN_THREAD_HASHER,
): Promise<Uint8Array> {
  const [documentHash, optionsHash] = hasher.hashEach([unsignedOf(document), optionsInput(proof, document['@context'])])
  const documentPart = await documentHash
  return sha256(concatBytes(await optionsHash, documentPart))
}

/**
 * What a proof's options hash is taken of: the proof without `id`, `type` and
 * `signatureValue`, under security/v2 and the document's context.
 */
function optionsInput(proof: ProofObject, documentContext: unknown): object {
  const { id: _id, type: _type, signatureValue: _signature, ...options } = proof
  return { '@context': [SECURITY_V2_URL, ...contextList(documentContext)], ...options }
}

/**
 * Signs `document` with an EcdsaKoblitzSignature2016 proof, added to any proofs it has
 * (a proof set), and returns the signed copy. A nonce of 8 random bytes (hex) is added
 * unless given.
 *
 * @throws {JsonLdProofError} bad options
 * @throws {UnknownContextError} | {JsonLdProcessingError} the document is not safely canonicalizable
 */
export async function signKoblitz2016<T extends JsonLdDocument>(
  document: T,
  signer: DigestSigner,
  options: ProofOptions,
): Promise<T & { proof: Koblitz2016Proof | ProofObject[] }> {
  const { creator, created } = digestProofOptions(options, KOBLITZ_2016, ['proofPurpose', 'challenge', 'expires'])
  const proof: Omit<Koblitz2016Proof, 'signatureValue'> = {
    type: KOBLITZ_2016,
    creator,
    created,
    nonce: options.nonce ?? bytesToHex(randomBytes(NONCE_BYTES)),
    ...(options.domain !== undefined && { domain: options.domain }),
  }
  const digest = await koblitz2016Digest(document, proof, options.hasher)
  const { compact } = toCompactLowS(await signer.sign(digest))
  return appendProof(document, { ...proof, signatureValue: bytesToHex(compact) })
}

/**
 * Verifies the EcdsaKoblitzSignature2016 proofs of `document` (other proof types are
 * ignored; at least one Koblitz proof must be present and all must verify). The signature
 * must be low-S and made by a key `resolveSigningKeys(creator)` returns: checked against a
 * `publicKeyHex` directly, or against an address by recovering the key with both recovery
 * bits.
 *
 * @throws {UnknownContextError} the document references an unknown context
 */
export async function verifyKoblitz2016(document: JsonLdDocument, options: VerifyOptions): Promise<VerifyResult> {
  const { verified, error } = await verifyProofSet(document, options, (type) => (type === KOBLITZ_2016 ? KOBLITZ_2016_SUITE : null))
  return verified ? { verified } : { verified, error }
}

/** Checks one Koblitz2016 proof against a document already hashed. */
async function verifyKoblitz2016Proof(proof: ProofObject, context: ProofCheckContext): Promise<VerifyResult> {
  const { creator, signatureValue } = proof
  if (typeof creator !== 'string' || creator === '') return { verified: false, error: 'proof has no creator' }
  if (typeof proof.created !== 'string') return { verified: false, error: 'proof has no created date' }
  if (typeof signatureValue !== 'string' || !/^[0-9a-fA-F]{128}$/.test(signatureValue)) {
    return { verified: false, error: 'signatureValue is not 64 bytes of hex (r‖s)' }
  }
  const compact = hexToBytes(signatureValue)
  if (hasHighS(compact)) return { verified: false, error: 'signature is not low-S (malleable form rejected)' }
  const input = concatBytes(await context.optionsHash, context.documentHash)
  const keys = await context.options.resolveSigningKeys(creator)
  if (keys.length === 0) return { verified: false, error: `no signing keys found for ${shown(creator)}` }
  return signedByAnyKey(input, compact, undefined, keys)
    ? { verified: true }
    : { verified: false, error: `signature does not match any key of ${shown(creator)}` }
}

/** The suite: signs with secp256k1 keys' digest signer. */
export const KOBLITZ_2016_SUITE: ProofSuite = {
  type: KOBLITZ_2016,
  keyTypes: ['secp256k1'],
  authenticates: false,
  sign: async (document, signer, options) => signKoblitz2016(document, digestSignerOf(signer, KOBLITZ_2016), options),
  optionsInput,
  verify: verifyKoblitz2016Proof,
}
