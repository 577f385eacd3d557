/**
 * The W3C Data Integrity suites (`proofs/data-integrity/`: ecdsa-rdfc-2019, eddsa-rdfc-2022, ecdsa-jcs-2019,
 * eddsa-jcs-2022, ecdsa-sd-2023, bbs-2023) behind the proof-suite port: one {@link ProofSuite} per cryptosuite.
 *
 * - Signing: a document that names neither credentials/v2 nor the Data Integrity v2 context (credentials v1) gets
 *   the latter appended to its `@context` ({@link withSuiteContext}); the port's options become the suite's —
 *   `creator` is the proof's `verificationMethod`, `created` its XSD dateTimeStamp (to the second),
 *   `proofPurpose`/`challenge`/`domain` as given, the hasher (and its bounds) as the canonicalizer. ecdsa-sd-2023
 *   signs a base proof with the options' `mandatoryPointers` (default none) and derives (`derive`, any holder, no
 *   key); bbs-2023 likewise, signing through a BLS12-381 key's `BbsSigner` (its base proof takes no challenge: it
 *   does not authenticate). Options a Data Integrity proof does not carry here (`nonce`, `expires`) are a 422, never dropped silently.
 * - Verification: against the **current** DID document of the proof's method, through the request's resolver
 *   ({@link VerifyOptions.resolver}), under the request's purpose ({@link VerifyOptions.proofPurpose}); the proof set
 *   binds one proof to the issuer (holder) as for every suite (`verifyProofSet`), so co-signers' proofs stay valid.
 */
import { invalid } from '../../../errors.js'
import { bbs2023, DATA_INTEGRITY_SUITES, type DataIntegritySuite, type SelectiveDisclosureSuite } from '../../data-integrity/index.js'
import type { BbsSuite } from '../../data-integrity/index.js'
import { IN_THREAD_HASHER, type CanonicalHasher } from '../../jsonld/canonical-hasher.js'
import { CREDENTIALS_V2_URL, DATA_INTEGRITY_V2_URL } from '../../jsonld/contexts.js'
import { checkProofOptions, proofsOf } from '../../jsonld/proof-set.js'
import type { JsonLdDocument, ProofOptions, VerifyResult } from '../../jsonld/types.js'
import { DATA_INTEGRITY_PROOF } from '../../jsonld/suite-names.js'
import type { ProofCheckContext, ProofObject, ProofSigner, ProofSuite } from '../port.js'

type Cryptosuite = keyof typeof DATA_INTEGRITY_SUITES | 'bbs-2023'

/** The suite object of `cryptosuite`. */
const suiteObject = (cryptosuite: Cryptosuite): DataIntegritySuite | SelectiveDisclosureSuite | BbsSuite =>
  cryptosuite === 'bbs-2023' ? bbs2023 : DATA_INTEGRITY_SUITES[cryptosuite]

/**
 * Why a Data Integrity proof takes no `expires` here (VC Data Integrity §2.1 allows one): the library writes none and its
 * verifier checks only the format of one, so an expiry would be neither signed nor enforced.
 */
export const DATA_INTEGRITY_NO_EXPIRES =
  `a ${DATA_INTEGRITY_PROOF} proof cannot expire here: @digitalbazaar/data-integrity 2.5.0 writes no proof \`expires\` ` +
  'and does not check one when verifying; leave it out (a verifier bounds a presentation by its challenge) or sign a JWT'

/** The registry's suite of the Data Integrity `cryptosuite`. */
function dataIntegritySuite(cryptosuite: Cryptosuite): ProofSuite {
  const suite = suiteObject(cryptosuite)
  return {
    type: DATA_INTEGRITY_PROOF,
    cryptosuite,
    keyTypes: suite.keyTypes,
    // A bbs-2023 base proof is for its holder only (not verifiable), so it cannot prove a presentation.
    authenticates: cryptosuite !== 'bbs-2023',
    canonicalizesItself: true,
    sign: async <T extends JsonLdDocument>(document: T, signer: ProofSigner, options: ProofOptions) => {
      const signed = await signWithSuite(cryptosuite, withSuiteContext(document, cryptosuite), signer, signOptionsOf(options, cryptosuite))
      return signed as T & { proof: ProofObject | ProofObject[] }
    },
    verify: (proof, context) => verifyOne(cryptosuite, proof, context),
    ...('derive' in suite && {
      derive: (document: JsonLdDocument, selectivePointers: string[], { hasher }: { hasher: CanonicalHasher }) =>
        suite.derive(document, selectivePointers, { limits: hasher.limits, hasher }),
    }),
  }
}

/**
 * Signs with the suite object of `cryptosuite`: bbs-2023 with a {@link BbsSigner}, the others with a JOSE signer.
 * @throws {IdentityError} 422 for a signer of the other kind (the registry checked key types before)
 */
function signWithSuite(cryptosuite: Cryptosuite, document: JsonLdDocument, signer: ProofSigner, options: ReturnType<typeof signOptionsOf>) {
  if (cryptosuite === 'bbs-2023') {
    if (!('multisign' in signer)) throw invalid(`cryptosuite: bbs-2023 signs with Bls12381G2 keys, not ${signer.keyType}`)
    return bbs2023.sign(document, signer, options)
  }
  if ('multisign' in signer) throw invalid(`cryptosuite: ${cryptosuite} does not sign with ${signer.keyType} keys`)
  return DATA_INTEGRITY_SUITES[cryptosuite].sign(document, signer, options)
}

