/**
 * Claim names an SD-JWT VC never makes selectively disclosable (draft-ietf-oauth-sd-jwt-vc §3.2.2: `iss`, `nbf`, `exp`,
 * `cnf`, `vct`, `vct#integrity`, `status`; and here `iat`, set by the issuer), and names RFC 9901 keeps for itself
 * (`_sd`, `_sd_alg`, `...`), which no payload may use.
 */

/** Top-level claims the issuer sets and never discloses selectively: a payload may not give them either. */
export const ISSUER_CLAIMS: ReadonlySet<string> = new Set(['iss', 'iat', 'nbf', 'exp', 'cnf', 'vct', 'vct#integrity', 'status'])

/** Names of RFC 9901's own (and `__proto__`, which a JavaScript object cannot hold as a claim): refused anywhere in a payload. */
export const SD_JWT_NAMES: ReadonlySet<string> = new Set(['_sd', '_sd_alg', '...', '_sd_decoy', '__proto__'])
