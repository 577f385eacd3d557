/**
 * The error of the wallet-facing OID4VCI endpoints: an OAuth 2.0 / OID4VCI error body (`error`, `error_description`,
 * plus members such as a fresh `c_nonce`) with its HTTP status and headers (`WWW-Authenticate`, `DPoP-Nonce`), instead
 * of didvault's error body. A subclass of {@link IdentityError}, so the dispatcher passes it through unchanged.
 */
import { IdentityError } from '../errors.js'

/** What an {@link OAuthError} adds to its body and its response. */
export interface OAuthErrorOptions {
  /** Members added to the error body (e.g. `c_nonce`). */
  body?: Record<string, unknown>
  /** Response headers (e.g. `WWW-Authenticate`, `DPoP-Nonce`). */
  headers?: Record<string, string>
}

/** The OAuth error body: RFC 6749 §5.2 and the error responses of OID4VCI 1.0. */
export interface OAuthErrorBody {
  error: string
  error_description: string
  [member: string]: unknown
}

/** An error a wallet-facing endpoint answers with an OAuth error body. */
export class OAuthError extends IdentityError {
  /** The OAuth error code (`invalid_request`, `invalid_grant`, `invalid_proof`, …). */
  readonly error: string
  /** The human-readable `error_description`; names no secret. */
  readonly description: string
  /** Members added to the error body. */
  readonly body: Readonly<Record<string, unknown>>
  /** Response headers. */
  readonly headers: Readonly<Record<string, string>>

  /**
   * @param error - the OAuth error code
   * @param description - the `error_description` (no code, token, nonce or PIN in it)
   * @param status - the HTTP status: 400 by default, 401 for `invalid_token` and DPoP nonce challenges
   */
  constructor(error: string, description: string, status = 400, options: OAuthErrorOptions = {}) {
    super(status === 401 ? 'UNAUTHENTICATED' : 'VALIDATION_ERROR', description, status)
    this.name = 'OAuthError'
    this.error = error
    this.description = description
    this.body = { ...options.body }
    this.headers = { ...options.headers }
  }

  /** The OAuth error body, as sent to the wallet. */
  toOAuthBody(): OAuthErrorBody {
    return { ...this.body, error: this.error, error_description: this.description }
  }
}
