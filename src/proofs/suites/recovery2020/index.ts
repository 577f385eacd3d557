/**
 * The `EcdsaSecp256k1RecoverySignature2020` suite, as jsonld-signatures based verifiers
 * (Veramo, Transmute, the DIF reference suite) compute it:
 *
 * - proof `{type, created, verificationMethod, proofPurpose, domain?, nonce?, challenge?,
 *   expires?, jws}` — `proofPurpose` `assertionMethod` (credentials) or `authentication`
 *   (presentations);
 * - verifyData = sha256(c14n(proof options)) ‖ sha256(c14n(document without proof)), where
 *   proof options = the proof without `jws` (nor `signatureValue`/`proofValue`) under the
 *   document's own `@context` (which must define the suite's terms: signing adds the
 *   suite context `secp256k1recovery-2020/v2` unless a suite context is already there, last
 *   but before an undefined-terms context ending `@context`);
 * - jws = detached JWS (RFC 7797, unencoded payload): header
 *   `{"alg":"ES256K-R","b64":false,"crit":["b64"]}`, signature over
 *   sha256(ASCII(base64url(header) + ".") ‖ verifyData), encoded as base64url(r‖s‖v),
 *   65 bytes with the recovery bit v.
 *
 * Verification also accepts the form of jsonld-signatures 5 and earlier (which
 * @transmute/lds-ecdsa-secp256k1-recovery2020 0.0.x signs with): there the proof options are
 * canonicalized under `https://w3id.org/security/v2` instead of the document's context, a
 * context that does not define the suite's `type`, so the type is not part of the signed
 * options. That form is tried only when the first does not verify; it is canonicalized in
 * safe mode like the first (any other option security/v2 does not define is refused, never
 * silently unsigned), and it still covers the document, `created`, `verificationMethod`,
 * `proofPurpose` and any `nonce`/`domain`/`challenge`/`expires`. didvault signs the first form only.
 */
import { sha256 } from '@noble/hashes/sha2.js'
import { concatBytes, utf8ToBytes } from '@noble/hashes/utils.js'
import type { DigestSigner } from '../../../keys/signer.js'
import { IN_THREAD_HASHER } from '../../jsonld/canonical-hasher.js'
import { SECP256K1_RECOVERY_2020_V0_URL, SECP256K1_RECOVERY_2020_V2_URL, SECURITY_V2_URL } from '../../jsonld/contexts.js'
import { JsonLdProcessingError, shown } from '../../jsonld/errors.js'
import { hasHighS, signedByAnyKey, toCompactLowS } from '../../jsonld/keys.js'
import { appendProof, contextList, unsignedOf, verifyProofSet } from '../../jsonld/proof-set.js'
import { digestProofOptions, digestSignerOf } from '../digest-signer.js'
import type { ProofCheckContext, ProofObject, ProofSuite } from '../port.js'
import type { JsonLdDocument, ProofOptions, VerifyOptions, VerifyResult } from '../../jsonld/types.js'
import { RECOVERY_2020 } from '../../jsonld/suite-names.js'
import { addContextBeforeUndefinedTerms } from '../../jsonld/undefined-terms.js'

/** The suite's proof type. */
export { RECOVERY_2020 }

/** An EcdsaSecp256k1RecoverySignature2020 proof. */
export type Recovery2020Proof = {
  type: typeof RECOVERY_2020
  /** ISO 8601 signing time. */
  created: string
  /** DID URL of the signing key. */
  verificationMethod: string
  proofPurpose: 'assertionMethod' | 'authentication'
  domain?: string
  nonce?: string
  challenge?: string
  /** ISO 8601 end of validity. */
  expires?: string
  /** Detached ES256K-R JWS. */
  jws: string
}

const ENCODED_HEADER = Buffer.from(JSON.stringify({ alg: 'ES256K-R', b64: false, crit: ['b64'] })).toString('base64url')
const DETACHED_JWS = /^([A-Za-z0-9_-]+)\.\.([A-Za-z0-9_-]+)$/
const SUITE_CONTEXTS: readonly unknown[] = [SECP256K1_RECOVERY_2020_V2_URL, SECP256K1_RECOVERY_2020_V0_URL]

