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
  | 'SERVICE_UNAVAILABLE'

const STATUS: Record<ErrorType, number> = {
  VALIDATION_ERROR: 422,
  NOT_FOUND: 422,
  UNAUTHENTICATED: 403,
  FORBIDDEN: 403,
  VAULT_NOT_INITIALIZED: 409,
  CONFLICT: 422,
  PAYLOAD_TOO_LARGE: 413,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
}

/** Whether `value` names an error type. */
export function isErrorType(value: string): value is ErrorType {
  return Object.hasOwn(STATUS, value)
}

/** The spec's error body. */
export interface ErrorBody {
  statusCode: number
  errorType: ErrorType
  errorMessage: string
}

/** Marks IdentityErrors, whichever copy of this module made them (see {@link IdentityError}'s `instanceof`). */
const IDENTITY_ERROR = Symbol.for('didvault.IdentityError')

/** An error an operation answers with; `statusCode` is the HTTP status the router sends. */
export class IdentityError extends Error {
  readonly statusCode: number
  readonly errorType: ErrorType
  readonly errorMessage: string

  /**
   * @param statusCode - the HTTP status, when it is not the one of `errorType`: only for error
   * bodies the HTTP layer answers (404 for a path no route serves, 431, 400), see {@link IdentityError.fromBody}
   */
  constructor(errorType: ErrorType, errorMessage: string, statusCode: number = STATUS[errorType]) {
    super(errorMessage)
    this.name = 'IdentityError'
    this.errorType = errorType
    this.errorMessage = errorMessage
    this.statusCode = statusCode
    Object.defineProperty(this, IDENTITY_ERROR, { value: true })
  }

  /** The error an error body received over HTTP stands for: the same `statusCode`, `errorType` and `errorMessage`. */
  static fromBody(body: ErrorBody): IdentityError {
    return new IdentityError(body.errorType, body.errorMessage, body.statusCode)
  }

  /**
   * `error instanceof IdentityError` holds for the IdentityErrors of every copy of didvault a
   * program loads: `didvault/client` bundles its own (it must load without the core), and its
   * errors are IdentityErrors of `didvault` too. Subclasses keep the ordinary check.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    if (this !== IdentityError) return Function.prototype[Symbol.hasInstance].call(this, value)
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[IDENTITY_ERROR] === true
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

/** Marks UnavailableErrors, whichever copy of this module made them. */
const UNAVAILABLE_ERROR = Symbol.for('didvault.UnavailableError')

/**
 * Thrown by a layer whose dependency — the storage, later an HSM — cannot be reached or cannot
 * take writes now: the operation answers 503 `SERVICE_UNAVAILABLE` (with `Retry-After` over HTTP).
 * `message` is for the operator's log (it may name a host, never a password); `reason` is what
 * the caller is told, and says nothing of the deployment.
 */
export class UnavailableError extends Error {
  constructor(
    message: string,
    /** What the caller is told, e.g. `storage unavailable`. */
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(message, options)
    this.name = 'UnavailableError'
    Object.defineProperty(this, UNAVAILABLE_ERROR, { value: true })
  }

  /** Holds for the UnavailableErrors (and subclasses) of every copy of didvault a program loads. Subclasses keep the ordinary check. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    if (this !== UnavailableError) return Function.prototype[Symbol.hasInstance].call(this, value)
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[UNAVAILABLE_ERROR] === true
  }
}

/**
 * Turns anything thrown into an IdentityError. A dependency that is unreachable becomes a 503
 * `SERVICE_UNAVAILABLE` naming the operation and the {@link UnavailableError}'s `reason`. Unknown
 * errors become a 500 whose message names the failed operation only: no stack, no library
 * message that could carry a secret.
 */
export function toIdentityError(err: unknown, operation: string): IdentityError {
  if (err instanceof IdentityError) return err
  if (err instanceof UnavailableError) return new IdentityError('SERVICE_UNAVAILABLE', `${operation} failed: ${err.reason}`)
  return new IdentityError('INTERNAL_ERROR', `${operation} failed`)
}

/** An item failure inside a 200 batch body. */
export function errorObject(err: unknown, operation: string): ErrorBody {
  return toIdentityError(err, operation).toJSON()
}
