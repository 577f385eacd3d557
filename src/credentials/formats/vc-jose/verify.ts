/**
 * Verification of a VC-JOSE credential, as DESIGN §4 *Verify result* names its checks: its shape (`format`: `typ:
 * vc+jwt`, no `vc` claim, a VCDM 2.0 credential); its signature (`signature`) by the `assertionMethod` key of the
 * credential's issuer that `kid` names, in the issuer's current document (`verifyJwsByDid`: ES256K, ES256, EdDSA; `none`
 * and MACs refused); an `iss` claim, when present, the issuer again; `validFrom` not in the future and `validUntil` not
 * past, when present; then, with a status check, one `status` check per `credentialStatus` entry. Never throws.
 */
import { verifyJwsByDid } from '../../../proofs/jws-by-did.js'
import { DEFAULT_SKEW, dateCheck, outcome, withStatus } from '../checks.js'
import type { CredentialVerification, CredentialVerifyOptions } from '../port.js'
import type { VerificationCheck } from '../../schemas.js'
import { decodeJws, issuerOf, shapeError, timeOf } from './decode.js'

/** Verifies a VC-JOSE credential. */
export async function verifyVcJose(jws: string, options: CredentialVerifyOptions): Promise<CredentialVerification> {
  const decoded = decodeJws(jws)
  if (decoded === undefined) return outcome(null, [{ check: 'format', verified: false, error: 'not a compact JWS' }])
  const { header, payload, data } = decoded
  const issuer = issuerOf(payload) ?? null
  const refused = shapeError(decoded)
  if (refused !== undefined) return outcome(issuer, [{ ...refused, verified: false }])
  if (payload.iss !== undefined && payload.iss !== issuer)
    return outcome(issuer, [{ check: 'format', verified: false, error: 'iss is not the credential’s issuer' }])
  const signed = await verifyJwsByDid(
    { alg: header.alg, kid: header.kid, issuer, data, signature: new Uint8Array(Buffer.from(decoded.signature, 'base64url')) },
    { resolver: options.resolver, purpose: 'assertionMethod' },
  )
  if (!signed.verified)
    return outcome(issuer, [{ check: signed.reason === 'alg' ? 'alg' : 'signature', verified: false, error: signed.error }])
  const skewMs = (options.skewSeconds ?? DEFAULT_SKEW) * 1000
  const checks: VerificationCheck[] = [{ check: 'signature', verified: true }]
  if (payload.validFrom !== undefined)
    checks.push(dateCheck('validFrom', timeOf(payload.validFrom) <= options.now + skewMs, 'is in the future'))
  if (payload.validUntil !== undefined)
    checks.push(dateCheck('validUntil', timeOf(payload.validUntil) > options.now - skewMs, 'has passed'))
  return outcome(issuer, await withStatus(checks, { issuer: issuer ?? '', credentialStatus: payload.credentialStatus }, options))
}