/**
 * `document` with the suite context added to `@context` (last, but before an undefined-terms
 * context ending it), unless a suite context is there.
 */
function withSuiteContext<T extends JsonLdDocument>(document: T): T {
  const context = document['@context']
  if (contextList(context).some((entry) => SUITE_CONTEXTS.includes(entry))) return document
  return { ...document, '@context': addContextBeforeUndefinedTerms(context, SECP256K1_RECOVERY_2020_V2_URL) }
}

/** What a proof's options hash is taken of: the proof without `jws` (nor `signatureValue`/`proofValue`), under the document's context. */
function optionsInput(proof: ProofObject, documentContext: unknown): object {
  const { jws: _jws, signatureValue: _signature, proofValue: _value, ...options } = proof
  return { '@context': documentContext, ...options }
}

/**
 * What jsonld-signatures ≤ 5 took the options hash of: the proof options without `type`
 * (nor their own `@context`), canonicalized under security/v2.
 */
function legacyOptionsInput(proof: ProofObject): object {
  const { jws: _jws, signatureValue: _signature, proofValue: _value, type: _type, '@context': _context, ...options } = proof
  return { '@context': SECURITY_V2_URL, ...options }
}

/** The JWS signing input over verifyData (its SHA-256 is what is signed). */
function signingInput(encodedHeader: string, optionsHash: Uint8Array, documentHash: Uint8Array): Uint8Array {
  return concatBytes(utf8ToBytes(`${encodedHeader}.`), optionsHash, documentHash)
}

/**
 * Signs `document` with an EcdsaSecp256k1RecoverySignature2020 proof (`creator` becomes
 * the proof's `verificationMethod`), added to any proofs it has, and returns the signed
 * copy; its `@context` gains the suite context if it had none.
 *
 * @throws {JsonLdProofError} bad options
 * @throws {UnknownContextError} | {JsonLdProcessingError} the document is not safely canonicalizable
 */
export async function signRecovery2020<T extends JsonLdDocument>(
  document: T,
  signer: DigestSigner,
  options: ProofOptions,
): Promise<T & { proof: Recovery2020Proof | ProofObject[] }> {
  const { creator, created } = digestProofOptions(options, RECOVERY_2020)
  const signed = withSuiteContext(document)
  const proof: Omit<Recovery2020Proof, 'jws'> = {
    type: RECOVERY_2020,
    created,
    verificationMethod: creator,
    proofPurpose: options.proofPurpose ?? 'assertionMethod',
    ...(options.domain !== undefined && { domain: options.domain }),
    ...(options.nonce !== undefined && { nonce: options.nonce }),
    ...(options.challenge !== undefined && { challenge: options.challenge }),
    ...(options.expires !== undefined && { expires: options.expires.toISOString() }),
  }
  const hasher = options.hasher ?? IN_THREAD_HASHER
  const [documentHash, optionsHash] = hasher.hashEach([unsignedOf(signed), optionsInput(proof, signed['@context'])])
  const documentPart = await documentHash
  const digest = sha256(signingInput(ENCODED_HEADER, await optionsHash, documentPart))
  const { compact, recovery } = toCompactLowS(await signer.sign(digest))
  const signature = Buffer.from(concatBytes(compact, Uint8Array.of(recovery))).toString('base64url')
  return appendProof(signed, { ...proof, jws: `${ENCODED_HEADER}..${signature}` })
}

/**
 * Verifies the EcdsaSecp256k1RecoverySignature2020 proofs of `document` (other proof
 * types are ignored; at least one must be present and all must verify). The signature must be
 * valid under a key `resolveSigningKeys(verificationMethod)` returns: checked by ECDSA
 * verification against a public key, or by recovering the key (the JWS's recovery bit first)
 * and comparing its address. The recovery bit must be 0/1 (or 27/28) but is not otherwise part
 * of the verdict (see `signedByAnyKey`).
 *
 * @throws {UnknownContextError} the document references an unknown context
 */
