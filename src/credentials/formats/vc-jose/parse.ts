/** The index fields of a VC-JOSE credential (nothing verified). */
import { invalid } from '../../../errors.js'
import { checkRequestValue } from '../../../operations/parse.js'
import { sha256 } from '../../content-hash.js'
import { canonicalJwt } from '../jwt/content-hash.js'
import { asString, ids, typesOf } from '../index-fields.js'
import type { ParsedCredential } from '../port.js'
import { decodeJws, issuerOf, shapeError, timeOf } from './decode.js'

/** The content hash of a VC-JOSE credential: the same up to the low-S form of its ECDSA signature. */
export const vcJoseHash = (jws: string): string => sha256(`vc-jose\n${canonicalJwt(jws)}`)

const isoOf = (value: unknown): string | undefined => (Number.isNaN(timeOf(value)) ? undefined : new Date(timeOf(value)).toISOString())

/** Parses a VC-JOSE credential: a compact JWS, `typ: vc+jwt`, its payload a VCDM 2.0 credential (422 naming why not). */
export function parseVcJose(jws: string, maxDepth: number): ParsedCredential {
  const decoded = decodeJws(jws)
  if (decoded === undefined) throw invalid('jwt: does not decode as a compact JWS')
  // The request rule, inside the base64url the request check cannot see: every string the record is indexed by comes from here.
  checkRequestValue(decoded.payload, maxDepth, 'jwt: payload')
  const refused = shapeError(decoded)
  if (refused !== undefined) throw invalid(`jwt: not a VC-JOSE credential: ${refused.error}`)
  const { payload } = decoded
  const subject = (payload.credentialSubject as { id?: unknown } | undefined)?.id
  const issuanceDate = isoOf(payload.validFrom)
  const expirationDate = isoOf(payload.validUntil)
  return {
    format: 'VC-JOSE',
    encoded: jws,
    ...ids(asString(payload.id), issuerOf(payload), asString(subject)),
    types: typesOf(payload.type),
    ...(issuanceDate !== undefined && { issuanceDate }),
    ...(expirationDate !== undefined && { expirationDate }),
    hash: vcJoseHash(jws),
  }
}
