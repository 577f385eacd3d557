/**
 * Proof sets: a document's `proof` is one proof or an array of them, each signing the
 * document without any proof. Shared by the suites and the dispatching API.
 */
import { IN_THREAD_HASHER } from './canonical-hasher.js'
import { JsonLdProcessingError, JsonLdProofError, shown } from './errors.js'
import type { ProofCheckContext, ProofObject, ProofSuite } from '../suites/port.js'
import type { JsonLdDocument, ProofOptions, VerifyOptions, VerifyResult } from './types.js'

export type { ProofObject }

/** The document a proof signs: `document` without its `proof`. */
export function unsignedOf(document: JsonLdDocument): JsonLdDocument {
  const { proof: _proof, ...unsigned } = document
  return unsigned
}

/** Outcome for one proof of a proof set. */
export interface ProofResult extends VerifyResult {
  /** The proof's `type`. */
  type: string
  /** The proof's `creator` or `verificationMethod`. */
  verificationMethod?: string
  /** The DID whose key the proof names (it signed, when the proof verifies): the DID of its method, when that is a DID URL naming a key. */
  did?: string
}

/**
 * Outcome of verifying a document's proofs. `verified` only when every checked proof is and,
 * when the document has an issuer, at least one of them is by the issuer.
 */
export interface ProofSetResult extends VerifyResult {
  proofs: ProofResult[]
}

/** The proofs of a document, as an array (empty when unsigned). */
export function proofsOf(document: JsonLdDocument): unknown[] {
  const { proof } = document
  if (proof === undefined || proof === null) return []
  return Array.isArray(proof) ? proof : [proof]
}

/** A copy of `document` with `proof` added to its proof set (a lone proof stays an object). */
export function appendProof<T extends JsonLdDocument, P extends ProofObject>(document: T, proof: P): T & { proof: P | ProofObject[] } {
  const existing = proofsOf(document) as ProofObject[]
  return { ...document, proof: existing.length === 0 ? proof : [...existing, proof] }
}

/** `@context` as a list of entries. */
export function contextList(context: unknown): unknown[] {
  if (context === undefined || context === null) return []
  return Array.isArray(context) ? context : [context]
}

/** A DID URL naming a key: `did:<method>:<id>#<fragment>`. */
const DID_URL = /^did:[a-z0-9]+:[^\s#]+#[^\s#]+$/

/**
 * A proof method a verifier accepts: a plain DID (DID Core syntax: no path, query or
 * parameters, so it names the DID's current document) and a fragment naming a key.
 */
const KEY_OF_DID = /^(did:[a-z0-9]+:(?:[A-Za-z0-9._:-]|%[0-9A-Fa-f]{2})*(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2}))#([^\s#]+)$/

/** Validated `creator` and `created` (ISO 8601) of new proof options. */
export function checkProofOptions(options: ProofOptions): { creator: string; created: string } {
  if (typeof options.creator !== 'string' || !DID_URL.test(options.creator)) {
    throw new JsonLdProofError(
      `creator must be a DID URL naming a key (did:<method>:<id>#<key>), got ${JSON.stringify(shown(String(options.creator)))}`,
    )
  }
  const created = options.created ?? new Date()
  if (!(created instanceof Date) || Number.isNaN(created.getTime())) throw new JsonLdProofError('created must be a valid Date')
  for (const key of ['nonce', 'domain', 'challenge'] as const) {
    if (options[key] !== undefined && typeof options[key] !== 'string') throw new JsonLdProofError(`${key} must be a string`)
  }
  if (options.expires !== undefined && (!(options.expires instanceof Date) || Number.isNaN(options.expires.getTime())))
    throw new JsonLdProofError('expires must be a valid Date')
  return { creator: options.creator, created: created.toISOString() }
}

/**
 * Verifies the proofs of `document` that `select` gives a suite for (`null`: the proof
 * is not checked; `undefined`: its type is unsupported, a failure). The set verifies when:
 *
 * - every checked proof verifies, its `creator` / `verificationMethod` being a DID URL that
 *   names a key (`did:<method>:<id>#<key>`, no path or query) which `resolveSigningKeys`
 *   finds — the key's own DID vouches for it, whoever that DID is (co-signers' proofs are
 *   bound to their own DID, not to the issuer);
 * - at least one checked proof is by the issuer ({@link VerifyOptions.issuer}, default the
 *   document's `issuer`): its method's DID is the issuer. A document without issuer requires
 *   no such proof.
 *
 * The document and every proof's options are canonicalized in one unit of work of the
 * hasher ({@link VerifyOptions.hasher}), and the proofs are checked concurrently.
 *
 * @throws {UnknownContextError} the document or a proof references an unknown context
 * @throws {JsonLdBoundsError} | {JsonLdDeadlineError} the hasher refused or gave up the work
 */
