/**
 * Verification of a VC-JWT, as DESIGN §4 *Verify result* defines it: a VC-JWT (`format`); its signature
 * (`signature`) by an `assertionMethod` key of `iss`, checked the way did-jwt-vc's `verifyCredential` does
 * (ES256K, ES256K-R, EdDSA); `nbf` not in the future and `exp` not past, when present. ES256K/ES256K-R tokens of a
 * plain DID go through the service's own verifier first (OpenSSL for keys the service knows, see
 * {@link verifyDidJwt}) and did-jwt-vc's payload checks; whatever that path does not accept is decided, and its
 * failure named, by did-jwt-vc itself (a differential test holds the two to the same verdicts). With a status check
 * (`status`, the service's), one check `status` per entry of its `vc.credentialStatus`, once every other check
 * passed. An invalid credential is a result with `verified: false`, never a throw.
 */
import type { JwtCredentialPayload } from 'did-jwt-vc'
import { normalizeCredential, validateCredentialPayload, verifyCredential as verifyJwtVc } from 'did-jwt-vc'
import type { Resolvable } from 'did-resolver'
import type { VerificationCheck } from '../../schemas.js'
import { shown } from '../../../proofs/jsonld/errors.js'
import { decodeJwt, verifyDidJwt } from '../../../proofs/jwt-verifier.js'
import { DEFAULT_SKEW, dateCheck, outcome, withStatus } from '../checks.js'
import type { CredentialVerification, CredentialVerifyOptions } from '../port.js'

/** Verifies a VC-JWT. */
export async function verifyJwtCredential(jwt: string, options: CredentialVerifyOptions): Promise<CredentialVerification> {
  let payload: Record<string, unknown>
  try {
    payload = decodeJwt(jwt).payload
  } catch {
    return outcome(null, [{ check: 'format', verified: false, error: 'not a JWT' }])
  }
  const issuer = typeof payload.iss === 'string' ? payload.iss : null
  const nowSeconds = Math.floor(options.now / 1000)
  const skew = options.skewSeconds ?? DEFAULT_SKEW
  if (!(await acceptedNatively(jwt, options))) {
    try {
      await verifyJwtVc(jwt, orThrowless(options.resolver), {
        proofPurpose: 'assertionMethod',
        policies: { now: nowSeconds, issuanceDate: false, expirationDate: false, aud: false },
      })
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err)
      const isFormat = /^(schema_error|format_error|invalid_argument|invalid_jwt: (Incorrect format|JWT iss))/.test(message)
      return outcome(issuer, [{ check: isFormat ? 'format' : 'signature', verified: false, error: shown(message) }])
    }
  }
  const checks: VerificationCheck[] = [{ check: 'signature', verified: true }]
  if (payload.nbf !== undefined)
    checks.push(dateCheck('nbf', typeof payload.nbf === 'number' && payload.nbf <= nowSeconds + skew, 'is in the future'))
  if (payload.exp !== undefined)
    checks.push(dateCheck('exp', typeof payload.exp === 'number' && payload.exp > nowSeconds - skew, 'has passed'))
  const credentialStatus = (isRecord(payload.vc) ? payload.vc.credentialStatus : undefined) ?? payload.credentialStatus
  return outcome(issuer, await withStatus(checks, { issuer: issuer ?? '', credentialStatus }, options))
}

/**
 * Whether the service's verifier accepts `jwt` as did-jwt-vc's `verifyCredential` would (time
 * and audience policies off): an ES256K(-R) signature by an `assertionMethod` key of `iss`,
 * then did-jwt-vc's own payload checks. False is no verdict: did-jwt-vc then decides.
 */
export async function acceptedNatively(jwt: string, options: CredentialVerifyOptions): Promise<boolean> {
  try {
    const { payload } = await verifyDidJwt(jwt, {
      resolver: options.resolver,
      audience: false,
      checkTimes: false,
      proofPurpose: 'assertionMethod',
      keys: options.keys,
    })
    // did-jwt-vc's declared types do not resolve for the type-aware linter (tsc checks this call).
    // eslint-disable-next-line @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unnecessary-type-assertion
    validateCredentialPayload(normalizeCredential(payload as unknown as JwtCredentialPayload))
    return true
  } catch {
    return false
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** `resolver`, answering a thrown error as a failed resolution (did-jwt then names it). */
function orThrowless(resolver: Resolvable): Resolvable {
  return {
    resolve: async (didUrl, options) => {
      try {
        return await resolver.resolve(didUrl, options)
      } catch {
        return {
          didResolutionMetadata: { error: 'internalError', message: 'the resolver failed' },
          didDocument: null,
          didDocumentMetadata: {},
        }
      }
    },
  }
}
