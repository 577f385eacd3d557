/**
 * The OID4VP library adapter: the verifier's side of OpenID for Verifiable Presentations 1.0, built on
 * @openid4vc/openid4vp, dcql and jose (optional peers). Pure functions taking callbacks, independent of storage and of
 * the service: single use and storage are the caller's. Each file below owns one job; add a line per file.
 */
export const OID4VP_PROTOCOL_VERSION = '1.0'
export * from './dcql.js'
export * from './encryption.js'
export * from './response.js'
export * from './request-object.js'