export async function verifyProofSet(
  document: JsonLdDocument,
  options: VerifyOptions,
  select: (type: string, cryptosuite?: string) => ProofSuite | null | undefined,
): Promise<ProofSetResult> {
  const checked = proofsOf(document).flatMap((proof) => {
    const type = isObject(proof) && typeof proof.type === 'string' ? proof.type : ''
    const cryptosuite = isObject(proof) && typeof proof.cryptosuite === 'string' ? proof.cryptosuite : undefined
    const suite = select(type, cryptosuite)
    return suite === null ? [] : [{ proof, type, suite }]
  })
  if (checked.length === 0) return { verified: false, error: 'document has no proof to verify', proofs: [] }

  const hasher = options.hasher ?? IN_THREAD_HASHER
  const documentContext = document['@context']
  // One unit of work: the document (unless only suites that canonicalize it themselves check it), then the options of
  // each proof a suite checks.
  const hashedHere = (suite: ProofSuite | undefined) => suite?.canonicalizesItself !== true
  const hashesDocument = checked.some(({ suite }) => hashedHere(suite))
  const inputs: object[] = hashesDocument ? [unsignedOf(document)] : []
  const optionsAt = checked.map(({ proof, suite }) =>
    isObject(proof) && suite?.optionsInput !== undefined ? inputs.push(suite.optionsInput(proof, documentContext)) - 1 : -1,
  )
  const hashes = hasher.hashEach(inputs)
  let documentHash: Uint8Array = new Uint8Array()
  let refused: JsonLdProcessingError | undefined
  try {
    if (hashesDocument) documentHash = await hashes[0]
  } catch (err) {
    if (!(err instanceof JsonLdProcessingError)) throw err
    refused = err
  }

  const proofs = await Promise.all(
    checked.map(async ({ proof, type, suite }, i): Promise<ProofResult> => {
      if (refused !== undefined && hashedHere(suite)) return { type, ...methodOf(proof), verified: false, error: refused.message }
      const optionsHash = optionsAt[i] < 0 ? NO_OPTIONS_HASH : hashes[optionsAt[i]]
      const context = { document, documentContext, documentHash, optionsHash, hasher, options }
      return { type, ...methodOf(proof), ...(await checkOne(proof, type, suite, context)) }
    }),
  )
  if (refused !== undefined && proofs.every((p) => !p.verified)) return { verified: false, error: refused.message, proofs }
  const failed = proofs.find((p) => !p.verified)
  if (failed) return { verified: false, error: `proof ${proofs.indexOf(failed)}: ${failed.error}`, proofs }
  const issuer = options.issuer ?? issuerOf(document)
  if (issuer !== undefined && !proofs.some((p) => p.did === issuer)) return { verified: false, error: noIssuerProof(issuer), proofs }
  return { verified: true, proofs }
}

/** The options hash of a suite that takes none (it hashes otherwise): rejects when read. */
const NO_OPTIONS_HASH: Promise<Uint8Array> = Promise.reject(new Error('this suite canonicalizes no proof options'))
NO_OPTIONS_HASH.catch(() => undefined)

/** The error of a proof set in which no proof is by `issuer`. */
export function noIssuerProof(issuer: string): string {
  return `no proof is by the issuer ${shown(issuer)}`
}

async function checkOne(proof: unknown, type: string, suite: ProofSuite | undefined, context: ProofCheckContext): Promise<VerifyResult> {
  if (!isObject(proof)) return { verified: false, error: 'proof is not an object' }
  if (suite === undefined) {
    return { verified: false, error: `unsupported proof type ${JSON.stringify(shown(type))}` }
  }
  const { verificationMethod } = methodOf(proof)
  if (verificationMethod !== undefined && !KEY_OF_DID.test(verificationMethod)) {
    return {
      verified: false,
      error: `${shown(verificationMethod)} is not a DID URL naming a key (did:<method>:<id>#<key>, without path or query)`,
    }
  }
  try {
    return await suite.verify(proof, context)
  } catch (err) {
    if (err instanceof JsonLdProcessingError) return { verified: false, error: err.message }
    throw err
  }
}

/** The issuer DID a credential names: `issuer`, or its `id` when it is an object. */
export function issuerOf(document: JsonLdDocument): string | undefined {
  const { issuer } = document
  if (typeof issuer === 'string') return issuer
  return isObject(issuer) && typeof issuer.id === 'string' ? issuer.id : undefined
}

/** The proof's method (`creator`, else `verificationMethod`) and, when it names a key of a DID, that DID. */
function methodOf(proof: unknown): { verificationMethod?: string; did?: string } {
  if (!isObject(proof)) return {}
  const method = proof.creator ?? proof.verificationMethod
  if (typeof method !== 'string') return {}
  const did = KEY_OF_DID.exec(method)?.[1]
  return did === undefined ? { verificationMethod: method } : { verificationMethod: method, did }
}

/** Whether `value` is a plain (non-array) object. */
function isObject(value: unknown): value is ProofObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
