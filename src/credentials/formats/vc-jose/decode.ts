/**
 * Reading a VC-JOSE credential (W3C "Securing Verifiable Credentials using JOSE and COSE", §3.1.1): a compact JWS whose
 * protected header says `typ: vc+jwt` and whose payload IS a VCDM 2.0 credential (no `vc` claim). Nothing is verified here.
 */
import { CREDENTIALS_V2_URL } from '../../../proofs/jsonld/index.js'
import { JWS_BY_DID_ALGORITHMS } from '../../../proofs/jws-by-did.js'

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

const BASE64URL = /^[A-Za-z0-9_-]*$/

/** A base64url part as a JSON object, or undefined. */
function jsonObjectOf(part: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'))
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}

/**
 * The compact JWS decoded, or undefined when it is not one: three base64url parts, the header and payload JSON objects,
 * the signature possibly empty (an unsecured `alg: none` JWS is decoded, to be refused by name).
 */
export function decodeJws(jws: string): DecodedJws | undefined {
  const parts = jws.split('.')
  if (parts.length !== 3 || !parts.every((p) => BASE64URL.test(p)) || parts[0] === '' || parts[1] === '') return undefined
  const header = jsonObjectOf(parts[0])
  const payload = header === undefined ? undefined : jsonObjectOf(parts[1])
  if (header === undefined || payload === undefined) return undefined
  return { header, payload, data: `${parts[0]}.${parts[1]}`, signature: parts[2] }
}

/** Why a JWS is not a VC-JOSE credential: the check that names it (`typ`, `alg`, `format`) and what is wrong. */
export interface ShapeRefusal {
  check: 'typ' | 'alg' | 'format'
  error: string
}

/**
 * Why `decoded` is not a VC-JOSE credential (`typ` not `vc+jwt`, `cty` other than `vc`, an `alg` outside ES256, ES256K,
 * EdDSA — `none` and MACs included —, a VC-JWT's `vc` claim, a payload that is not a VCDM 2.0 credential), or undefined.
 * The signature and whether the dates have come or passed are not looked at.
 */
export function shapeError({ header, payload }: Pick<DecodedJws, 'header' | 'payload'>): ShapeRefusal | undefined {
  const format = (error: string): ShapeRefusal => ({ check: 'format', error })
  if (header.typ !== VC_TYP) return { check: 'typ', error: `the protected header's typ must be ${VC_TYP}` }
  if (typeof header.alg !== 'string' || !(JWS_BY_DID_ALGORITHMS as readonly string[]).includes(header.alg))
    return { check: 'alg', error: `the protected header's alg must be one of ${JWS_BY_DID_ALGORITHMS.join(', ')}` }
  if (header.cty !== undefined && header.cty !== VC_CTY) return format(`the protected header's cty must be ${VC_CTY}`)
  if (payload.vc !== undefined) return format('the payload is the credential itself: a `vc` claim is a VC-JWT’s (format JWT)')
  const context = payload['@context']
  if ((Array.isArray(context) ? context[0] : context) !== CREDENTIALS_V2_URL)
    return format(`the credential's @context must begin with ${CREDENTIALS_V2_URL} (VC Data Model 2.0)`)
  const types = payload.type
  if (!(types === 'VerifiableCredential' || (Array.isArray(types) && types.includes('VerifiableCredential'))))
    return format('the credential’s type must include VerifiableCredential')
  if (issuerOf(payload) === undefined) return format('the credential needs an issuer (a URL, or an object with its id)')
  for (const field of ['validFrom', 'validUntil'] as const)
    if (payload[field] !== undefined && Number.isNaN(timeOf(payload[field]))) return format(`${field}: not a date-time`)
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
