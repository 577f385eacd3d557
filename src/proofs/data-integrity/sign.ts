/**
 * Adds a `DataIntegrityProof` to a document, signed through the key port: the cryptosuite's library object makes the
 * proof, over didvault's bundled contexts only ({@link documentLoader}), with the wallet's key port signer.
 */
import { invalid } from '../../errors.js'
import type { JsonLdLimits } from '../jsonld/bounds.js'
import type { CanonicalHasher } from '../jsonld/canonical-hasher.js'
import { documentLoader } from '../jsonld/document-loader.js'
import type { CryptosuiteDefinition } from './cryptosuites.js'
import { onDocument } from './failures.js'
import { checkCreated, checkDocument, checkWellFormedStrings, proofsOf, withoutProof, type JsonLdDocument } from './inputs.js'
import { librarySignerOf, type JoseSigner } from './key-signer.js'
import type { BbsSigner } from '../../keys/signer.js'
import {
  dataIntegrityLibraries,
  type Cryptosuite,
  type DataIntegrityLibraries,
  type DocumentLoader,
  type LibraryBbsSigner,
} from './libraries.js'
import { hashesThroughHasher, withHasher } from './rdfc-hashing.js'
import { libraryPurpose, type ProofPurpose, type PurposeOptions } from './purpose.js'

type BbsInput = Parameters<LibraryBbsSigner['multisign']>[0]

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
 * Signs `document` with the library cryptosuite `cryptosuiteOf` builds.
 *
 * @throws {IdentityError} `VALIDATION_ERROR` (422): the key type does not fit the cryptosuite, the document is over the
 *   bounds, lacks the credentials v2 context, uses an unknown context or is refused by JSON-LD safe mode / JCS, or
 *   `created` is malformed. A failure of the key port propagates unchanged.
 */
export async function signWith(
  suite: CryptosuiteDefinition,
  cryptosuiteOf: (lib: DataIntegrityLibraries) => Cryptosuite,
  document: unknown,
  signer: JoseSigner | BbsSigner,
  options: DataIntegritySignOptions,
): Promise<SignedDocument> {
  checkDocument(document, options.limits)
  if (suite.canonicalization === 'jcs') checkWellFormedStrings(document)
  if (typeof options.verificationMethod !== 'string' || !options.verificationMethod.startsWith('did:')) {
    throw invalid('verificationMethod must be a DID URL')
  }
  checkCreated(options.created)
  const librarySigner = librarySignerOf(signer, options.verificationMethod, suite)
  let keyPortError: unknown
  const tracked =
    <A, R>(call: (input: A) => Promise<R>) =>
    (input: A) =>
      call(input).catch((error: unknown) => {
        keyPortError = error
        throw error
      })
  const trackedSigner =
    'multisign' in librarySigner
      ? { ...librarySigner, multisign: tracked((input: BbsInput) => librarySigner.multisign(input)) }
      : { ...librarySigner, sign: tracked((input: { data: Uint8Array }) => librarySigner.sign(input)) }
  const lib = await dataIntegrityLibraries()
  const created = options.created ?? new Date().toISOString().replace(/\.\d+Z$/, 'Z')
  const library = cryptosuiteOf(lib)
  const cryptosuite = hashesThroughHasher(suite, signer.keyType) ? withHasher(library, options.hasher) : library
  const dataIntegrity = new lib.DataIntegrityProof({ cryptosuite, signer: trackedSigner, date: created })
  const proofs = proofsOf(document)
  const unsigned = withoutProof(document)
  const proof = await onDocument(
    `cannot sign with ${suite.name}`,
    async () => {
      dataIntegrity.ensureSuiteContext({ document: unsigned, addSuiteContext: false })
      const purpose = libraryPurpose(options.proofPurpose ?? 'assertionMethod', options)
      return dataIntegrity.createProof({ document: unsigned, purpose, proofSet: proofs, documentLoader: contextsOnly })
    },
    () => keyPortError,
  )
  return { ...document, proof: proofs.length === 0 ? proof : [...proofs, proof] }
}

/** The bundled and registered contexts, nothing else: what signing and deriving may load. */
export const contextsOnly: DocumentLoader = documentLoader
