/**
 * The SD-JWT VC codec (draft-ietf-oauth-sd-jwt-vc on RFC 9901) over the key port and DID resolution, on
 * `@sd-jwt/core` / `@sd-jwt/sd-jwt-vc`: issue, verify (a credential, or with `kb` a presentation), present, and parse
 * (parts, index fields, content hash). What the `SD-JWT` credential format wraps; no storage, status or operations here.
 */
export { issueSdJwtVc, SD_JWT_VC_TYP, type SdJwtVcIssueInput } from './issue.js'
export { verifySdJwtVc, type SdJwtCheck, type SdJwtVcVerification, type SdJwtVcVerifyOptions } from './verify.js'
export { presentSdJwtVc, type SdJwtVcPresentInput } from './present.js'
export { KB_JWT_TYP } from './key-binding.js'
export { parseSdJwtVc, sdJwtVcContentHash, type ParsedSdJwtVc } from './parse.js'
export * from './limits.js'
export { sdJwtFormat } from './format.js'
