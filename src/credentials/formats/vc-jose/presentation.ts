/**
 * VC-JOSE presentations (W3C "Securing Verifiable Credentials using JOSE and COSE", §3.2): a VCDM 2.0
 * `VerifiablePresentation` as the payload of a compact JWS (`typ: vp+jwt`, `cty: vp`, `kid` the holder's DID URL) whose
 * `verifiableCredential` holds each VC-JOSE credential as an `EnvelopedVerifiableCredential`
 * (`id: data:application/vc+jwt,<jws>`). The verifier's binding rides as JWT claims (`nonce`, `aud`, `iat`, `nbf`, `exp`).
 */
import type { Resolvable } from 'did-resolver'
import type { KeySigner } from '../../../keys/signer.js'
import { verifyJwsByDid, type JwsByDidOutcome } from '../../../proofs/jws-by-did.js'
import { jwtIssuerOf } from '../../../proofs/jwt-signer.js'
import { CREDENTIALS_V2_URL } from '../../../proofs/jsonld/index.js'
import { decodeJws } from './decode.js'

/** The `typ` of a VC-JOSE presentation's protected header. */
export const VP_TYP = 'vp+jwt'
/** The `cty` of a VC-JOSE presentation's protected header. */
export const VP_CTY = 'vp'

/** The `id` prefix of an enveloped VC-JOSE credential. */
const ENVELOPED_PREFIX = 'data:application/vc+jwt,'

const base64url = (value: unknown): string => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url')

/** What a VC-JOSE presentation says besides its credentials: the verifier's binding and its times (JWT claims, seconds). */
export interface EnvelopedPresentationClaims {
  nonce?: string
  aud?: string | string[]
  iat: number
  nbf: number
  exp?: number
}

/** The presentation of VC-JOSE credentials `credentials` by `holder`, signed through the holder wallet's {@link KeySigner}. */
export async function signEnvelopedPresentation(
  holder: string,
  credentials: readonly string[],
  claims: EnvelopedPresentationClaims,
  signer: KeySigner,
  options: { resolver?: Resolvable } = {},
): Promise<string> {
  const { alg, kid } = await jwtIssuerOf(holder, signer, { resolver: options.resolver })
  const header = { alg, typ: VP_TYP, cty: VP_CTY, ...(kid !== undefined && { kid }) }
  const payload = {
    '@context': [CREDENTIALS_V2_URL],
    type: ['VerifiablePresentation'],
    holder,
    verifiableCredential: credentials.map((jws) => ({
      '@context': CREDENTIALS_V2_URL,
      type: 'EnvelopedVerifiableCredential',
      id: `${ENVELOPED_PREFIX}${jws}`,
    })),
    ...claims,
  }
  const data = `${base64url(header)}.${base64url(payload)}`
  const signature = await signer.sign(alg, new TextEncoder().encode(data))
  return `${data}.${Buffer.from(signature).toString('base64url')}`
}

/** Whether `jwt` says it is a VC-JOSE presentation (`typ: vp+jwt`); nothing else is looked at. */
export function isEnvelopedPresentation(jwt: string): boolean {
  return decodeJws(jwt)?.header.typ === VP_TYP
}

/** A VC-JOSE presentation read (nothing verified): its holder, its payload (the JWT claims among it), its credentials. */
export type ReadPresentation =
  | { ok: true; holder: string; payload: Record<string, unknown>; credentials: string[] }
  | { ok: false; holder: string | null; error: string }

/** Reads a VC-JOSE presentation of at most `maxCredentials` credentials; why it is not one otherwise. */
export function readEnvelopedPresentation(jwt: string, maxCredentials: number): ReadPresentation {
  const decoded = decodeJws(jwt)
  if (decoded === undefined) return { ok: false, holder: null, error: 'not a compact JWS' }
  const { header, payload } = decoded
  const holder = typeof payload.holder === 'string' ? payload.holder : null
  const refuse = (error: string): ReadPresentation => ({ ok: false, holder, error })
  if (header.typ !== VP_TYP) return refuse(`the protected header's typ must be ${VP_TYP}`)
  if (header.cty !== undefined && header.cty !== VP_CTY) return refuse(`the protected header's cty must be ${VP_CTY}`)
  if (payload.vp !== undefined) return refuse('the payload is the presentation itself: a `vp` claim is a VP-JWT’s (format JWT)')
  const context = payload['@context']
  if ((Array.isArray(context) ? context[0] : context) !== CREDENTIALS_V2_URL)
    return refuse(`the presentation's @context must begin with ${CREDENTIALS_V2_URL}`)
  if (![payload.type].flat().includes('VerifiablePresentation')) return refuse('type: must include VerifiablePresentation')
  if (holder === null) return refuse('holder: missing')
  if (payload.iss !== undefined && payload.iss !== holder) return refuse('iss is not the presentation’s holder')
  const entries = payload.verifiableCredential === undefined ? [] : [payload.verifiableCredential].flat()
  if (entries.length > maxCredentials) return refuse(`more than ${maxCredentials} credentials`)
  const credentials: string[] = []
  for (const [i, entry] of entries.entries()) {
    const { type, id } = (typeof entry === 'object' && entry !== null ? entry : {}) as { type?: unknown; id?: unknown }
    if (type !== 'EnvelopedVerifiableCredential' || typeof id !== 'string' || !id.startsWith(ENVELOPED_PREFIX))
      return refuse(`verifiableCredential ${i}: must be an EnvelopedVerifiableCredential whose id is ${ENVELOPED_PREFIX}<jws>`)
    credentials.push(id.slice(ENVELOPED_PREFIX.length))
  }
  return { ok: true, holder, payload, credentials }
}

/** Whether a VC-JOSE presentation is signed by an `authentication` key of its holder that `kid` names. */
export async function envelopedPresentationSignature(jwt: string, holder: string, resolver: Resolvable): Promise<JwsByDidOutcome> {
  const decoded = decodeJws(jwt)
  if (decoded === undefined) return { verified: false, reason: 'signature', error: 'not a compact JWS' }
  const signature = new Uint8Array(Buffer.from(decoded.signature, 'base64url'))
  return verifyJwsByDid(
    { alg: decoded.header.alg, kid: decoded.header.kid, issuer: holder, data: decoded.data, signature },
    { resolver, purpose: 'authentication' },
  )
}
