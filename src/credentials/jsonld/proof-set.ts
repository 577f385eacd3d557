/**
 * Proof sets: a document's `proof` is one proof or an array of them, each signing the
 * document without any proof. Shared by the suites and the dispatching API.
 */
import { hashDocument } from './canonize.js'
import { JsonLdProcessingError, JsonLdProofError, shown } from './errors.js'
import type { JsonLdDocument, ProofOptions, VerifyOptions, VerifyResult } from './types.js'

/** A proof as found in a document. */
export type ProofObject = Record<string, unknown>

/** What a proof is checked against: computed once per document, shared by all its proofs. */
export interface ProofCheckContext {
  /** The document's `@context`, which proof options are canonicalized with. */
  documentContext: unknown
  /** sha256 of the canonical document without `proof`. */
  documentHash: Uint8Array
  options: VerifyOptions
}

/** Verifies one proof of a suite. Resolves `verified: false` for a bad proof; never throws for one. */
export type ProofVerifier = (proof: ProofObject, context: ProofCheckContext) => Promise<VerifyResult>

/** Outcome for one proof of a proof set. */
export interface ProofResult extends VerifyResult {
  /** The proof's `type`. */
  type: string
  /** The proof's `creator` or `verificationMethod`. */
  verificationMethod?: string
}

/** Outcome of verifying a document's proofs. `verified` only when every checked proof is. */
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
export function appendProof<T extends JsonLdDocument, P extends ProofObject>(
  document: T,
  proof: P,
): T & { proof: P | ProofObject[] } {
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

/** Validated `creator` and `created` (ISO 8601) of new proof options. */
export function checkProofOptions(options: ProofOptions): { creator: string; created: string } {
  if (typeof options.creator !== 'string' || !DID_URL.test(options.creator)) {
    throw new JsonLdProofError(`creator must be a DID URL naming a key (did:<method>:<id>#<key>), got ${JSON.stringify(shown(String(options.creator)))}`)
  }
  const created = options.created ?? new Date()
  if (!(created instanceof Date) || Number.isNaN(created.getTime())) throw new JsonLdProofError('created must be a valid Date')
  for (const key of ['nonce', 'domain'] as const) {
    if (options[key] !== undefined && typeof options[key] !== 'string') throw new JsonLdProofError(`${key} must be a string`)
  }
  return { creator: options.creator, created: created.toISOString() }
}

/**
 * Verifies the proofs of `document` that `select` gives a verifier for (`null`: the proof
 * is not checked; `undefined`: its type is unsupported, a failure). Every checked proof must
 * be made by the issuer ({@link VerifyOptions.issuer}, default the document's `issuer`): a
 * proof whose method is another DID's fails, whatever its signature. The document is
 * canonicalized once for the whole set and the proofs are checked concurrently.
 *
 * @throws {UnknownContextError} the document or a proof references an unknown context
 */
export async function verifyProofSet(
  document: JsonLdDocument,
  options: VerifyOptions,
  select: (type: string) => ProofVerifier | null | undefined,
): Promise<ProofSetResult> {
  const checked = proofsOf(document).flatMap((proof) => {
    const type = isObject(proof) && typeof proof.type === 'string' ? proof.type : ''
    const verifier = select(type)
    return verifier === null ? [] : [{ proof, type, verifier }]
  })
  if (checked.length === 0) return { verified: false, error: 'document has no proof to verify', proofs: [] }

  let documentHash: Uint8Array
  try {
    documentHash = await hashDocument(document)
  } catch (err) {
    if (!(err instanceof JsonLdProcessingError)) throw err
    const proofs = checked.map(({ proof, type }) => ({ type, ...methodOf(proof), verified: false, error: err.message }))
    return { verified: false, error: err.message, proofs }
  }

  const context: ProofCheckContext = { documentContext: document['@context'], documentHash, options }
  const issuer = options.issuer ?? issuerOf(document)
  const proofs = await Promise.all(
    checked.map(async ({ proof, type, verifier }): Promise<ProofResult> => {
      const result = await checkOne(proof, type, verifier, context, issuer)
      return { type, ...methodOf(proof), ...result }
    }),
  )
  const failed = proofs.find((p) => !p.verified)
  return failed ? { verified: false, error: `proof ${proofs.indexOf(failed)}: ${failed.error}`, proofs } : { verified: true, proofs }
}

async function checkOne(
  proof: unknown,
  type: string,
  verifier: ProofVerifier | undefined,
  context: ProofCheckContext,
  issuer: string | undefined,
): Promise<VerifyResult> {
  if (!isObject(proof)) return { verified: false, error: 'proof is not an object' }
  if (verifier === undefined) return { verified: false, error: `unsupported proof type ${JSON.stringify(shown(type))}` }
  const unbound = issuer === undefined ? undefined : notByIssuer(proof, issuer)
  if (unbound !== undefined) return { verified: false, error: unbound }
  try {
    return await verifier(proof, context)
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

/** Why `proof` is not made by a key of `issuer`, or undefined when its method is a DID URL of `issuer`. */
function notByIssuer(proof: unknown, issuer: string): string | undefined {
  const { verificationMethod } = methodOf(proof)
  if (verificationMethod === undefined) return undefined // the suite names the missing method
  if (verificationMethod.split('#')[0] === issuer) return undefined
  return `${shown(verificationMethod)} is not a key of the issuer ${shown(issuer)}`
}

function methodOf(proof: unknown): { verificationMethod?: string } {
  if (!isObject(proof)) return {}
  const method = proof.creator ?? proof.verificationMethod
  return typeof method === 'string' ? { verificationMethod: method } : {}
}

/** Whether `value` is a plain (non-array) object. */
function isObject(value: unknown): value is ProofObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
