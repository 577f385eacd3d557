/**
 * Reading a VC-JOSE credential (W3C "Securing Verifiable Credentials using JOSE and COSE", §3.1.1): a compact JWS whose
 * protected header says `typ: vc+jwt` and whose payload IS a VCDM 2.0 credential (no `vc` claim). Nothing is verified here.
 */
import { CREDENTIALS_V2_URL } from '../../../proofs/jsonld/index.js'
import { decodeJwt } from '../../../proofs/jwt-verifier.js'

/** The `typ` of a VC-JOSE credential's protected header. */
export const VC_TYP = 'vc+jwt'
/** The `cty` of a VC-JOSE credential's protected header. */
export const VC_CTY = 'vc'

/** A decoded compact JWS: its protected header, its payload, its signing input and its signature (base64url). */
export interface DecodedJws {
  header: Record<string, unknown>
  payload: Record<string, unknown>
  data: string
  signature: string
}

/** The compact JWS decoded, or undefined when it is not one (three base64url parts, header and payload JSON objects). */
export function decodeJws(jws: string): DecodedJws | undefined {
  try {
    return decodeJwt(jws)
  } catch {
    return undefined
  }
}

/**
 * Why `decoded` is not a VC-JOSE credential (`typ` not `vc+jwt`, `cty` other than `vc`, a VC-JWT's `vc` claim, a payload
 * that is not a VCDM 2.0 credential), or undefined. The signature and the dates are not looked at.
 */
export function shapeError({ header, payload }: Pick<DecodedJws, 'header' | 'payload'>): string | undefined {
  if (header.typ !== VC_TYP) return `the protected header's typ must be ${VC_TYP}`
  if (header.cty !== undefined && header.cty !== VC_CTY) return `the protected header's cty must be ${VC_CTY}`
  if (payload.vc !== undefined) return 'the payload is the credential itself: a `vc` claim is a VC-JWT’s (format JWT)'
  const context = payload['@context']
  if ((Array.isArray(context) ? context[0] : context) !== CREDENTIALS_V2_URL)
    return `the credential's @context must begin with ${CREDENTIALS_V2_URL} (VC Data Model 2.0)`
  const types = payload.type
  if (!(types === 'VerifiableCredential' || (Array.isArray(types) && types.includes('VerifiableCredential'))))
    return 'the credential’s type must include VerifiableCredential'
  if (issuerOf(payload) === undefined) return 'the credential needs an issuer (a URL, or an object with its id)'
  for (const field of ['validFrom', 'validUntil'] as const)
    if (payload[field] !== undefined && Number.isNaN(timeOf(payload[field]))) return `${field}: not a date-time`
  return undefined
}

/** The issuer a VCDM 2.0 credential names (`issuer`, or `issuer.id`), or undefined. */
export function issuerOf(credential: Record<string, unknown>): string | undefined {
  const issuer = credential.issuer
  const id = typeof issuer === 'object' && issuer !== null && !Array.isArray(issuer) ? (issuer as { id?: unknown }).id : issuer
  return typeof id === 'string' && id.length > 0 ? id : undefined
}

/** ms of an XML Schema date-time (NaN when it is not a string the service reads as one). */
export function timeOf(value: unknown): number {
  return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(value)
    ? Date.parse(value)
    : NaN
}
