/**
 * One Data Integrity library step — a proof's creation, an ecdsa-sd-2023 derivation, a proof's verification — as plain
 * data, and the code that runs it. Everything a step needs travels in it (the document, the proof set, the verification
 * method's public Multikey resolved beforehand, the signer's algorithm, never a key): the same step runs in the calling
 * thread (the suites used on their own) or in a worker of the service's pool (`CanonicalHasher.runDataIntegrity`). A
 * step's signature is asked of whoever handed it ({@link RequestSignature}); its contexts are the loaded ones only.
 */
import { IdentityError, type ErrorType } from '../../errors.js'
import type { CanonicalHasher } from '../jsonld/canonical-hasher.js'
import { UnknownContextError, documentLoader } from '../jsonld/document-loader.js'
import {
  CRYPTOSUITES,
  isSelectiveDisclosure,
  selectiveDisclosureCryptosuites,
  signingCryptosuite,
  type DataIntegrityCryptosuite,
} from './cryptosuites.js'
import { identityErrorIn, messageOf } from './failures.js'
import type { JsonLdDocument } from './inputs.js'
import { dataIntegrityLibraries, type Cryptosuite, type DataIntegrityLibraries, type DocumentLoader } from './libraries.js'
import { libraryPurpose, type ProofPurpose } from './purpose.js'
import { hashesThroughHasher, withHasher } from './rdfc-hashing.js'
import { withCachedVerifiers } from './verifiers.js'

/** What every step carries: the cryptosuite, the document without `proof`, and the proofs it is made or checked among. */
interface StepOf<K extends string> {
  kind: K
  cryptosuite: DataIntegrityCryptosuite
  document: JsonLdDocument
  proofSet: Record<string, unknown>[]
  /** Whether a small document may run in the calling thread (the pool's `inlineMaxNodes` rule); false: always a pool task. */
  inlineable: boolean
}

/** Create a proof: the cryptosuite's library signs with `algorithm` (the key's curve) for `verificationMethod`. */
export interface SignStep extends StepOf<'sign'> {
  verificationMethod: string
  algorithm: string
  created: string
  proofPurpose: ProofPurpose
  challenge?: string
  domain?: string
  /** The selective-disclosure cryptosuites only: the claims every derived document reveals. */
  mandatoryPointers?: string[]
  /** bbs-2023 only: the signer's BLS12-381 G2 public key (the library binds the signature to it). */
  publicKey?: Uint8Array
}

/** Derive a selective-disclosure proof from the base proof (the proof set's only proof). */
export interface DeriveStep extends StepOf<'derive'> {
  selectivePointers: string[]
  proofPurpose: ProofPurpose
}

/** Verify `proof` with the public key of its verification method, resolved and bound by the caller. */
export interface VerifyStep extends StepOf<'verify'> {
  proof: Record<string, unknown>
  method: { id: string; curve: string; multikey: Record<string, unknown> }
}

export type DataIntegrityStep = SignStep | DeriveStep | VerifyStep

/** What a step answers: the new proof, the derived document, or whether the proof verified (and why not). */
export type StepOutput<S extends DataIntegrityStep> = S extends SignStep
  ? Record<string, unknown>
  : S extends DeriveStep
    ? Record<string, unknown>
    : { verified: boolean; error?: unknown }

/** What a signing step asks the key port to sign: bytes (a JOSE signature), or BBS messages under a header (bbs-2023). */
export type SignatureRequest = { data: Uint8Array } | { header: Uint8Array; messages: Uint8Array[] }

/** Asks the key port for the signature a step needs (the main thread's signer); a step asks at most once. */
export type RequestSignature = (request: SignatureRequest) => Promise<Uint8Array>

/**
 * The signature request a worker posted for `step`, checked: bytes for a JOSE signer, messages under a header for a
 * BBS signer (a step with the signer's `publicKey`); anything else is undefined (refused).
 */
export function signatureRequestOf(message: unknown, step: SignStep): SignatureRequest | undefined {
  if (typeof message !== 'object' || message === null) return undefined
  const { data, header, messages } = message as { data?: unknown; header?: unknown; messages?: unknown }
  if (step.publicKey === undefined) return data instanceof Uint8Array ? { data } : undefined
  const bytes = (value: unknown): value is Uint8Array => value instanceof Uint8Array
  return bytes(header) && Array.isArray(messages) && messages.every(bytes) ? { header, messages } : undefined
}

/** How a step runs: in this thread by default, in the service's pool through its hasher. */
export type DataIntegrityRunner = <S extends DataIntegrityStep>(step: S, requestSignature?: RequestSignature) => Promise<StepOutput<S>>

/**
 * Runs `step` in this thread: the libraries over the loaded contexts only; an rdfc cryptosuite whose hashes a hasher
 * computes (P-256, Ed25519) hashes through `hasher`. Failures of sign and derive are thrown as the library threw them.
 */
