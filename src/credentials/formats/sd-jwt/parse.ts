/**
 * What a store needs of an SD-JWT VC: its parts (the issuer-signed JWT and its disclosures, which the store seals), its
 * index fields — read only from the always-visible claims of the issuer-signed payload, never from a disclosure — and
 * its content hash (the issuer-signed JWT in canonical form and the sorted disclosures: a copy with another disclosure
 * set is another record). Nothing is verified here.
 */
import { invalid } from '../../../errors.js'
import { sha256 } from '../../content-hash.js'
import { canonicalJwt } from '../jwt/content-hash.js'
import { decodeSdJwt, UnreadableSdJwt } from './decode.js'
import { DisclosureMismatch, placeDisclosures } from './place-disclosures.js'

/** An SD-JWT VC's parts and index fields (NumericDate seconds); a claim made disclosable is not among them. */
export interface ParsedSdJwtVc {
  /** The issuer-signed JWT. */
  issuerSigned: string
  /** The encoded disclosures, in the credential's order. */
  disclosures: string[]
  issuer: string | null
  vct: string | null
  /** `sub`, when always visible. */
  subject?: string
  iat?: number
  nbf?: number
  exp?: number
  /** The `status` claim (`status_list { idx, uri }`). */
  status?: Record<string, unknown>
}

/**
 * The parts and index fields of the SD-JWT VC `compact`.
 * @throws {IdentityError} 422 for input that is no SD-JWT VC within the bounds, disclosures that do not fit it, or a
 * presentation (with a KB-JWT) instead of a credential
 */
export async function parseSdJwtVc(compact: unknown): Promise<ParsedSdJwtVc> {
  let decoded
  try {
    decoded = await decodeSdJwt(compact)
    placeDisclosures(decoded.payload, decoded.disclosures)
  } catch (err) {
    if (err instanceof UnreadableSdJwt || err instanceof DisclosureMismatch) throw invalid(`sdjwt: ${err.message}`)
    throw err
  }
  if (decoded.kbJwt !== undefined) throw invalid('sdjwt: a credential, not a presentation (it ends with a key binding JWT)')
  const { payload } = decoded
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined)
  const date = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined)
  const status = payload.status
  return {
    issuerSigned: (compact as string).slice(0, (compact as string).indexOf('~')),
    disclosures: decoded.disclosures.map((d) => d.encode()),
    issuer: text(payload.iss) ?? null,
    vct: text(payload.vct) ?? null,
    ...defined({ subject: text(payload.sub), iat: date(payload.iat), nbf: date(payload.nbf), exp: date(payload.exp) }),
    ...(typeof status === 'object' && status !== null && !Array.isArray(status) && { status: status as Record<string, unknown> }),
  }
}

/** The content hash (SHA-256, hex) of an SD-JWT VC: its issuer-signed JWT in canonical (low-S) form and its sorted disclosures. */
export const sdJwtVcContentHash = ({ issuerSigned, disclosures }: Pick<ParsedSdJwtVc, 'issuerSigned' | 'disclosures'>): string =>
  sha256(`sd-jwt\n${canonicalJwt(issuerSigned)}\n${[...disclosures].sort().join('~')}`)

const defined = <T extends Record<string, unknown>>(fields: T): Partial<T> =>
  Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Partial<T>
