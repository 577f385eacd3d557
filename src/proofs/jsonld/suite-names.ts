/** The proof types of the JSON-LD suites, apart from the suites' code (the request schemas name them, and stay browser-safe). */

/** EcdsaKoblitzSignature2016: the spec's proof shape (the default). */
export const KOBLITZ_2016 = 'EcdsaKoblitzSignature2016'
/** EcdsaSecp256k1RecoverySignature2020: a detached JWS (ES256K-R). */
export const RECOVERY_2020 = 'EcdsaSecp256k1RecoverySignature2020'
/** DataIntegrityProof: a W3C Data Integrity proof, its algorithm named by `cryptosuite`. */
export const DATA_INTEGRITY_PROOF = 'DataIntegrityProof'
/** The JSON-LD proof types a request may name. */
export const PROOF_TYPES = [KOBLITZ_2016, RECOVERY_2020, DATA_INTEGRITY_PROOF] as const
