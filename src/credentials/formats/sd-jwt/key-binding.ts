/**
 * Key binding (RFC 9901 §4.3): the KB-JWT a holder appends to a presentation — `typ: kb+jwt`, `iat`, `aud`, `nonce`,
 * `sd_hash` over the presented SD-JWT — signed by the key the credential's `cnf.jwk` names, and its checks at verify.
 * The library checks neither `aud` nor the age of `iat`: both are checked here.
 */
import { KBJwt } from '@sd-jwt/core'
import type { KeySigner } from '../../../keys/signer.js'
import { decodeJwt, JwtRejected } from '../../../proofs/jwt-verifier.js'
import { keyOfJwk, verifyWithKey } from '../../../keys/public-key-objects.js'
import { keyTypeOfAlgorithm, refusedAlgorithm, SD_JWT_ALGORITHM_OF } from './algorithms.js'
import { decodeSdJwt, UnreadableSdJwt } from './decode.js'
import { sha256Base64url } from './hashing.js'
import { sdJwtSigner } from './jws-signer.js'
import { DEFAULT_KB_MAX_AGE_SECONDS, SKEW_SECONDS } from './limits.js'

/** The `typ` of a KB-JWT. */
export const KB_JWT_TYP = 'kb+jwt'

/** What the verifier expects of a KB-JWT. */
export interface KeyBindingExpectation {
  /** The verifier's nonce for this presentation. */
  nonce: string
  /** The verifier's identifier: the KB-JWT's `aud` must be exactly it. */
  aud: string
  /** Oldest KB-JWT accepted, seconds (`iat` ≥ now − maxAgeSeconds − skew). Default `DEFAULT_KB_MAX_AGE_SECONDS`. */
  maxAgeSeconds: number
}

/** One check of a KB-JWT: its name and, when it failed, why. */
export interface KeyBindingCheck {
  check: 'kb' | 'kbSignature' | 'sd_hash' | 'nonce' | 'aud' | 'kbIat'
  verified: boolean
  error?: string
}

/** The KB-JWT of `presented` (the SD-JWT up to and including its last `~`), signed by `holder`. */
export async function signKeyBinding(
  presented: string,
  holder: KeySigner,
  claims: { nonce: string; aud: string; iat: number },
): Promise<string> {
  const alg = SD_JWT_ALGORITHM_OF[holder.keyType]
  const kb = new KBJwt({
    header: { typ: KB_JWT_TYP, alg },
    payload: { iat: claims.iat, aud: claims.aud, nonce: claims.nonce, sd_hash: sha256Base64url(presented) },
  })
  return kb.sign(sdJwtSigner(holder, alg))
}

/**
 * The checks of `kbJwt` against the holder key `cnf` and the presented SD-JWT `presented` (up to its last `~`), at
 * `now` (seconds), within `skew` seconds. A KB-JWT that does not parse, names another `typ` or an algorithm not accepted fails `kb` alone.
 */
export function checkKeyBinding(
  kbJwt: string | undefined,
  presented: string,
  cnf: unknown,
  expected: KeyBindingExpectation,
  now: number,
  skew: number,
): KeyBindingCheck[] {
  const failed = (error: string): KeyBindingCheck[] => [{ check: 'kb', verified: false, error }]
  if (kbJwt === undefined || kbJwt === '') return failed('the presentation has no key binding JWT')
  let jwt
  try {
    jwt = decodeJwt(kbJwt)
  } catch (err) {
    return failed(err instanceof JwtRejected ? `key binding JWT: ${err.reason}` : 'key binding JWT: malformed')
  }
  const { header, payload } = jwt
  if (header.typ !== KB_JWT_TYP) return failed(`key binding JWT: typ is not ${KB_JWT_TYP}`)
  const keyType = keyTypeOfAlgorithm(header.alg)
  if (keyType === undefined) return failed(`key binding JWT: ${refusedAlgorithm(header.alg)}`)
  const holder = keyOfJwk((cnf as { jwk?: unknown } | undefined)?.jwk)
  if (holder === undefined) return failed('the credential names no holder key (cnf.jwk) of a supported type')
  const checks: KeyBindingCheck[] = [{ check: 'kb', verified: true }]
  const check = (name: KeyBindingCheck['check'], ok: boolean, error: string) =>
    checks.push(ok ? { check: name, verified: true } : { check: name, verified: false, error })
  check(
    'kbSignature',
    holder.keyType === keyType && verifyWithKey(keyType, holder.key, jwt.data, Buffer.from(jwt.signature, 'base64url')),
    'the key binding JWT is not signed by the holder key (cnf.jwk)',
  )
  check('sd_hash', payload.sd_hash === sha256Base64url(presented), 'sd_hash is not the hash of the presented SD-JWT')
  check('nonce', typeof payload.nonce === 'string' && payload.nonce === expected.nonce, 'nonce is not the expected nonce')
  check('aud', typeof payload.aud === 'string' && payload.aud === expected.aud, 'aud is not the expected audience')
  const iat = payload.iat
  check(
    'kbIat',
    typeof iat === 'number' && iat <= now + skew && iat >= now - expected.maxAgeSeconds - skew,
    `iat is not within the last ${expected.maxAgeSeconds} seconds`,
  )
  return checks
}

/**
 * The key-binding checks of the presentation `compact` (an SD-JWT ending with a KB-JWT) at `now` (ms): those of
 * {@link checkKeyBinding} against its own `cnf.jwk`, with the default window (`iat` within the last
 * `DEFAULT_KB_MAX_AGE_SECONDS`, 60 s skew either way) unless `maxAgeSeconds` says otherwise. A presentation that does not
 * read fails `kb` alone. Never throws for a bad presentation; the credential itself is checked by `verify`.
 */
export async function keyBindingChecks(
  compact: unknown,
  expected: { nonce: string; aud: string; maxAgeSeconds?: number },
  now: number,
): Promise<KeyBindingCheck[]> {
  let decoded
  try {
    decoded = await decodeSdJwt(compact)
  } catch (err) {
    if (!(err instanceof UnreadableSdJwt)) throw err
    return [{ check: 'kb', verified: false, error: `the presentation does not read: ${err.message}` }]
  }
  const expectation = { nonce: expected.nonce, aud: expected.aud, maxAgeSeconds: expected.maxAgeSeconds ?? DEFAULT_KB_MAX_AGE_SECONDS }
  return checkKeyBinding(decoded.kbJwt, decoded.presented, decoded.payload.cnf, expectation, Math.floor(now / 1000), SKEW_SECONDS)
}
