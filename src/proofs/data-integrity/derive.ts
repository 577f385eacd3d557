/**
 * Selective-disclosure derivation (ecdsa-sd-2023, bbs-2023): from a document with the issuer's base proof, the
 * document revealing only the mandatory claims and those the holder's `selectivePointers` select, with a derived
 * proof. Needs no key: any holder derives.
 */
import { invalid } from '../../errors.js'
import type { JsonLdLimits } from '../jsonld/bounds.js'
import type { CanonicalHasher } from '../jsonld/canonical-hasher.js'
import { DEFAULT_JSONLD_LIMITS } from '../jsonld/bounds.js'
import { selectiveDisclosureCryptosuites, type SelectiveDisclosureCryptosuite } from './cryptosuites.js'
import { onDocument } from './failures.js'
import { checkDocument, checkPointers, proofsOf, withoutProof } from './inputs.js'
import { dataIntegrityLibraries } from './libraries.js'
import { libraryPurpose, type ProofPurpose } from './purpose.js'
import type { SignedDocument } from './sign.js'
import { contextsOnly } from './sign.js'

/**
 * The derived document.
 *
 * @throws {IdentityError} `VALIDATION_ERROR` (422): the document is over the bounds or has no single base proof of
 *   `cryptosuite`, a pointer is malformed or selects nothing, or the library refuses the base proof
 */
export async function deriveSelective(
  document: unknown,
  selectivePointers: unknown,
  { limits = DEFAULT_JSONLD_LIMITS }: { limits?: JsonLdLimits; hasher?: CanonicalHasher } = {},
  cryptosuite: SelectiveDisclosureCryptosuite = 'ecdsa-sd-2023',
): Promise<SignedDocument> {
  checkDocument(document, limits)
  checkPointers('selectivePointers', selectivePointers, limits.maxArrayLength)
  const proofs = proofsOf(document)
  const base = proofs.filter((p) => p.type === 'DataIntegrityProof' && p.cryptosuite === cryptosuite)
  if (base.length !== 1) throw invalid(`the document must carry exactly one ${cryptosuite} base proof to derive from`)
  const lib = await dataIntegrityLibraries()
  const disclose = selectiveDisclosureCryptosuites(lib, cryptosuite).createDiscloseCryptosuite({ selectivePointers })
  const dataIntegrity = new lib.DataIntegrityProof({ cryptosuite: disclose })
  const purpose = libraryPurpose(base[0].proofPurpose as ProofPurpose)
  const derived = await onDocument(
    `cannot derive a ${cryptosuite} proof`,
    () => dataIntegrity.derive({ document: withoutProof(document), purpose, proofSet: base, documentLoader: contextsOnly }),
    () => undefined,
  )
  return derived as SignedDocument
}
