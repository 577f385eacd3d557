/**
 * What the suites that sign a digest they compute (Koblitz2016, Recovery2020) share: the secp256k1 digest signer they
 * take and the check of the proof options they are given.
 */
import { invalid } from '../../errors.js'
import type { DigestSigner } from '../../keys/signer.js'
import { JsonLdProofError } from '../jsonld/errors.js'
import { checkProofOptions } from '../jsonld/proof-set.js'
import type { ProofOptions } from '../jsonld/types.js'
import type { ProofSigner } from './port.js'

/**
 * The digest signer of `signer`'s key.
 * @throws {IdentityError} 422 for a signer without one (the registry gives these suites secp256k1 signers only)
 */
export function digestSignerOf(signer: ProofSigner, suite: string): DigestSigner {
  if (!('digest' in signer) || !signer.digest)
    throw invalid(`${suite} signs with a secp256k1 digest signer; a ${signer.keyType} signer has none`)
  return signer.digest
}

/**
 * The `creator` and `created` (ISO 8601) of `options` for a proof of `suite`, which carries none of `unsupported`.
 * @throws {JsonLdProofError} bad options (see `checkProofOptions`), or one of `unsupported` given
 */
export function digestProofOptions(
  options: ProofOptions,
  suite: string,
  unsupported: readonly (keyof ProofOptions)[] = [],
): { creator: string; created: string } {
  const checked = checkProofOptions(options)
  for (const key of unsupported) {
    if (options[key] !== undefined) throw new JsonLdProofError(`${suite} has no ${key}`)
  }
  return checked
}
