/**
 * Proof purposes of Data Integrity proofs: `assertionMethod` (credentials) and `authentication` (presentations, with
 * the verifier's `challenge` and `domain`), as the object the library asks to write them into a new proof.
 */
import type { LibraryPurpose } from './libraries.js'

/** The verification relationship a proof is made under. */
export type ProofPurpose = 'assertionMethod' | 'authentication'

/** What a purpose adds to a proof besides `proofPurpose`. */
export interface PurposeOptions {
  challenge?: string
  domain?: string
}

/** The library purpose writing `proofPurpose: term` and the given `challenge`/`domain` into the proof. */
export function libraryPurpose(term: ProofPurpose, { challenge, domain }: PurposeOptions = {}): LibraryPurpose {
  return {
    term,
    update: async (proof) => ({
      ...proof,
      proofPurpose: term,
      ...(challenge === undefined ? {} : { challenge }),
      ...(domain === undefined ? {} : { domain }),
    }),
  }
}
