/**
 * The VC Data Model 2.0 rules a credential's JSON must keep beyond what JSON-LD expansion enforces (the W3C VCDM 2.0
 * test suite's negative inputs): every `credentialSubject` a non-empty object; `credentialStatus`, `evidence`,
 * `termsOfUse`, `refreshService` and `credentialSchema` entries objects with a `type` (§4.5), a `credentialSchema`
 * entry with an `id` too (§4.11); `validFrom` / `validUntil` XML Schema `dateTimeStamp`s (§4.9).
 */
import type { JsonLdDocument } from '../../../proofs/jsonld/index.js'

/** The properties whose every entry must be an object with a `type` (VCDM 2.0 §4.5). */
const TYPED_PROPERTIES = ['credentialStatus', 'evidence', 'termsOfUse', 'refreshService', 'credentialSchema'] as const

/** An XML Schema `dateTimeStamp`: a date and a time with seconds, optional fraction, and a time zone. */
const DATE_TIME_STAMP = /^-?\d{4,}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/

const entriesOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value])
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/** Why the data model 2.0 credential `vc` breaks one of these rules (the first found), or undefined. */
export function dataModel2Error(vc: JsonLdDocument): string | undefined {
  for (const subject of entriesOf(vc.credentialSubject)) {
    if (!isObject(subject) || Object.keys(subject).length === 0) return 'credentialSubject: each must be an object with a claim or an id'
  }
  for (const property of TYPED_PROPERTIES) {
    if (vc[property] === undefined) continue
    for (const entry of entriesOf(vc[property])) {
      if (!isObject(entry) || entry.type === undefined) return `${property}: each must be an object with a type`
      if (property === 'credentialSchema' && entry.id === undefined) return 'credentialSchema: each must have an id'
    }
  }
  for (const field of ['validFrom', 'validUntil'] as const) {
    const value = vc[field]
    if (value !== undefined && (typeof value !== 'string' || !DATE_TIME_STAMP.test(value)))
      return `${field}: must be a date-time with a time zone (XML Schema dateTimeStamp)`
  }
  return undefined
}
