/**
 * Adds a `DataIntegrityProof` to a document, signed through the key port: the cryptosuite's library object makes the
 * proof, over didvault's bundled and registered contexts only, as one step ({@link SignStep}) run in this
 * thread or in the service's pool; its one signature is asked of the wallet's key port signer, in this thread.
 */
import { invalid } from '../../errors.js'
import type { JsonLdLimits } from '../jsonld/bounds.js'
import type { CanonicalHasher } from '../jsonld/canonical-hasher.js'
import { isSelectiveDisclosure, type CryptosuiteDefinition } from './cryptosuites.js'
import { onDocument } from './failures.js'
import { checkCreated, checkDocument, checkWellFormedStrings, proofsOf, withoutProof, type JsonLdDocument } from './inputs.js'
import type { BbsSigner } from '../../keys/signer.js'
import { librarySignerOf, type JoseSigner } from './key-signer.js'
import type { ProofPurpose, PurposeOptions } from './purpose.js'
import { hashesThroughHasher } from './rdfc-hashing.js'
import { runDataIntegrityStep, type DataIntegrityRunner, type SignatureRequest, type SignStep } from './steps.js'

/** How to sign. */
export interface DataIntegritySignOptions extends PurposeOptions {
  /** The DID URL of the signer's verification method, written as the proof's `verificationMethod`. */
  verificationMethod: string
  /** Default `assertionMethod` (a credential); `authentication` for a presentation. */
  proofPurpose?: ProofPurpose
  /** The proof's `created` (XSD dateTimeStamp); default now, to the second. */
  created?: string
  /** Bounds of the document (default: the JSON-LD defaults). */
  limits?: JsonLdLimits
  /** Where the RDF cryptosuites canonicalize: the service's pool (`CanonicalizationPool.hasherFor`); default this thread. */
  hasher?: CanonicalHasher
}

/** A signed document: the input with the new proof (appended to its proof set when it had proofs). */
export type SignedDocument = JsonLdDocument & { proof: Record<string, unknown> | Record<string, unknown>[] }

/**
 * Where a step of `suite` over a key of `curve` runs: the RDF cryptosuites whose hashes the hasher computes run in this
 * thread, hashing through it (its pool canonicalizes); the others run where the hasher runs Data Integrity steps (the
 * service's pool), else in this thread.
 */
export function runnerOf(suite: CryptosuiteDefinition, curve: string, hasher?: CanonicalHasher): DataIntegrityRunner {
  if (hashesThroughHasher(suite, curve) || hasher?.runDataIntegrity === undefined) {
    return (step, requestSignature) => runDataIntegrityStep(step, requestSignature, hasher)
  }
  return hasher.runDataIntegrity
}

/**
 * Signs `document` with `suite`'s library cryptosuite (where {@link runnerOf} says).
 *
 * @throws {IdentityError} `VALIDATION_ERROR` (422): the key type does not fit the cryptosuite, the document is over the
 *   bounds, lacks the credentials v2 context, uses an unknown context or is refused by JSON-LD safe mode / JCS, or
 *   `created` is malformed. A failure of the key port propagates unchanged.
 */
export async function signWith(
  suite: CryptosuiteDefinition,
  document: unknown,
  signer: JoseSigner | BbsSigner,
  options: DataIntegritySignOptions & { mandatoryPointers?: string[] },
): Promise<SignedDocument> {
  checkDocument(document, options.limits)
  if (suite.canonicalization === 'jcs') checkWellFormedStrings(document)
  if (typeof options.verificationMethod !== 'string' || !options.verificationMethod.startsWith('did:')) {
    throw invalid('verificationMethod must be a DID URL')
  }
  checkCreated(options.created)
  const librarySigner = librarySignerOf(signer, options.verificationMethod, suite)
  let keyPortError: unknown
  const requestSignature = (request: SignatureRequest) =>
    ('multisign' in librarySigner && 'messages' in request
      ? librarySigner.multisign(request)
      : librarySigner.sign(request as { data: Uint8Array })
    ).catch((error: unknown) => {
      keyPortError = error
      throw error
    })
  const proofs = proofsOf(document)
  const step: SignStep = {
    kind: 'sign',
    cryptosuite: suite.name,
    document: withoutProof(document),
    proofSet: proofs,
    inlineable: !isSelectiveDisclosure(suite.name),
    verificationMethod: options.verificationMethod,
    algorithm: librarySigner.algorithm,
    ...('publicKey' in librarySigner && { publicKey: librarySigner.publicKey }),
    created: options.created ?? new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    proofPurpose: options.proofPurpose ?? 'assertionMethod',
    ...(options.challenge !== undefined && { challenge: options.challenge }),
    ...(options.domain !== undefined && { domain: options.domain }),
    ...(options.mandatoryPointers !== undefined && { mandatoryPointers: options.mandatoryPointers }),
  }
  const proof = await onDocument(
    `cannot sign with ${suite.name}`,
    () => runnerOf(suite, signer.keyType, options.hasher)(step, requestSignature),
    () => keyPortError,
  )
  return { ...document, proof: proofs.length === 0 ? proof : [...proofs, proof] }
}
