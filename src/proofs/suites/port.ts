/**
 * The proof-suite port: what a JSON-LD proof suite is to the registry (`./index.ts`), to the proof set that
 * verifies a document's proofs and to everything that signs. A suite both signs and verifies, and declares the key
 * types it signs with; it is named by its proof `type` and, for a Data Integrity suite (`DataIntegrityProof`), its
 * `cryptosuite`.
 */
import type { BbsKeyType, KeyType } from '../../keys/key-types.js'
import type { BbsSigner, KeySigner } from '../../keys/signer.js'
import type { CanonicalHasher } from '../jsonld/canonical-hasher.js'
import type { JsonLdDocument, ProofOptions, VerifyOptions, VerifyResult } from '../jsonld/types.js'

/** A proof as found in a document. */
export type ProofObject = Record<string, unknown>

/**
 * What a suite signs with: a wallet's {@link KeySigner} (JOSE signatures of bytes, `sign(alg, data)`, and for
 * secp256k1 keys the digest signer; only the parts a suite may use), or a BLS12-381 key's {@link BbsSigner} (bbs-2023).
 */
export type ProofSigner = Pick<KeySigner, 'keyType' | 'sign' | 'digest'> | BbsSigner

/** The key types suites sign with: the wallets' JOSE key types and the BLS12-381 G2 key of bbs-2023. */
export type SuiteKeyType = KeyType | BbsKeyType

/** What a proof is checked against: the document's part computed once, shared by all its proofs. */
export interface ProofCheckContext {
  /** The document the proof is part of (with its proof set). */
  document: JsonLdDocument
  /** The document's `@context`, which proof options are canonicalized with. */
  documentContext: unknown
  /**
   * sha256 of the RDFC-1.0 canonical document without `proof`; empty for a suite that
   * {@link ProofSuite.canonicalizesItself} (not computed when only such suites check the document).
   */
  documentHash: Uint8Array
  /**
   * sha256 of the canonical {@link ProofSuite.optionsInput} of this proof (computed with the document's, in one unit
   * of work); rejects when the suite has no `optionsInput`.
   */
  optionsHash: Promise<Uint8Array>
  /** Computes any other canonical hash the suite needs (the service's canonicalization pool, its bundled contexts). */
  hasher: CanonicalHasher
  options: VerifyOptions
}

/** A JSON-LD proof suite: one folder under `proofs/suites/`, one line in the registry. */
export interface ProofSuite {
  /** The proof's `type`. */
  readonly type: string
  /** The proof's `cryptosuite`, for a Data Integrity suite (`type` `DataIntegrityProof`). */
  readonly cryptosuite?: string
  /** The key types it signs with. */
  readonly keyTypes: readonly SuiteKeyType[]
  /** Whether its proofs take `proofPurpose: "authentication"` and a `challenge` (what a presentation's proof needs). */
  readonly authenticates: boolean
  /**
   * `document` with a new proof of this suite added to its proof set (every proof signs the document without any
   * proof). Canonicalizes with `options.hasher`.
   *
   * @throws {JsonLdProofError} bad options
   * @throws {UnknownContextError} | {JsonLdProcessingError} the document is not safely canonicalizable
   */
  sign<T extends JsonLdDocument>(
    document: T,
    signer: ProofSigner,
    options: ProofOptions,
  ): Promise<T & { proof: ProofObject | ProofObject[] }>
  /**
   * What the suite canonicalizes (RDFC-1.0) of a proof besides the document — its options, under `documentContext` —,
   * hashed with the document in one unit of work ({@link ProofCheckContext.optionsHash}). A suite that hashes
   * otherwise (JCS) leaves it out and computes from {@link ProofCheckContext.document}.
   */
  optionsInput?(proof: ProofObject, documentContext: unknown): object
  /**
   * Whether it canonicalizes the document itself (the Data Integrity suites, through their libraries): the proof set
   * then computes no {@link ProofCheckContext.documentHash} for it, and a document RDFC refuses (a JCS proof's) is
   * still checked by it.
   */
  readonly canonicalizesItself?: boolean
  /** Verifies one proof. Resolves `verified: false` for a bad proof; never throws for one. */
  verify(proof: ProofObject, context: ProofCheckContext): Promise<VerifyResult>
  /**
   * A selective-disclosure suite's derivation (ecdsa-sd-2023, bbs-2023): from `document` with this suite's base proof, the
   * document revealing its mandatory claims and those `selectivePointers` select, with a derived proof. Needs no key.
   * Only such suites have it, and only they take {@link ProofOptions.mandatoryPointers} when signing.
   *
   * @throws {IdentityError} 422: no single base proof of the suite, a malformed pointer or one that selects nothing
   */
  derive?(document: JsonLdDocument, selectivePointers: string[], options: { hasher: CanonicalHasher }): Promise<JsonLdDocument>
}

/** Which suite a request names: a proof type, a Data Integrity cryptosuite, or both (`DataIntegrityProof`). */
export interface SuiteRequest {
  proofType?: string
  cryptosuite?: string
}
