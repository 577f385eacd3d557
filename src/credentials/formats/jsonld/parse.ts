/** The index fields of a JSON-LD credential (nothing verified). */
import { invalid } from '../../../errors.js'
import { asString, ids, typesOf } from '../index-fields.js'
import type { ParsedCredential } from '../port.js'
import { jsonLdHash } from './content-hash.js'

/** Parses a JSON-LD VC: `@context`, `type` with VerifiableCredential, `issuer`, `credentialSubject`. */
export function parseJsonLd(jsonld: Record<string, unknown>): ParsedCredential {
  if (jsonld['@context'] === undefined) throw invalid('jsonld: `@context` is missing')
  const types = typesOf(jsonld.type)
  if (!types.includes('VerifiableCredential')) throw invalid('jsonld: `type` must include VerifiableCredential')
  const issuerField = jsonld.issuer
  const issuer =
    asString(issuerField) ??
    (issuerField !== null && typeof issuerField === 'object' ? asString((issuerField as Record<string, unknown>).id) : undefined)
  if (issuer === undefined) throw invalid('jsonld: `issuer` is missing')
  const subjectField: unknown = Array.isArray(jsonld.credentialSubject)
    ? (jsonld.credentialSubject as unknown[])[0]
    : jsonld.credentialSubject
  if (subjectField === null || typeof subjectField !== 'object') throw invalid('jsonld: `credentialSubject` is missing')
  const issuanceDate = asString(jsonld.issuanceDate) ?? asString(jsonld.validFrom)
  const expirationDate = asString(jsonld.expirationDate) ?? asString(jsonld.validUntil)
  return {
    format: 'JSON-LD',
    encoded: jsonld,
    ...ids(asString(jsonld.id), issuer, asString((subjectField as Record<string, unknown>).id)),
    types,
    ...(issuanceDate !== undefined && { issuanceDate }),
    ...(expirationDate !== undefined && { expirationDate }),
    hash: jsonLdHash(jsonld),
  }
}
