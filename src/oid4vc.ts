/**
 * `didvault/oid4vc`: the OID4VCI issuer's protocol adapter (needs the optional peers @openid4vc/openid4vci,
 * @openid4vc/oauth2 and @openid4vc/utils). The root entry does not import it.
 */
export * from './oid4vci/protocol/index.js'
