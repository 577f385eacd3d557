/**
 * Verification of a JSON-LD credential, as DESIGN §4 *Verify result* defines it: each check is named with its
 * outcome, and the credential is verified when every check is. Within the JSON-LD work bounds (`bounds`) and free
 * of `__proto__`, `constructor` and `prototype` keys (`keys`), checked before anything else; the W3C shape
 * (`format`); canonicalized within the worker pool's deadline (`deadline`); every proof of the proof set (`proof`,
 * one check per proof, naming the DID that made it) signed by a key that the current document of the DID its
 * `creator`/`verificationMethod` names lists under `assertionMethod` (for did:ethr the owner, or a live
 * `veriKey`/`sigAuth` delegate); at least one of them by the issuer (`issuerProof`, a failed check only: the others
 * may be co-signers'); `issuanceDate` not in the future; `expirationDate`, when present, not past (data model 2.0,
 * credentials/v2 first: `validFrom` and `validUntil`, each when present). With a status check (`status`, the
 * service's), one check `status` per entry of its `credentialStatus`, once every other check passed.
 *
 * An invalid credential is a result with `verified: false`, never a throw; a JSON-LD document
 * referencing a context that is not bundled is the caller's error ({@link UnknownContextError}).
 */
import type { Resolvable } from 'did-resolver'
import type { VerificationCheck } from '../../schemas.js'
import {
  CREDENTIALS_V2_URL,
  issuerOf,
  verifyJsonLd,
  type JsonLdDocument,
  type ProofSetResult,
  type SigningKey,
} from '../../../proofs/jsonld/index.js'
import { JsonLdBoundsError, jsonLdBoundsError } from '../../../proofs/jsonld/bounds.js'
import { IN_THREAD_HASHER } from '../../../proofs/jsonld/canonical-hasher.js'
import { noIssuerProof } from '../../../proofs/jsonld/proof-set.js'
import { JsonLdDeadlineError, shown } from '../../../proofs/jsonld/errors.js'
import { signingKeysResolver } from '../../../proofs/signing-keys.js'
import { DEFAULT_SKEW, dateCheck, outcome, withStatus } from '../checks.js'
import { dataModel2Error } from './data-model.js'
import type { CredentialVerification, CredentialVerifyOptions } from '../port.js'

/**
 * Verifies a JSON-LD credential. Before anything else its JSON is checked against the hasher's
 * bounds (`bounds`) and for forbidden keys (`keys`): nothing of a credential that fails them is
 * processed. Canonicalization stopped at the pool's deadline is the check `deadline`.
 *
 * @throws {UnknownContextError} it references a context that is not bundled or registered
 */