/**
 * `document` as a Data Integrity proof signs it: one that names neither credentials/v2 nor the Data Integrity v2
 * context (a credentials v1 document) gets the latter last in its `@context` (the libraries' `addSuiteContext`; Data
 * Integrity 1.0 §2.1: a document that does not define the proof's terms includes that context).
 * @throws {IdentityError} 422 for such a document that already has proofs: adding the context would break them
 */
function withSuiteContext<T extends JsonLdDocument>(document: T, cryptosuite: Cryptosuite): T {
  const context: unknown[] = [document['@context'] ?? []].flat()
  if (context.includes(CREDENTIALS_V2_URL) || context.includes(DATA_INTEGRITY_V2_URL)) return document
  if (proofsOf(document).length > 0)
    throw invalid(
      `@context: a ${DATA_INTEGRITY_PROOF} (${cryptosuite}) signs a credentials v1 document only with ` +
        `"${DATA_INTEGRITY_V2_URL}" in its @context, and adding it would break the document's other proofs`,
    )
  return { ...document, '@context': [...context, DATA_INTEGRITY_V2_URL] }
}

/**
 * The Data Integrity options of the port's `options`.
 * @throws {JsonLdProofError} a `creator` that is not a DID URL naming a key, a bad `created`
 * @throws {IdentityError} 422 for `nonce` or `expires`, which these proofs do not carry here
 */
function signOptionsOf(options: ProofOptions, cryptosuite: Cryptosuite) {
  const { creator, created } = checkProofOptions(options)
  if (options.nonce !== undefined) throw invalid(`nonce: not supported with ${DATA_INTEGRITY_PROOF} (${cryptosuite}) proofs`)
  if (options.expires !== undefined) throw invalid(`expires: ${DATA_INTEGRITY_NO_EXPIRES}`)
  if (cryptosuite === 'bbs-2023' && (options.challenge !== undefined || (options.proofPurpose ?? 'assertionMethod') !== 'assertionMethod'))
    throw invalid(
      'proofPurpose: a bbs-2023 base proof is an assertion for its holder to derive from; it takes no challenge and proves no presentation',
    )
  if (options.mandatoryPointers !== undefined && !('derive' in suiteObject(cryptosuite)))
    throw invalid(`mandatoryPointers: only with a selective-disclosure cryptosuite, not ${cryptosuite}`)
  const hasher = options.hasher ?? IN_THREAD_HASHER
  return {
    ...(options.mandatoryPointers !== undefined && { mandatoryPointers: options.mandatoryPointers }),
    verificationMethod: creator,
    created: created.replace(/\.\d+Z$/, 'Z'),
    proofPurpose: options.proofPurpose ?? 'assertionMethod',
    ...(options.challenge !== undefined && { challenge: options.challenge }),
    ...(options.domain !== undefined && { domain: options.domain }),
    limits: hasher.limits,
    hasher,
  }
}

/**
 * Verifies one proof of the context's document: a failure is `verified: false` naming the failed check.
 * @throws {JsonLdDeadlineError} the proof's step ran past the pool's deadline
 */
async function verifyOne(cryptosuite: Cryptosuite, proof: ProofObject, context: ProofCheckContext): Promise<VerifyResult> {
  const { resolver, proofPurpose = 'assertionMethod' } = context.options
  if (resolver === undefined) return { verified: false, error: `a ${cryptosuite} proof is verified through a DID resolver; none was given` }
  const outcome = await suiteObject(cryptosuite).verify(context.document, proof, {
    resolver,
    proofPurpose,
    limits: context.hasher.limits,
    hasher: context.hasher,
  })
  if (outcome.verified) return { verified: true }
  // Past the pool's deadline: the request's check `deadline`, as for every suite (not a failed proof).
  if (outcome.check === 'deadline' && outcome.error !== undefined) throw outcome.error
  return { verified: false, error: `${outcome.check}: ${outcome.message}` }
}

/** ecdsa-rdfc-2019 (P-256; P-384 verified). */
export const ECDSA_RDFC_2019_SUITE = dataIntegritySuite('ecdsa-rdfc-2019')
/** eddsa-rdfc-2022 (Ed25519). */
export const EDDSA_RDFC_2022_SUITE = dataIntegritySuite('eddsa-rdfc-2022')
/** ecdsa-jcs-2019 (P-256; P-384 verified). */
export const ECDSA_JCS_2019_SUITE = dataIntegritySuite('ecdsa-jcs-2019')
/** eddsa-jcs-2022 (Ed25519). */
export const EDDSA_JCS_2022_SUITE = dataIntegritySuite('eddsa-jcs-2022')
/** ecdsa-sd-2023 (P-256): base proofs (with mandatory pointers) on signing, derivation; derived proofs verified. */
export const ECDSA_SD_2023_SUITE = dataIntegritySuite('ecdsa-sd-2023')
/** bbs-2023 (BLS12-381 G2): base proofs (with mandatory pointers) signed by a `BbsSigner`, derivation; derived proofs verified. */
export const BBS_2023_SUITE = dataIntegritySuite('bbs-2023')
