/** The secp256k1 digest signer the suites that sign a digest they compute (Koblitz2016, Recovery2020) take. */
import type { DigestSigner } from '../../keys/signer.js'
import type { ProofSigner } from './port.js'

/**
 * The digest signer of `signer`'s key.
 * @throws {Error} a signer without one (the registry gives these suites secp256k1 signers only)
 */
export function digestSignerOf(signer: ProofSigner, suite: string): DigestSigner {
  if (!signer.digest) throw new Error(`${suite} signs with a secp256k1 digest signer; a ${signer.keyType} signer has none`)
  return signer.digest
}
