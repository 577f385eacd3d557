/**
 * The one error type every operation rejects with. Its JSON form is exactly the spec's
 * error body `{statusCode, errorType, errorMessage}`.
 */
export type ErrorType =
  | 'VALIDATION_ERROR'
  | 'NOT_FOUND'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'VAULT_NOT_INITIALIZED'
  | 'CONFLICT'
  | 'PAYLOAD_TOO_LARGE'
  | 'INTERNAL_ERROR'

const STATUS: Record<ErrorType, number> = {
  VALIDATION_ERROR: 422,
  NOT_FOUND: 422,
  UNAUTHENTICATED: 403,
  FORBIDDEN: 403,
  VAULT_NOT_INITIALIZED: 409,
  CONFLICT: 422,
  PAYLOAD_TOO_LARGE: 413,
  INTERNAL_ERROR: 500,
}

/** The spec's error body. */
export interface ErrorBody {
  statusCode: number
  errorType: ErrorType
  errorMessage: string
}

/** An error an operation answers with; `statusCode` is the HTTP status the router sends. */
export class IdentityError extends Error {
  readonly statusCode: number
  readonly errorType: ErrorType
  readonly errorMessage: string

  constructor(errorType: ErrorType, errorMessage: string) {
    super(errorMessage)
    this.name = 'IdentityError'
    this.errorType = errorType
    this.errorMessage = errorMessage
    this.statusCode = STATUS[errorType]
  }

  /** The error body, as sent over HTTP. */
  toJSON(): ErrorBody {
    return { statusCode: this.statusCode, errorType: this.errorType, errorMessage: this.errorMessage }
  }
}

export const invalid = (message: string) => new IdentityError('VALIDATION_ERROR', message)
export const notFound = (message: string) => new IdentityError('NOT_FOUND', message)
export const unauthenticated = (message: string) => new IdentityError('UNAUTHENTICATED', message)
export const forbidden = (message: string) => new IdentityError('FORBIDDEN', message)
export const conflict = (message: string) => new IdentityError('CONFLICT', message)

/**
 * Turns anything thrown into an IdentityError. Unknown errors become a 500 whose message
 * names the failed operation only: no stack, no library message that could carry a secret.
 */
export function toIdentityError(err: unknown, operation: string): IdentityError {
  if (err instanceof IdentityError) return err
  return new IdentityError('INTERNAL_ERROR', `${operation} failed`)
}

/** An item failure inside a 200 batch body. */
export function errorObject(err: unknown, operation: string): ErrorBody {
  return toIdentityError(err, operation).toJSON()
}
