/**
 * Verifying an SD-JWT VC, and with `kb` a presentation of one, into named checks: never a throw for a bad credential.
 * The issuer's signature through DID resolution of `iss`/`kid`, the `typ`, the algorithm (`none` and unknown ones
 * refused), `_sd_alg`, every disclosure placed by exactly one digest (`place-disclosures.ts`), `vct`, the dates, and the
 * key binding (`key-binding.ts`). `disclosed` is given only for a credential that verified.
 *
 * With `issuerJwk` in place of `resolver`, the issuer's signature is checked with that public key and `iss` may be any
 * string: for issuers that are no DID (the specifications' examples, the test vectors). The service and the `SD-JWT`
 * format always resolve the issuer DID; a credential verified with a given key names no `signer`.
 */
import type { Resolvable } from 'did-resolver'
import { verifyJwsByDid } from '../../../proofs/jws-by-did.js'
import { keyOfJwk, verifyWithKey } from '../../../keys/public-key-objects.js'
import { keyTypeOfAlgorithm, refusedAlgorithm } from './algorithms.js'
import { decodeSdJwt, UnreadableSdJwt, type DecodedSdJwt } from './decode.js'
import { SD_JWT_VC_TYP } from './issue.js'
import { checkKeyBinding, type KeyBindingCheck } from './key-binding.js'
import { DEFAULT_KB_MAX_AGE_SECONDS, SKEW_SECONDS } from './limits.js'
import { DisclosureMismatch, placeDisclosures } from './place-disclosures.js'

/** The claims an SD-JWT VC never makes selectively disclosable (draft-ietf-oauth-sd-jwt-vc §3.2.2). */
const NEVER_DISCLOSED: ReadonlySet<string> = new Set(['iss', 'nbf', 'exp', 'cnf', 'vct', 'vct#integrity', 'status'])

/** The `typ` values accepted: `dc+sd-jwt`, and `vc+sd-jwt`, which the draft's earlier versions named. */
const ACCEPTED_TYPS: ReadonlySet<unknown> = new Set([SD_JWT_VC_TYP, 'vc+sd-jwt'])

/** One named check of an SD-JWT VC and, when it failed, why (the message names no disclosure or salt). */
export interface SdJwtCheck {
  check:
    'format' | 'bounds' | 'typ' | 'alg' | 'signature' | 'sd_alg' | 'disclosures' | 'vct' | 'iat' | 'nbf' | 'exp' | KeyBindingCheck['check']
  verified: boolean
  error?: string
}

/** What {@link verifySdJwtVc} found. */
export interface SdJwtVcVerification {
  verified: boolean
  checks: SdJwtCheck[]
  /** The first failed check's error, when not verified. */
  error?: string
  /** The issuer DID (`iss`) the credential names, or null. */
  issuer: string | null
  /** The verification method that signed, when the signature verified. */
  signer?: string
  /** The credential type (`vct`). */
  vct?: string
  /** The holder key binding (`cnf`) of the issuer-signed payload. */
  cnf?: Record<string, unknown>
  /** When verified: the payload with the disclosures applied and `_sd`, `_sd_alg`, `cnf` removed. */
  disclosed?: Record<string, unknown>
}

/** How {@link verifySdJwtVc} verifies: the issuer's key through DID resolution (what the service does), or given. */
export type SdJwtVcVerifyOptions = SdJwtVcVerifyCommon &
  ({ resolver: Resolvable; issuerJwk?: never } | { issuerJwk: unknown; resolver?: never })

/** What both ways of verifying take. */
export interface SdJwtVcVerifyCommon {
  /** Current time, ms (default: the clock's). */
  now?: number
  /** Clock skew allowed for the credential's and the KB-JWT's dates, seconds (default 60). */
  skewSeconds?: number
  /**
   * `sd-jwt`: verify as a plain SD-JWT (RFC 9901), without the SD-JWT VC checks (`typ`, `vct`, claims an SD-JWT VC never
   * discloses selectively) — for the SD-JWT specification's own examples. Default `sd-jwt-vc`.
   */
  profile?: 'sd-jwt-vc' | 'sd-jwt'
  /** Verify a presentation: its KB-JWT must be signed by `cnf.jwk`, over this SD-JWT, for this nonce and audience. */
  kb?: { nonce: string; aud: string; maxAgeSeconds?: number }
}

