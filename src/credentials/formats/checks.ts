/** The named checks of a verification, as every format reports them (DESIGN §4 *Verify result*). */
import type { VerificationCheck } from '../schemas.js'
import type { CredentialVerification, CredentialVerifyOptions, StatusBearing } from './port.js'

/** Clock skew allowed for dates by default, seconds. */
export const DEFAULT_SKEW = 60

export function dateCheck(
  check: 'issuanceDate' | 'expirationDate' | 'validFrom' | 'validUntil' | 'nbf' | 'exp',
  ok: boolean,
  failure: string,
): VerificationCheck {
  return ok ? { check, verified: true } : { check, verified: false, error: `${check} is missing, malformed or ${failure}` }
}

/** `checks`, then the status checks of the credential when it has status entries and every check so far passed. */
export async function withStatus(checks: VerificationCheck[], credential: StatusBearing, options: CredentialVerifyOptions) {
  if (options.status === undefined || credential.credentialStatus === undefined || !checks.every((c) => c.verified)) return checks
  return [...checks, ...(await options.status(credential, options))]
}

/** The verification of `checks`: verified when every one is, else naming the first that failed. */
export function outcome(issuer: string | null, checks: VerificationCheck[]): CredentialVerification {
  const failed = checks.find((c) => !c.verified)
  if (!failed) return { verified: true, issuer, checks }
  const which = failed.check === 'proof' && failed.proof !== undefined ? `proof ${failed.proof}` : failed.check
  return { verified: false, issuer, checks, error: `${which}: ${failed.error ?? 'failed'}` }
}