export async function runDataIntegrityStep<S extends DataIntegrityStep>(
  step: S,
  requestSignature?: RequestSignature,
  hasher?: CanonicalHasher,
): Promise<StepOutput<S>> {
  return (await run(step, requestSignature, hasher)) as StepOutput<S>
}

async function run(step: DataIntegrityStep, requestSignature?: RequestSignature, hasher?: CanonicalHasher): Promise<unknown> {
  const lib = await dataIntegrityLibraries()
  const suite = CRYPTOSUITES[step.cryptosuite]
  const through = (library: Cryptosuite, curve: string) => (hashesThroughHasher(suite, curve) ? withHasher(library, hasher) : library)
  switch (step.kind) {
    case 'sign': {
      const sign: RequestSignature = requestSignature ?? (() => Promise.reject(new Error('this step was handed no signer')))
      const signer = {
        id: step.verificationMethod,
        algorithm: step.algorithm,
        sign: ({ data }: { data: Uint8Array }) => sign({ data }),
        ...(step.publicKey !== undefined && {
          publicKey: step.publicKey,
          multisign: ({ header, messages }: { header: Uint8Array; messages: Uint8Array[] }) => sign({ header, messages }),
        }),
      }
      const cryptosuite = through(signingOf(lib, step), step.algorithm)
      const dataIntegrity = new lib.DataIntegrityProof({ cryptosuite, signer, date: step.created })
      dataIntegrity.ensureSuiteContext({ document: step.document, addSuiteContext: false })
      const purpose = libraryPurpose(step.proofPurpose, step)
      return dataIntegrity.createProof({ document: step.document, purpose, proofSet: step.proofSet, documentLoader })
    }
    case 'derive': {
      if (!isSelectiveDisclosure(step.cryptosuite)) throw new Error(`${step.cryptosuite} does not derive`)
      const disclose = selectiveDisclosureCryptosuites(lib, step.cryptosuite)
      const cryptosuite = disclose.createDiscloseCryptosuite({ selectivePointers: step.selectivePointers })
      const dataIntegrity = new lib.DataIntegrityProof({ cryptosuite })
      const purpose = libraryPurpose(step.proofPurpose)
      return dataIntegrity.derive({ document: step.document, purpose, proofSet: step.proofSet, documentLoader })
    }
    case 'verify': {
      const { id, multikey, curve } = step.method
      const loader: DocumentLoader = async (url) =>
        url === id ? { contextUrl: null, documentUrl: url, document: structuredClone(multikey) } : documentLoader(url)
      const dataIntegrity = new lib.DataIntegrityProof({ cryptosuite: withCachedVerifiers(through(suite.verifying(lib), curve), curve) })
      const result = await dataIntegrity
        .verifyProof({ proof: step.proof, proofSet: step.proofSet, document: step.document, documentLoader: loader })
        .catch((error: unknown) => ({ verified: false, error }))
      return result.verified ? { verified: true } : { verified: false, error: result.error }
    }
  }
}

function signingOf(lib: DataIntegrityLibraries, step: SignStep): Cryptosuite {
  if (isSelectiveDisclosure(step.cryptosuite)) {
    const selective = selectiveDisclosureCryptosuites(lib, step.cryptosuite)
    return selective.createSignCryptosuite({ mandatoryPointers: step.mandatoryPointers ?? [] })
  }
  return signingCryptosuite(lib, step.cryptosuite)
}

/** A step's failure as it crosses from a worker: the didvault error it stands for, else the library's message. */
export type StepFailure =
  { identity: { errorType: ErrorType; message: string; unknownContext?: string } } | { message: string; event?: SafeModeEvent }

/** JSON-LD safe mode's refusal as the libraries report it (`details.event`): kept so an undefined term is told apart. */
interface SafeModeEvent {
  code: string
  details?: { property?: unknown; type?: unknown }
}

/** `error` (thrown or reported by a step) as data a worker can post. */
export function stepFailureOf(error: unknown): StepFailure {
  const identity = identityErrorIn(error)
  if (identity === undefined) {
    const event = (error as { details?: { event?: { code?: unknown; details?: SafeModeEvent['details'] } } } | undefined)?.details?.event
    if (typeof event?.code !== 'string') return { message: messageOf(error) }
    const { property, type } = event.details ?? {}
    return { message: error instanceof Error ? error.message : String(error), event: { code: event.code, details: { property, type } } }
  }
  const unknownContext = identity instanceof UnknownContextError ? identity.url : undefined
  return {
    identity: { errorType: identity.errorType, message: identity.errorMessage, ...(unknownContext !== undefined && { unknownContext }) },
  }
}

/** The error a posted failure stands for (an {@link IdentityError} when it was one). */
export function errorOfStepFailure(failure: StepFailure): Error {
  if (!('identity' in failure)) {
    const error = new Error(failure.message)
    return failure.event === undefined ? error : Object.assign(error, { details: { event: failure.event } })
  }
  const { errorType, message, unknownContext } = failure.identity
  return unknownContext !== undefined ? new UnknownContextError(unknownContext) : new IdentityError(errorType, message)
}
