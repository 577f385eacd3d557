/**
 * The IETF Token Status List (draft-ietf-oauth-status-list): the Status List codec, and signing and verifying Status
 * List Tokens in JWT form. What the status operations use for SD-JWT VCs.
 */
export { STATUS_INVALID, STATUS_LIST_BITS, STATUS_SUSPENDED, STATUS_VALID, isStatusListBits, type StatusListBits } from './status-types.js'
export { TokenStatusListRejected, type TokenStatusListCheck } from './rejected.js'
export {
  MAX_STATUS_LIST_BYTES,
  decodeStatusList,
  encodeStatusList,
  maxLstLength,
  statusAt,
  statusListSize,
  type DecodeStatusListOptions,
} from './status-list.js'
export { STATUS_LIST_JWT_TYPE, signStatusListToken, type StatusListTokenInput } from './sign-token.js'
export {
  verifyStatusListToken,
  type RefusedStatusListToken,
  type VerifiedStatusListToken,
  type VerifyStatusListTokenOptions,
} from './verify-token.js'
