/**
 * Selective-disclosure derivation (ecdsa-sd-2023, bbs-2023): from a document with the issuer's base proof, the
 * document revealing only the mandatory claims and those the holder's `selectivePointers` select, with a derived
 * proof. Needs no key: any holder derives. The library step runs where the hasher runs Data Integrity steps (the
 * service's pool, under its deadline), else here.
 */
import { invalid } from '../../errors.js'
import type { JsonLdLimits } from '../jsonld/bounds.js'
import { DEFAULT_JSONLD_LIMITS } from '../jsonld/bounds.js'
import { onDocument } from './failures.js'
import { checkDocument, checkPointers, proofsOf, withoutProof } from './inputs.js'
import type { CanonicalHasher } from '../jsonld/canonical-hasher.js'
import { CRYPTOSUITES, type SelectiveDisclosureCryptosuite } from './cryptosuites.js'
import type { ProofPurpose } from './purpose.js'
import { runnerOf, type SignedDocument } from './sign.js'
import type { DeriveStep } from './steps.js'

/**
 * The derived document.
 *
 * @throws {JsonLdDeadlineError} (422) the step ran past the pool's deadline
 * @throws {IdentityError} `VALIDATION_ERROR` (422): the document is over the bounds or has no single base proof of
 *   `cryptosuite`, a pointer is malformed or selects nothing, or the library refuses the base proof
 */
export async function deriveSelective(
  document: unknown,
  selectivePointers: unknown,
  { limits = DEFAULT_JSONLD_LIMITS, hasher }: { limits?: JsonLdLimits; hasher?: CanonicalHasher } = {},
  cryptosuite: SelectiveDisclosureCryptosuite = 'ecdsa-sd-2023',
): Promise<SignedDocument> {
  checkDocument(document, limits)
  checkPointers('selectivePointers', selectivePointers, limits.maxArrayLength)
  const proofs = proofsOf(document)
  const base = proofs.filter((p) => p.type === 'DataIntegrityProof' && p.cryptosuite === cryptosuite)
  if (base.length !== 1) throw invalid(`the document must carry exactly one ${cryptosuite} base proof to derive from`)
  const step: DeriveStep = {
    kind: 'derive',
    cryptosuite,
    document: withoutProof(document),
    proofSet: base,
    inlineable: false,
    selectivePointers,
    proofPurpose: base[0].proofPurpose as ProofPurpose,
  }
  const definition = CRYPTOSUITES[cryptosuite]
  const run = runnerOf(definition, definition.keyTypes[0], hasher)
  const derived = await onDocument(
    `cannot derive a ${cryptosuite} proof`,
    () => run(step),
    () => undefined,
  )
  return derived as SignedDocument
}
