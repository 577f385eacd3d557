/**
 * Verifies one `DataIntegrityProof` of a document: the proof's own terms (type, cryptosuite, purpose, challenge,
 * domain), then its verification method bound to the controller's current DID document ({@link boundMethod}), then
 * the signature by the cryptosuite's library object, which loads only bundled contexts and that method — one step
 * handed the method's public key, run where the hasher runs Data Integrity steps (the service's pool, under its
 * deadline: check `deadline`) or here. Every failure is a named outcome, never a throw.
 */
import { isDeepStrictEqual } from 'node:util'
import type { Resolvable } from 'did-resolver'
import type { JsonLdLimits } from '../jsonld/bounds.js'
import type { CanonicalHasher } from '../jsonld/canonical-hasher.js'
import type { IdentityError } from '../../errors.js'
import { JsonLdDeadlineError } from '../jsonld/errors.js'
import type { CryptosuiteDefinition } from './cryptosuites.js'
import { identityErrorIn, messageOf } from './failures.js'
import { checkDocument, checkWellFormedStrings, proofsOf, withoutProof } from './inputs.js'
import { dataIntegrityLibraries } from './libraries.js'
import type { ProofPurpose } from './purpose.js'
import { runnerOf } from './sign.js'
import type { VerifyStep } from './steps.js'
import { boundMethod } from './verification-methods.js'

/** How to verify. */
export interface DataIntegrityVerifyOptions {
  /** Resolves the controller's current DID document. */
  resolver: Resolvable
  /** The purpose the proof must be made under: `assertionMethod` for a credential, `authentication` for a presentation. */
  proofPurpose: ProofPurpose
  /** The DID that must control the key (a credential's issuer, a presentation's holder); omitted: any DID. */
  controller?: string
  /** The challenge the proof must carry (presentations). */
  challenge?: string
  /** The domain the proof must carry (presentations). */
  domain?: string
  limits?: JsonLdLimits
  /** Where the RDF cryptosuites canonicalize: the service's pool (`CanonicalizationPool.hasherFor`); default this thread. */
  hasher?: CanonicalHasher
}

/** What failed. */
export type DataIntegrityCheck =
  | 'document'
  | 'proof'
  | 'cryptosuite'
  | 'purpose'
  | 'challenge'
  | 'domain'
  | 'verification-method'
  | 'controller'
  | 'key-type'
  | 'signature'
  | 'deadline'

/** The outcome of verifying one proof. */
export type DataIntegrityVerification =
  | { verified: true; verificationMethod: string; controller: string }
  | {
      verified: false
      check: DataIntegrityCheck
      message: string
      /** The didvault error behind a `document` or `deadline` failure (e.g. the {@link JsonLdDeadlineError}). */
      error?: IdentityError
    }

const failed = (check: DataIntegrityCheck, message: string): DataIntegrityVerification => ({ verified: false, check, message })

/** Verifies `proof`, one of `document`'s proofs, as a proof of `suite`. */
export async function verifyWith(
  suite: CryptosuiteDefinition,
  document: unknown,
  proof: unknown,
  options: DataIntegrityVerifyOptions,
): Promise<DataIntegrityVerification> {
  let proofs: Record<string, unknown>[]
  try {
    checkDocument(document, options.limits)
    if (suite.canonicalization === 'jcs') checkWellFormedStrings(document)
    proofs = proofsOf(document)
  } catch (error) {
    return failed('document', messageOf(error))
  }
  const p = proofs.find((candidate) => candidate === proof) ?? proofs.find((candidate) => isDeepStrictEqual(candidate, proof))
  if (p === undefined) return failed('proof', 'the proof is not one of the document’s proofs')
  if (p.type !== 'DataIntegrityProof') return failed('proof', 'the proof is not a DataIntegrityProof')
  if (p.cryptosuite !== suite.name) return failed('cryptosuite', `the proof is not an ${suite.name} proof`)
  if (typeof p.verificationMethod !== 'string') return failed('proof', 'the proof has no verificationMethod DID URL')
  if (p.proofPurpose !== options.proofPurpose) return failed('purpose', `the proof is not made for ${options.proofPurpose}`)
  if (options.challenge !== undefined && p.challenge !== options.challenge)
    return failed('challenge', 'the proof’s challenge is not the expected one')
  if (options.domain !== undefined && p.domain !== options.domain) return failed('domain', 'the proof’s domain is not the expected one')
  const lib = await dataIntegrityLibraries()
  const method = await boundMethod(lib, suite, p.verificationMethod, {
    resolver: options.resolver,
    purpose: options.proofPurpose,
    controller: options.controller,
  })
  if ('check' in method) return failed(method.check, method.message)
  const step: VerifyStep = {
    kind: 'verify',
    cryptosuite: suite.name,
    document: withoutProof(document),
    proofSet: proofs,
    inlineable: suite.name !== 'ecdsa-sd-2023',
    proof: p,
    method: { id: method.id, curve: method.curve, multikey: method.multikey },
  }
  const result = await runnerOf(suite, method.curve, options.hasher)(step).catch((error: unknown) => ({ verified: false, error }))
  if (result.verified) return { verified: true, verificationMethod: method.id, controller: method.controller }
  const identityError = identityErrorIn(result.error)
  if (identityError === undefined) return failed('signature', messageOf(result.error))
  const check = identityError instanceof JsonLdDeadlineError ? 'deadline' : 'document'
  return { verified: false, check, message: identityError.message, error: identityError }
}