export async function verifyJsonLdCredential(vc: JsonLdDocument, options: CredentialVerifyOptions): Promise<CredentialVerification> {
  const hasher = options.hasher ?? IN_THREAD_HASHER
  const refused = jsonLdBoundsError(vc, hasher.limits)
  const issuer = issuerOf(vc) ?? null
  if (refused !== undefined) return outcome(issuer, [{ check: refused.check, verified: false, error: refused.message }])
  const malformed = shapeError(vc)
  if (malformed !== undefined || issuer === null)
    return outcome(issuer, [{ check: 'format', verified: false, error: malformed ?? 'issuer: missing' }])
  const skewMs = (options.skewSeconds ?? DEFAULT_SKEW) * 1000
  let proofs: ProofSetResult
  // Why a proof's DID did not resolve (a did:web origin not allowed, …): its failed proof check says so.
  const unresolved = new Map<string, string>()
  try {
    const resolver = noting(options.resolver, unresolved)
    const keysOf = signingKeysResolver(resolver, options.keys)
    proofs = await verifyJsonLd(vc, { resolveSigningKeys: orNone(keysOf), resolver, proofPurpose: 'assertionMethod', issuer, hasher })
  } catch (err) {
    if (err instanceof JsonLdDeadlineError) return outcome(issuer, [{ check: 'deadline', verified: false, error: err.message }])
    if (err instanceof JsonLdBoundsError) return outcome(issuer, [{ check: err.check, verified: false, error: err.message }])
    throw err
  }
  const checks: VerificationCheck[] =
    proofs.proofs.length === 0
      ? [{ check: 'proof', verified: false, error: proofs.error ?? 'no proof' }]
      : proofs.proofs.map((p, index) => ({
          check: 'proof',
          proof: index,
          type: p.type,
          ...(p.verificationMethod !== undefined && { verificationMethod: p.verificationMethod }),
          ...(p.did !== undefined && { did: p.did }),
          verified: p.verified,
          ...(p.error !== undefined && { error: withResolutionFailure(p.error, p.did, unresolved) }),
        }))
  if (proofs.proofs.length > 0 && !proofs.proofs.some((p) => p.did === issuer)) {
    checks.push({ check: 'issuerProof', verified: false, error: noIssuerProof(issuer) })
  }
  const [from, until] = isV2Credential(vc) ? (['validFrom', 'validUntil'] as const) : (['issuanceDate', 'expirationDate'] as const)
  if (vc[from] !== undefined) checks.push(dateCheck(from, timeOf(vc[from]) <= options.now + skewMs, 'is in the future'))
  if (vc[until] !== undefined) checks.push(dateCheck(until, timeOf(vc[until]) > options.now - skewMs, 'has passed'))
  return outcome(issuer, await withStatus(checks, { issuer, credentialStatus: vc.credentialStatus }, options))
}

/** `resolver`, noting in `failures` the message of each DID that does not resolve. */
function noting(resolver: Resolvable, failures: Map<string, string>): Resolvable {
  return {
    async resolve(didUrl, options) {
      const result = await resolver.resolve(didUrl, options)
      const { error, message } = result.didResolutionMetadata
      if (result.didDocument === null && error !== undefined) failures.set(didUrl, shown(String(message ?? error)))
      return result
    },
  }
}

/** A failed proof's `error`, followed by why its DID did not resolve, when it did not. */
function withResolutionFailure(error: string, did: string | undefined, failures: Map<string, string>): string {
  const why = did === undefined ? undefined : failures.get(did)
  return why === undefined ? error : `${error}: ${why}`
}

/** Whether `vc` is a data model 2.0 credential: its first `@context` is credentials/v2. */
export function isV2Credential(vc: JsonLdDocument): boolean {
  const context = vc['@context']
  return (Array.isArray(context) ? context[0] : context) === CREDENTIALS_V2_URL
}

/**
 * Why `vc` is not a W3C verifiable credential in JSON-LD, or undefined. Data model 1.1 needs
 * `issuanceDate`; 2.0 (credentials/v2 first) keeps the rules of {@link dataModel2Error}.
 */
function shapeError(vc: JsonLdDocument): string | undefined {
  const context = vc['@context']
  if (context === undefined) return '@context: missing'
  const types = Array.isArray(vc.type) ? vc.type : [vc.type]
  if (!types.includes('VerifiableCredential')) return 'type: must include VerifiableCredential'
  const subject = vc.credentialSubject
  if (typeof subject !== 'object' || subject === null) return 'credentialSubject: missing'
  if (!isV2Credential(vc)) return typeof vc.issuanceDate !== 'string' ? 'issuanceDate: missing' : undefined
  return dataModel2Error(vc)
}

/** A key lookup that treats a resolver failure (a thrown error) as "no keys": the proof is then not verified. */
function orNone(lookup: (didUrl: string) => Promise<SigningKey[]>): (didUrl: string) => Promise<SigningKey[]> {
  return async (didUrl) => {
    try {
      return await lookup(didUrl)
    } catch {
      return []
    }
  }
}

/** `resolver`, answering a thrown error as a failed resolution (did-jwt then names it). */

/** A credential date's time (ms); NaN — failing its check — for anything but a date string. */
const timeOf = (value: unknown): number => (typeof value === 'string' ? Date.parse(value) : Number.NaN)
