/**
 * Verification of a verifiable credential, as DESIGN §4 *Verify result* defines it: each
 * check is named with its outcome, and the credential is verified when every check is.
 *
 * - JSON-LD: within the JSON-LD work bounds (`bounds`) and free of `__proto__`, `constructor`
 *   and `prototype` keys (`keys`), checked before anything else; the W3C shape (`format`);
 *   canonicalized within the worker pool's deadline (`deadline`); every proof of the proof
 *   set (`proof`, one check per proof, naming the DID that made it) signed by a key that the
 *   current document of the DID
 *   its `creator`/`verificationMethod` names lists under `assertionMethod` (for did:ethr the
 *   owner, or a live `veriKey`/`sigAuth` delegate); at least one of them by the issuer
 *   (`issuerProof`, a failed check only: the others may be co-signers'); `issuanceDate` not
 *   in the future; `expirationDate`, when present, not past (data model 2.0, credentials/v2
 *   first: `validFrom` and `validUntil`, each when present).
 * - JWT: a VC-JWT (`format`); its signature (`signature`) by such a key of `iss`, checked the
 *   way did-jwt-vc's `verifyCredential` does (ES256K, ES256K-R, EdDSA); `nbf` not in the future
 *   and `exp` not past, when present. ES256K/ES256K-R tokens of a plain DID go through the
 *   service's own verifier first (OpenSSL for keys the service knows, see {@link verifyDidJwt})
 *   and did-jwt-vc's payload checks; whatever that path does not accept is decided, and its
 *   failure named, by did-jwt-vc itself (a differential test holds the two to the same verdicts).
 * - Both: with a status check (`status`, the service's), one check `status` per entry of the
 *   credential's `credentialStatus` (a VC-JWT's `vc.credentialStatus`), once every other check passed.
 *
 * An invalid credential is a result with `verified: false`, never a throw; a JSON-LD document
 * referencing a context that is not bundled is the caller's error ({@link UnknownContextError}).
 */
import type { JwtCredentialPayload } from 'did-jwt-vc'
import { normalizeCredential, validateCredentialPayload, verifyCredential as verifyJwtVc } from 'did-jwt-vc'
import type { Resolvable } from 'did-resolver'
import type { VerificationCheck } from './schemas.js'
import {
  CREDENTIALS_V2_URL,
  issuerOf,
  verifyJsonLd,
  type JsonLdDocument,
  type ProofSetResult,
  type SigningKey,
} from '../proofs/jsonld/index.js'
import { JsonLdBoundsError, jsonLdBoundsError } from '../proofs/jsonld/bounds.js'
import { IN_THREAD_HASHER, type CanonicalHasher } from '../proofs/jsonld/canonical-hasher.js'
import { noIssuerProof } from '../proofs/jsonld/proof-set.js'
import { JsonLdDeadlineError, shown } from '../proofs/jsonld/errors.js'
import { signingKeysResolver } from '../proofs/signing-keys.js'
import { decodeJwt, verifyDidJwt, type JwtVerifyOptions } from '../proofs/jwt-verifier.js'
import type { KnownKeys } from '../proofs/known-keys.js'

/** The outcome for one credential. */
export interface CredentialVerification {
  verified: boolean
  /** The issuer DID the credential names, or null. */
  issuer: string | null
  checks: VerificationCheck[]
  /** The first failed check. */
  error?: string
}

export interface CredentialVerifyOptions {
  /** Resolves the issuer's DID document. */
  resolver: Resolvable
  /** Current time, ms. */
  now: number
  /** Clock skew allowed for dates, seconds (default 60). */
  skewSeconds?: number
  /** Known public keys (the service's `KnownKeys`): signatures by them are checked natively, by verification. */
  keys?: JwtVerifyOptions['keys'] & Pick<KnownKeys, 'publicKeyHexFor'>
  /** Canonicalizes JSON-LD within its bounds (the service's: in its worker pool). Default: in this thread, default bounds. */
  hasher?: CanonicalHasher
  /** Checks `credentialStatus` entries (the service's: src/status). Absent: status is not checked. */
  status?: CredentialStatusCheck
}

