/**
 * Errors of JSON-LD signing and verification. All are `VALIDATION_ERROR`s (422): they come
 * from what the caller sent, never from didvault itself.
 */
import { IdentityError } from '../../errors.js'

/** Longest document-supplied text echoed in an error message. */
const MAX_SHOWN = 200

/** `text` (from a caller's document) cut to a length fit for an error message. */
export function shown(text: string): string {
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text
}

/**
 * jsonld could not canonicalize a document in safe mode: a property or type its contexts do
 * not define (it would be silently left out of the signature), a relative IRI, a protected
 * term redefined, malformed JSON-LD.
 */
export class JsonLdProcessingError extends IdentityError {
  /** jsonld's event or error code, e.g. `invalid property`, `protected term redefinition`. */
  readonly code: string

  constructor(code: string, message: string) {
    super('VALIDATION_ERROR', message)
    this.name = 'JsonLdProcessingError'
    this.code = code
  }
}

/** Signing options or the document to sign are unusable (bad `creator`, existing proof, …). */
export class JsonLdProofError extends IdentityError {
  constructor(message: string) {
    super('VALIDATION_ERROR', message)
    this.name = 'JsonLdProofError'
  }
}

/**
 * The JSON-LD work of a request ran past the deadline in its worker: the worker was stopped
 * and the work given up. Only this request fails; a `VALIDATION_ERROR` (422): its document is
 * too costly to process.
 */
export class JsonLdDeadlineError extends IdentityError {
  /** The deadline, ms. */
  readonly deadlineMs: number

  constructor(deadlineMs: number) {
    const message = `JSON-LD canonicalization did not finish within the deadline of ${deadlineMs} ms (jsonldWorkers.deadlineMs)`
    super('VALIDATION_ERROR', `${message}: the document costs too much to process`)
    this.name = 'JsonLdDeadlineError'
    this.deadlineMs = deadlineMs
  }
}
