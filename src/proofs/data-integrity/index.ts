/**
 * W3C Data Integrity (`DataIntegrityProof`) with the cryptosuites of the vc-di-ecdsa and vc-di-eddsa
 * Recommendations and bbs-2023 (vc-di-bbs), built on digitalbazaar's libraries with the key port as signer and the bundled contexts as the
 * only document loader.
 */
export { DATA_INTEGRITY_CRYPTOSUITES, type DataIntegrityCryptosuite } from './cryptosuites.js'
export type { JsonLdDocument } from './inputs.js'
export type { ProofPurpose } from './purpose.js'
export type { DataIntegritySignOptions, SignedDocument } from './sign.js'
export type { DataIntegrityCheck, DataIntegrityVerification, DataIntegrityVerifyOptions } from './verify.js'
export {
  bbs2023,
  DATA_INTEGRITY_SUITES,
  ecdsaJcs2019,
  ecdsaRdfc2019,
  ecdsaSd2023,
  eddsaJcs2022,
  eddsaRdfc2022,
  type BbsSuite,
  type DataIntegritySuite,
  type SelectiveDisclosureSuite,
} from './suites.js'