/** What a status check reads of a credential: its issuer and its `credentialStatus` (one entry or an array). */
export interface StatusBearing {
  issuer: string
  credentialStatus: unknown
}

/**
 * Checks a credential's status entries, one named check (`status`) per entry; never throws. It
 * is called only for a credential whose other checks passed, with the options of that
 * verification (its clock, resolver, hasher), `status` included.
 */
export type CredentialStatusCheck = (credential: StatusBearing, options: CredentialVerifyOptions) => Promise<VerificationCheck[]>

/**
 * Where a request's {@link CredentialStatusCheck} comes from: one per request, so that the
 * request's status checks share its budget (each list read once, a cap on lists, one deadline).
 */
export interface CredentialStatusChecks {
  forRequest(): CredentialStatusCheck
}

const DEFAULT_SKEW = 60

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
    const keysOf = signingKeysResolver(noting(options.resolver, unresolved), options.keys)
    proofs = await verifyJsonLd(vc, { resolveSigningKeys: orNone(keysOf), issuer, hasher })
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

function dateCheck(
  check: 'issuanceDate' | 'expirationDate' | 'validFrom' | 'validUntil' | 'nbf' | 'exp',
  ok: boolean,
  failure: string,
): VerificationCheck {
  return ok ? { check, verified: true } : { check, verified: false, error: `${check} is missing, malformed or ${failure}` }
}

/** `checks`, then the status checks of the credential when it has status entries and every check so far passed. */
async function withStatus(checks: VerificationCheck[], credential: StatusBearing, options: CredentialVerifyOptions) {
  if (options.status === undefined || credential.credentialStatus === undefined || !checks.every((c) => c.verified)) return checks
  return [...checks, ...(await options.status(credential, options))]
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

function outcome(issuer: string | null, checks: VerificationCheck[]): CredentialVerification {
  const failed = checks.find((c) => !c.verified)
  if (!failed) return { verified: true, issuer, checks }
  const which = failed.check === 'proof' && failed.proof !== undefined ? `proof ${failed.proof}` : failed.check
  return { verified: false, issuer, checks, error: `${which}: ${failed.error ?? 'failed'}` }
}

/** Whether `vc` is a data model 2.0 credential: its first `@context` is credentials/v2. */
export function isV2Credential(vc: JsonLdDocument): boolean {
  const context = vc['@context']
  return (Array.isArray(context) ? context[0] : context) === CREDENTIALS_V2_URL
}

/**
 * Why `vc` is not a W3C verifiable credential in JSON-LD, or undefined. Data model 1.1 needs
 * `issuanceDate`; 2.0 (credentials/v2 first) has optional `validFrom`/`validUntil`, strings
 * when present.
 */
function shapeError(vc: JsonLdDocument): string | undefined {
  const context = vc['@context']
  if (context === undefined) return '@context: missing'
  const types = Array.isArray(vc.type) ? vc.type : [vc.type]
  if (!types.includes('VerifiableCredential')) return 'type: must include VerifiableCredential'
  const subject = vc.credentialSubject
  if (typeof subject !== 'object' || subject === null) return 'credentialSubject: missing'
  if (!isV2Credential(vc)) return typeof vc.issuanceDate !== 'string' ? 'issuanceDate: missing' : undefined
  for (const field of ['validFrom', 'validUntil'] as const) {
    if (vc[field] !== undefined && typeof vc[field] !== 'string') return `${field}: must be a date string`
  }
  return undefined
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

/** A credential date's time (ms); NaN — failing its check — for anything but a date string. */
const timeOf = (value: unknown): number => (typeof value === 'string' ? Date.parse(value) : Number.NaN)
