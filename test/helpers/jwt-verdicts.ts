/**
 * Verdicts of JWT verifiers for differential tests: `accepted`, or the class of the reason a
 * token was rejected, so two verifiers agree only when they reject for the same reason. A throw
 * that is not one of the rejections a verifier documents (a crash: a TypeError, a library
 * failure) is not a verdict: it fails the test instead of reading as a rejection.
 */
import { JwtRejected } from '../../src/proofs/jwt-verifier.js'

export type JwtVerdict = 'accepted' | 'signature' | 'expired' | 'not yet valid' | 'audience' | 'issuer' | 'malformed' | 'schema'

type Reasons = Array<[RegExp, JwtVerdict]>

/** did-jwt's and did-jwt-vc's error messages (`<code>: <text>`), by class. */
const DID_JWT_REASONS: Reasons = [
  [/^invalid_signature: /, 'signature'],
  // No key of the token's algorithm in the issuer's document (did-jwt's JWT_ERROR.NO_SUITABLE_KEYS): nothing signed it.
  [/^no_suitable_keys: /, 'signature'],
  // A tampered ES256K-R signature: did-jwt's recovery fails in @noble/curves before any match.
  [/^bad point: is not on curve/, 'signature'],
  [/^invalid_jwt: JWT has expired/, 'expired'],
  [/^invalid_jwt: JWT not valid (before nbf|yet)/, 'not yet valid'],
  [/^invalid_config: JWT audience does not match/, 'audience'],
  [/^resolver_error: /, 'issuer'],
  [/^invalid_argument: /, 'malformed'],
  [/^schema_error: /, 'schema'],
]

/** didvault's `JwtRejected` reasons, by class. */
const OUR_REASONS: Reasons = [
  [/^signature does not match the issuer DID$/, 'signature'],
  [/^expired$/, 'expired'],
  [/^not yet valid \((nbf|iat in the future)\)$/, 'not yet valid'],
  [/^audience does not match this service$/, 'audience'],
  [/^(issuer DID could not be resolved|issuer \(iss\) must be a DID without path, query or fragment)$/, 'issuer'],
  [/^malformed token$/, 'malformed'],
]

function classify(message: string, reasons: Reasons): JwtVerdict | undefined {
  return reasons.find(([pattern]) => pattern.test(message))?.[1]
}

function unexpected(who: string, err: unknown): Error {
  const what = err instanceof Error ? `${err.name}: ${err.message}` : String(err)
  return new Error(`${who} threw something that is not a rejection it documents: ${what}`, { cause: err })
}

/** A did-jwt-vc payload check's failure (its `validateCredentialPayload` throws TypeErrors). */
const isSchemaError = (err: unknown) => err instanceof TypeError && /^schema_error: /.test(err.message)

/** The verdict of did-jwt (or did-jwt-vc) on a verification that settles as `run` does. */
export async function didJwtVerdict(run: () => Promise<unknown>): Promise<JwtVerdict> {
  try {
    await run()
    return 'accepted'
  } catch (err) {
    const verdict = err instanceof Error ? classify(err.message, DID_JWT_REASONS) : undefined
    if (!verdict) throw unexpected('did-jwt', err)
    return verdict
  }
}

/**
 * The verdict of didvault's verifier: its `JwtRejected` reasons, and — where a path runs
 * did-jwt-vc's payload checks after it — did-jwt-vc's `schema_error`s.
 */
export async function ourVerdict(run: () => Promise<unknown>): Promise<JwtVerdict> {
  try {
    await run()
    return 'accepted'
  } catch (err) {
    const verdict = err instanceof JwtRejected ? classify(err.reason, OUR_REASONS) : isSchemaError(err) ? 'schema' : undefined
    if (!verdict) throw unexpected('didvault', err)
    return verdict
  }
}
