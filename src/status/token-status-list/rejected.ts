/** Why a Status List or a Status List Token was refused: the check that failed, named. */

/**
 * The checks of a Status List Token and of its list: `format` (not a compact JWS with JSON parts, or over the size
 * bound), `alg` (not a signature algorithm of the key types: `none`, MACs, unknown ones), `typ` (not `statuslist+jwt`),
 * `kid` (not a DID URL whose DID's current document lists, under `assertionMethod`, a key of the algorithm's type),
 * `signature`, `sub` (not the URI the token was fetched from), `iat` (missing, or in the future), `exp` (past, or not a
 * number), `ttl` (not a positive number), `status_list` (`bits` or `lst` malformed, not ZLIB/DEFLATE, or inflating past
 * the bound) and `index` (an index past the list).
 */
export type TokenStatusListCheck = 'format' | 'alg' | 'typ' | 'kid' | 'signature' | 'sub' | 'iat' | 'exp' | 'ttl' | 'status_list' | 'index'

/** A Status List or Status List Token refused by check `check`; `message` is short, carries no secret, and names no caller text. */
export class TokenStatusListRejected extends Error {
  constructor(
    readonly check: TokenStatusListCheck,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options)
    this.name = 'TokenStatusListRejected'
  }
}
