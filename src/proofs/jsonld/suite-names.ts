/** The proof types of the JSON-LD suites, apart from the suites' code (the request schemas name them, and stay browser-safe). */

/** EcdsaKoblitzSignature2016: the spec's proof shape (the default). */
export const KOBLITZ_2016 = 'EcdsaKoblitzSignature2016'
/** EcdsaSecp256k1RecoverySignature2020: a detached JWS (ES256K-R). */
export const RECOVERY_2020 = 'EcdsaSecp256k1RecoverySignature2020'
