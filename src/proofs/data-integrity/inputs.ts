/**
 * Checks of what a caller hands the Data Integrity suites, before any work: the document's size (the JSON-LD bounds),
 * its shape, the proof's `created`, and JSON pointers.
 */
import { invalid } from '../../errors.js'
import { DEFAULT_JSONLD_LIMITS, jsonLdBoundsError, type JsonLdLimits } from '../jsonld/bounds.js'

/** A JSON-LD document (a credential or presentation), with or without `proof`. */
export type JsonLdDocument = Record<string, unknown>

/** An XSD dateTimeStamp (a date and time with a time zone), as Data Integrity's `created` must be. */
const DATE_TIME_STAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/

/**
 * @throws {JsonLdBoundsError} the document exceeds `limits` (default {@link DEFAULT_JSONLD_LIMITS})
 * @throws {IdentityError} `VALIDATION_ERROR` when it is not a JSON object
 */
export function checkDocument(document: unknown, limits: JsonLdLimits = DEFAULT_JSONLD_LIMITS): asserts document is JsonLdDocument {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) throw invalid('the document must be a JSON object')
  const error = jsonLdBoundsError(document, limits)
  if (error !== undefined) throw error
}

/** @throws {IdentityError} `VALIDATION_ERROR` unless `created` is an XSD dateTimeStamp */
export function checkCreated(created: string | undefined): void {
  if (created !== undefined && !(DATE_TIME_STAMP.test(created) && !Number.isNaN(Date.parse(created)))) {
    throw invalid(`created must be an XSD dateTimeStamp (e.g. 2026-01-01T00:00:00Z), not ${JSON.stringify(created).slice(0, 80)}`)
  }
}

/** @throws {IdentityError} `VALIDATION_ERROR` unless `pointers` is an array of at most `max` JSON pointers (RFC 6901) */
export function checkPointers(name: string, pointers: unknown, max: number): asserts pointers is string[] {
  if (!Array.isArray(pointers) || pointers.length > max) throw invalid(`${name} must be an array of at most ${max} JSON pointers`)
  for (const pointer of pointers) {
    if (typeof pointer !== 'string' || !/^(\/([^~]|~[01])*)+$/.test(pointer) || pointer.length > 1024) {
      throw invalid(`${name}: ${JSON.stringify(String(pointer)).slice(0, 80)} is not a JSON pointer such as /credentialSubject/name`)
    }
  }
}

/** The proofs of a document's `proof` (none, one, or a set). */
export function proofsOf(document: JsonLdDocument): Record<string, unknown>[] {
  const { proof } = document
  if (proof === undefined) return []
  const proofs = Array.isArray(proof) ? proof : [proof]
  if (!proofs.every((p) => typeof p === 'object' && p !== null && !Array.isArray(p)))
    throw invalid('proof must be an object or an array of objects')
  return proofs as Record<string, unknown>[]
}

/** The document without its `proof`. */
export function withoutProof(document: JsonLdDocument): JsonLdDocument {
  const { proof: _proof, ...rest } = document
  return rest
}

/** A UTF-16 surrogate that is not half of a pair (in `u` mode a pair reads as one code point, so only lone ones match). */
const LONE_SURROGATE = /\p{Cs}/u

/**
 * @throws {IdentityError} `VALIDATION_ERROR` when a key or string of the document holds a lone surrogate: JCS
 *   (RFC 8785) canonicalizes I-JSON, which has none, so such a document has no canonical form. The document is
 *   within the bounds already: the walk is bounded.
 */
export function checkWellFormedStrings(document: JsonLdDocument): void {
  const pending: unknown[] = [document]
  while (pending.length > 0) {
    const value = pending.pop()
    if (typeof value === 'string') {
      if (LONE_SURROGATE.test(value))
        throw invalid('the document holds a string with a lone UTF-16 surrogate, which JCS cannot canonicalize')
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, entry] of Object.entries(value)) pending.push(key, entry)
    }
  }
}