/** Verifies the compact SD-JWT VC `compact` (a presentation when `options.kb` is given). */
export async function verifySdJwtVc(compact: unknown, options: SdJwtVcVerifyOptions): Promise<SdJwtVcVerification> {
  let decoded: DecodedSdJwt
  try {
    decoded = await decodeSdJwt(compact)
  } catch (err) {
    if (!(err instanceof UnreadableSdJwt)) throw err
    return outcome(null, [{ check: err.check, verified: false, error: err.message }])
  }
  const { header, payload } = decoded
  const now = Math.floor((options.now ?? Date.now()) / 1000)
  const skew = options.skewSeconds ?? SKEW_SECONDS
  const issuer = typeof payload.iss === 'string' ? payload.iss : null
  const checks: SdJwtCheck[] = []
  const check = (name: SdJwtCheck['check'], ok: boolean, error: string) =>
    checks.push(ok ? { check: name, verified: true } : { check: name, verified: false, error })

  const vc = options.profile !== 'sd-jwt'
  if (vc) check('typ', ACCEPTED_TYPS.has(header.typ), `typ is not ${SD_JWT_VC_TYP}`)
  const keyType = keyTypeOfAlgorithm(header.alg)
  check('alg', keyType !== undefined, refusedAlgorithm(header.alg))
  let signer: string | undefined
  const { resolver } = options
  if (keyType !== undefined && resolver === undefined) {
    const issuerKey = keyOfJwk(options.issuerJwk)
    const signed = issuerKey?.keyType === keyType && verifyWithKey(keyType, issuerKey.key, decoded.data, decoded.signature)
    check('signature', signed, 'the signature is not by the issuer key given')
  } else if (keyType !== undefined && resolver !== undefined) {
    // A missing `iss` is an issuer that is not a DID (null), not one to take from `kid`.
    const jws = { alg: header.alg, kid: header.kid, data: decoded.data, signature: decoded.signature, issuer: payload.iss ?? null }
    const signature = await verifyJwsByDid(jws, { resolver })
    if (signature.verified) signer = signature.method
    check('signature', signature.verified, signature.verified ? '' : signature.error)
  }
  check('sd_alg', true, '')
  let claims: Record<string, unknown> | undefined
  try {
    const placed = placeDisclosures(payload, decoded.disclosures)
    const plain = vc ? placed.placed.find(({ path }) => path.length === 1 && NEVER_DISCLOSED.has(path[0])) : undefined
    if (plain === undefined) claims = placed.claims
    check('disclosures', plain === undefined, `a disclosure makes ${plain?.path[0]} selectively disclosable, which an SD-JWT VC never does`)
  } catch (err) {
    if (!(err instanceof DisclosureMismatch)) throw err
    check('disclosures', false, err.message)
  }
  const vct = payload.vct
  if (vc) check('vct', typeof vct === 'string' && vct.length > 0, 'vct is missing')
  checkDates(payload, now, skew, check)
  if (options.kb) {
    const expected = { nonce: options.kb.nonce, aud: options.kb.aud, maxAgeSeconds: options.kb.maxAgeSeconds ?? DEFAULT_KB_MAX_AGE_SECONDS }
    checks.push(...checkKeyBinding(decoded.kbJwt, decoded.presented, payload.cnf, expected, now, skew))
  }
  const result = outcome(issuer, checks)
  if (signer !== undefined) result.signer = signer
  if (typeof vct === 'string') result.vct = vct
  if (isObject(payload.cnf)) result.cnf = payload.cnf
  if (result.verified && claims) result.disclosed = disclosedClaims(claims)
  return result
}

/** `iat` and `nbf` not in the future, `exp` not passed (each within the skew); each a number when present. */
function checkDates(
  payload: Record<string, unknown>,
  now: number,
  skew: number,
  check: (name: 'iat' | 'nbf' | 'exp', ok: boolean, error: string) => void,
): void {
  const { iat, nbf, exp } = payload
  if (iat !== undefined) check('iat', typeof iat === 'number' && iat <= now + skew, 'iat is in the future')
  if (nbf !== undefined) check('nbf', typeof nbf === 'number' && nbf <= now + skew, 'the credential is not valid yet (nbf)')
  if (exp !== undefined) check('exp', typeof exp === 'number' && exp > now - skew, 'the credential has expired (exp)')
}

/** The claims a verifier sees: `_sd_alg` and `cnf` removed (`_sd` is gone already). */
function disclosedClaims(claims: Record<string, unknown>): Record<string, unknown> {
  const { _sd_alg: _alg, cnf: _cnf, ...disclosed } = claims
  return disclosed
}

function outcome(issuer: string | null, checks: SdJwtCheck[]): SdJwtVcVerification {
  const failed = checks.find((c) => !c.verified)
  return { verified: failed === undefined, checks, ...(failed && { error: failed.error }), issuer }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)