export async function verifyRecovery2020(document: JsonLdDocument, options: VerifyOptions): Promise<VerifyResult> {
  const { verified, error } = await verifyProofSet(document, options, (type) => (type === RECOVERY_2020 ? RECOVERY_2020_SUITE : null))
  return verified ? { verified } : { verified, error }
}

/** Checks one Recovery2020 proof against a document already hashed. */
async function verifyRecovery2020Proof(proof: ProofObject, context: ProofCheckContext): Promise<VerifyResult> {
  const { verificationMethod, jws } = proof
  if (typeof verificationMethod !== 'string' || verificationMethod === '') {
    return { verified: false, error: 'proof has no verificationMethod' }
  }
  const parts = typeof jws === 'string' ? DETACHED_JWS.exec(jws) : null
  if (!parts) return { verified: false, error: 'jws is not a detached JWS' }
  const [, encodedHeader = '', encodedSignature = ''] = parts
  const headerError = checkHeader(encodedHeader)
  if (headerError) return { verified: false, error: headerError }
  const signature = Buffer.from(encodedSignature, 'base64url')
  if (signature.length !== 65) return { verified: false, error: 'jws signature is not 65 bytes (r‖s‖v)' }
  const v = signature[64] >= 27 ? signature[64] - 27 : signature[64]
  if (v !== 0 && v !== 1) return { verified: false, error: 'jws signature has an invalid recovery bit' }
  const compact = signature.subarray(0, 64)
  if (hasHighS(compact)) return { verified: false, error: 'signature is not low-S (malleable form rejected)' }
  const keys = await context.options.resolveSigningKeys(verificationMethod)
  if (keys.length === 0) return { verified: false, error: `no signing keys found for ${shown(verificationMethod)}` }
  let unprocessable: JsonLdProcessingError | undefined
  try {
    const input = signingInput(encodedHeader, await context.optionsHash, context.documentHash)
    if (signedByAnyKey(input, compact, v, keys)) return { verified: true }
  } catch (err) {
    if (!(err instanceof JsonLdProcessingError)) throw err
    unprocessable = err
  }
  // The jsonld-signatures ≤ 5 form (see the module comment); its own failure reports the first form's.
  try {
    const [legacyHash] = context.hasher.hashEach([legacyOptionsInput(proof)])
    if (signedByAnyKey(signingInput(encodedHeader, await legacyHash, context.documentHash), compact, v, keys)) return { verified: true }
  } catch (err) {
    if (!(err instanceof JsonLdProcessingError)) throw err
  }
  if (unprocessable) throw unprocessable
  return { verified: false, error: `signature does not match any key of ${shown(verificationMethod)}` }
}

/** Why a JWS header is not an ES256K-R unencoded-payload header, or undefined when it is. */
function checkHeader(encodedHeader: string): string | undefined {
  let header: unknown
  try {
    header = JSON.parse(Buffer.from(encodedHeader, 'base64url').toString('utf8'))
  } catch {
    return 'jws header is not JSON'
  }
  const { alg, b64, crit } = (header ?? {}) as Record<string, unknown>
  if (alg !== 'ES256K-R') return 'jws alg is not ES256K-R'
  if (b64 !== false || !Array.isArray(crit) || !crit.includes('b64'))
    return 'jws header is not RFC 7797 unencoded (b64: false, crit: ["b64"])'
  return undefined
}

/** The suite: signs with secp256k1 keys' digest signer. */
export const RECOVERY_2020_SUITE: ProofSuite = {
  type: RECOVERY_2020,
  keyTypes: ['secp256k1'],
  authenticates: true,
  sign: async (document, signer, options) => signRecovery2020(document, digestSignerOf(signer, RECOVERY_2020), options),
  optionsInput,
  verify: verifyRecovery2020Proof,
}
