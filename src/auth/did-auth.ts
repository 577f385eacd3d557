/**
 * DID-auth tokens (`x-did-auth`, and the Access Token JWT form of `Authorization`): JWTs
 * signed by a key that controls the issuer DID, verified with did-jwt against the service's
 * resolver. What verification checks: signature by the DID's owner or a valid delegate,
 * `exp` in the future, `nbf`/`iat` not in the future (60 s skew), and `aud` equal to the
 * service's audience when the token names one.
 */
import { verifyJWT } from 'did-jwt'
import type { Resolvable } from 'did-resolver'
import { unauthenticated } from '../errors.js'
import { normalizeDid } from '../did/ethr.js'

export interface DidAuthOptions {
  resolver: Resolvable
  audience: string
  /** Clock skew allowed for nbf/iat/exp, seconds. */
  skewSeconds?: number
  /** Current time, ms (tests). */
  now?: () => number
}

/** Longest token accepted (bytes); larger ones are rejected before parsing. */
const MAX_TOKEN = 8 * 1024
/** Most tokens one header may carry. */
const MAX_TOKENS = 10

/** Verifies one token; resolves to its issuer DID or rejects with 403 UNAUTHENTICATED. */
export async function verifyDidAuthToken(token: string, options: DidAuthOptions): Promise<string> {
  if (token.length > MAX_TOKEN) throw unauthenticated('DID-auth token too large')
  try {
    const verified = await verifyJWT(token, {
      resolver: options.resolver,
      audience: options.audience,
      skewTime: options.skewSeconds ?? 60,
      policies: { now: Math.floor((options.now?.() ?? Date.now()) / 1000) },
    })
    if (!verified.payload.exp) throw new Error('token has no expiry (exp)')
    return normalizeDid(verified.issuer)
  } catch (err) {
    throw unauthenticated(`invalid DID-auth token: ${reason(err)}`)
  }
}

/** Verifies a header that may hold several comma-separated tokens; returns the distinct issuer DIDs. */
export async function verifyDidAuthHeader(header: string | undefined, options: DidAuthOptions): Promise<string[]> {
  const tokens = (header ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean)
  if (tokens.length === 0) throw unauthenticated('missing x-did-auth header (DID Auth Token)')
  if (tokens.length > MAX_TOKENS) throw unauthenticated(`at most ${MAX_TOKENS} DID-auth tokens per request`)
  const dids = await Promise.all(tokens.map((t) => verifyDidAuthToken(t, options)))
  return [...new Set(dids)]
}

/** A short, secret-free reason from did-jwt's error messages ("invalid_jwt: JWT has expired: exp: …"). */
function reason(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err)
  const known: Array<[RegExp, string]> = [
    [/expired/i, 'expired'],
    [/not valid before|nbf|iat/i, 'not yet valid'],
    [/audience|aud/i, 'audience does not match this service'],
    [/signature/i, 'signature does not match the issuer DID'],
    [/resolve|notFound|unknownNetwork|invalidDid/i, 'issuer DID could not be resolved'],
    [/no expiry/i, 'token has no expiry (exp)'],
    [/incorrect format|Incorrect format|invalid_argument|base64|JSON/i, 'malformed token'],
  ]
  for (const [re, text] of known) if (re.test(message)) return text
  return 'verification failed'
}
