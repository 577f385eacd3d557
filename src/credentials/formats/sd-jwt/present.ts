/**
 * Presenting an SD-JWT VC: the issuer-signed JWT with only the disclosures the chosen claims need (each chosen claim
 * with everything beneath it, and the disclosures of the objects that hold it), followed by a KB-JWT signed by the
 * holder's key — which must be the credential's `cnf.jwk` (by RFC 7638 thumbprint). The holder's signer is given, or
 * asked for once the credential's `cnf.jwk` is known and every input has been checked.
 */
import { forbidden, invalid } from '../../../errors.js'
import type { PublicJwk } from '../../../keys/key-types.js'
import type { KeySigner } from '../../../keys/signer.js'
import { jwkThumbprint } from '../../../keys/thumbprint.js'
import { decodeSdJwt, UnreadableSdJwt } from './decode.js'
import { signKeyBinding } from './key-binding.js'
import { MAX_DISCLOSE_PATHS } from './limits.js'
import { DisclosureMismatch, placeDisclosures, type PlacedDisclosure } from './place-disclosures.js'
import { formatPointer, isArrayIndex, parsePointer } from './pointer.js'

/** Longest `nonce` and `aud` of a KB-JWT, in characters. */
const MAX_KB_VALUE_CHARS = 2048

/** What {@link presentSdJwtVc} presents. */
export interface SdJwtVcPresentInput {
  /** JSON pointers of the claims shown (each with everything beneath it); `[]`: only the always-visible claims. */
  disclose: readonly string[]
  /**
   * The holder's key behind the key port, which must be the credential's `cnf.jwk`; or how to find it from that JWK
   * (asked only after every other input is checked; it throws the 403 of a key the caller may not use).
   */
  holderSigner: KeySigner | ((cnfJwk: PublicJwk) => Promise<KeySigner>)
  /** The verifier's nonce. */
  nonce: string
  /** The verifier (`aud`). */
  aud: string
  /** The KB-JWT's `iat`, seconds. */
  iat: number
}

/**
 * The presentation `<issuer-signed JWT>~<chosen disclosures>~<KB-JWT>` of the SD-JWT VC `compact`.
 * @throws {IdentityError} 422 for a credential that does not read or whose disclosures do not fit it, a presentation
 * given instead of a credential, a credential without `cnf.jwk`, a path not among its claims, bad `nonce`/`aud`/`iat`;
 * 403 when `holderSigner`'s key is not the credential's `cnf.jwk`
 */
export async function presentSdJwtVc(compact: string, input: SdJwtVcPresentInput): Promise<string> {
  for (const name of ['nonce', 'aud'] as const) {
    const value = input[name]
    if (typeof value !== 'string' || value.length === 0 || value.length > MAX_KB_VALUE_CHARS)
      throw invalid(`${name}: a string of 1 to ${MAX_KB_VALUE_CHARS} characters`)
  }
  if (!Number.isSafeInteger(input.iat) || input.iat < 0) throw invalid('iat: a NumericDate (whole seconds since 1970)')
  if (!Array.isArray(input.disclose)) throw invalid('disclose: an array of JSON pointers')
  if (input.disclose.length > MAX_DISCLOSE_PATHS) throw invalid(`disclose: at most ${MAX_DISCLOSE_PATHS} paths`)
  const wanted = input.disclose.map(parsePointer)

  let decoded
  try {
    decoded = await decodeSdJwt(compact)
  } catch (err) {
    throw err instanceof UnreadableSdJwt ? invalid(`sdjwt: ${err.message}`) : err
  }
  if (decoded.kbJwt !== undefined) throw invalid('sdjwt: a credential, not a presentation (it ends with a key binding JWT)')
  let placed
  try {
    placed = placeDisclosures(decoded.payload, decoded.disclosures)
  } catch (err) {
    throw err instanceof DisclosureMismatch ? invalid(`sdjwt: ${err.message}`) : err
  }
  const cnfJwk = holderJwkOf(decoded.payload.cnf)
  for (const path of wanted) {
    if (!hasClaim(placed.claims, path)) throw invalid(`disclose: ${formatPointer(path).slice(0, 80)} is not a claim of the credential`)
  }
  const signer = typeof input.holderSigner === 'function' ? await input.holderSigner(cnfJwk.jwk) : input.holderSigner
  if (cnfJwk.thumbprint !== jwkThumbprint(signer.publicJwk))
    throw forbidden('the presenting key is not the credential’s holder key (cnf.jwk)')
  const chosen = placed.placed.filter((p) => wanted.some((path) => isPrefix(p.path, path) || isPrefix(path, p.path)))
  const presented = [compact.slice(0, compact.indexOf('~')), ...chosen.map(encoded), ''].join('~')
  return presented + (await signKeyBinding(presented, signer, input))
}

const encoded = (p: PlacedDisclosure) => p.disclosure.encode()

/**
 * The credential's holder key (`cnf.jwk`) and its RFC 7638 thumbprint.
 * @throws {IdentityError} 422 without `cnf.jwk`, or when it is no public JWK
 */
function holderJwkOf(cnf: unknown): { jwk: PublicJwk; thumbprint: string } {
  const jwk = (cnf as { jwk?: unknown } | undefined)?.jwk
  if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk))
    throw invalid('sdjwt: the credential names no holder key (cnf.jwk) to bind a presentation to')
  try {
    return { jwk: jwk as PublicJwk, thumbprint: jwkThumbprint(jwk as { kty: string }) }
  } catch {
    throw invalid('sdjwt: the credential’s holder key (cnf.jwk) is not a public JWK')
  }
}

/** Whether `prefix` is a prefix of (or equal to) `path`. */
const isPrefix = (prefix: readonly string[], path: readonly string[]): boolean =>
  prefix.length <= path.length && prefix.every((segment, i) => segment === path[i])

/** Whether `claims` holds a claim at `path`. */
function hasClaim(claims: unknown, path: readonly string[]): boolean {
  let node = claims
  for (const segment of path) {
    if (
      Array.isArray(node) ? !isArrayIndex(segment, node.length) : typeof node !== 'object' || node === null || !Object.hasOwn(node, segment)
    )
      return false
    node = (node as Record<string, unknown>)[segment]
  }
  return path.length > 0
}
