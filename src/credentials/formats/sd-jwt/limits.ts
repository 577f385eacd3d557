/**
 * The bounds of the SD-JWT VC codec: every input's work is bounded before it is done (docs/credentials.md, *SD-JWT VC*).
 */

/** Most `disclose` paths one credential or presentation names. */
export const MAX_DISCLOSE_PATHS = 256

/** Most decoy digests one credential carries. */
export const MAX_DECOYS = 64

/** Most segments of one `disclose` path, and deepest nesting of a payload the codec walks. */
export const MAX_DEPTH = 32

/** Longest compact SD-JWT (with its disclosures and KB-JWT) read, in characters. */
export const MAX_SD_JWT_CHARS = 512 * 1024

/** Most disclosures one compact SD-JWT may carry. */
export const MAX_DISCLOSURES = 1024

/** Longest `vct`, in characters. */
export const MAX_VCT_CHARS = 2048

/** Allowed clock skew for the credential's and the KB-JWT's dates, seconds. */
export const SKEW_SECONDS = 60

/** Default oldest KB-JWT accepted (`now - iat`), seconds. */
export const DEFAULT_KB_MAX_AGE_SECONDS = 300
