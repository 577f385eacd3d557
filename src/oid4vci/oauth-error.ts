/**
 * OAuth 2.0 error answers (RFC 6749 §5.2, RFC 6750 §3, RFC 9449 §7.1): the errors of operations declaring
 * `errorFormat: 'oauth'` — the wallet-facing endpoints of the OID4VCI issuer — and how any other error of theirs
 * becomes one. Browser-safe: no Node built-in.
 */
import type { AuthContext } from '../auth/context.js'
import { IdentityError, type ErrorType } from '../errors.js'

/** What an {@link OAuthError} carries besides its code and description. */
export interface OAuthErrorOptions {
  /** More members of the error body (`c_nonce`, `c_nonce_expires_in`, `interval`). */
  body?: Record<string, unknown>
  /** Headers of the answer (`WWW-Authenticate`, `DPoP-Nonce`). */
  headers?: Record<string, string>
}

/** The error body of an OAuth error answer. */
export interface OAuthErrorBody {
  error: string
  error_description?: string
  [member: string]: unknown
}

/** The error type an OAuth error stands for where didvault's error body is read (logs, operations without the OAuth format). */
function errorTypeOf(status: number): ErrorType {
  if (status === 401) return 'UNAUTHENTICATED'
  if (status === 403) return 'FORBIDDEN'
  if (status === 413) return 'PAYLOAD_TOO_LARGE'
  if (status === 503) return 'SERVICE_UNAVAILABLE'
  if (status >= 500) return 'INTERNAL_ERROR'
  return 'VALIDATION_ERROR'
}

/**
 * An OAuth error: its code (`invalid_request`, `invalid_grant`, `invalid_token`, `invalid_proof`, …), description,
 * HTTP status, and the body members and headers that go with it. An `IdentityError`, so the dispatcher passes it
 * through as it is.
 */
export class OAuthError extends IdentityError {
  /** The `error` code. */
  readonly error: string
  /** More members of the body. */
  readonly body: Readonly<Record<string, unknown>>
  /** Headers of the answer. */
  readonly headers: Readonly<Record<string, string>>

  constructor(error: string, description: string, status = 400, options: OAuthErrorOptions = {}) {
    super(errorTypeOf(status), description, status)
    this.name = 'OAuthError'
    this.error = error
    this.body = options.body ?? {}
    this.headers = options.headers ?? {}
  }

  /** The `error_description` as given (the body carries it cut to the characters RFC 6749 allows). */
  get description(): string {
    return this.errorMessage
  }

  /** The error body: `{ error, error_description, ...body }` (the code and description win over `body`'s). */
  oauthBody(): OAuthErrorBody {
    const description = oauthText(this.errorMessage)
    const own = { error: this.error, ...(description !== '' && { error_description: description }) }
    return { ...own, ...this.body, ...own }
  }
}

/**
 * `text` in the characters RFC 6749 allows in `error_description` (printable ASCII but `"` and `\`): typographic
 * quotes become `'`, other characters `?`.
 */
export function oauthText(text: string): string {
  return text.replace(/[\u2018\u2019\u201c\u201d"]/g, "'").replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, '?')
}

/**
 * The `WWW-Authenticate` challenge of a refused access token (RFC 6750 §3, RFC 9449 §7.1): in the scheme the
 * request used (`DPoP` when it sent a DPoP proof or the DPoP scheme, else `Bearer`); without any credentials, the
 * scheme alone (RFC 6750 §3.1: no error code for a request that did not try).
 */
export function challengeOf(auth: AuthContext | undefined, error: string, description: string): string {
  const authorization = auth?.authorization?.trim() ?? ''
  const scheme = /^dpop\s/i.test(authorization) || auth?.dpop !== undefined ? 'DPoP' : 'Bearer'
  if (authorization === '') return scheme
  return `${scheme} error="${error}", error_description="${oauthText(description)}"`
}

/**
 * The OAuth error any error of an operation with `errorFormat: 'oauth'` becomes: an `OAuthError` is itself; a refused
 * input `invalid_request` (400; 404 for what is not found; 406 / 413 where the status says so); a failed authentication 401
 * `invalid_token` with its challenge; a refusal by policy 403 `insufficient_scope`; storage unavailable 503
 * `temporarily_unavailable`; anything else 500 `server_error`, saying nothing more.
 * @param auth - the request's headers, for the `WWW-Authenticate` scheme
 */
export function toOAuthError(err: unknown, auth?: AuthContext): OAuthError {
  if (err instanceof OAuthError) return err
  if (!(err instanceof IdentityError)) return new OAuthError('server_error', 'internal error', 500)
  const { errorType, errorMessage, statusCode } = err
  if (errorType === 'UNAUTHENTICATED') {
    return new OAuthError('invalid_token', errorMessage, 401, {
      headers: { 'WWW-Authenticate': challengeOf(auth, 'invalid_token', errorMessage) },
    })
  }
  if (errorType === 'FORBIDDEN') return new OAuthError('insufficient_scope', errorMessage, 403)
  if (errorType === 'SERVICE_UNAVAILABLE') return new OAuthError('temporarily_unavailable', errorMessage, 503)
  if (statusCode >= 500) return new OAuthError('server_error', 'internal error', 500)
  if (errorType === 'NOT_FOUND') return new OAuthError('invalid_request', errorMessage, 404)
  return new OAuthError('invalid_request', errorMessage, [404, 406, 413].includes(statusCode) ? statusCode : 400)
}
