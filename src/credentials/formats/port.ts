/**
 * The credential-format port (issue 31 §1): what the credentials, status and presentations domains need of a
 * credential format, one implementation per folder (`jsonld/`, `jwt/`), found through the registry of
 * `index.ts`. A format parses its encoded form into the fields a stored record is indexed by, issues with the
 * issuer wallet's {@link KeySigner}, verifies into named checks, and gives the content hash records are
 * deduplicated by; where the format allows (SD-JWT), it presents one credential with a holder key binding and checks
 * such a presentation's binding.
 */
import type { Resolvable } from 'did-resolver'
import type { BbsSigner, KeySigner } from '../../keys/signer.js'
import type { KeyType, PublicJwk } from '../../keys/key-types.js'
import type { JsonLdLimits } from '../../proofs/jsonld/bounds.js'
import type { CanonicalHasher } from '../../proofs/jsonld/canonical-hasher.js'
import type { ContextEntry } from '../../proofs/jsonld/contexts.js'
import type { ProofType } from '../../proofs/jsonld/index.js'
import type { SuiteRequest } from '../../proofs/suites/index.js'
import type { UndefinedTerms } from '../../proofs/jsonld/undefined-terms.js'
import type { JwtVerifyOptions } from '../../proofs/jwt-verifier.js'
import type { KnownKeys } from '../../proofs/known-keys.js'
import type { CredentialRecord } from '../records.js'
import type { VerificationCheck } from '../schemas.js'

/** A format's name: the spec's `format` value. */
export type FormatName = 'JSON-LD' | 'JWT' | 'SD-JWT' | 'VC-JOSE'

/** A credential in its encoded form: a compact JWT or SD-JWT, or a JSON document. */
export type EncodedCredential = string | Record<string, unknown>

/** A credential as requests, responses and records carry it: one member, named by its format. */
export type CredentialMember = { jwt: string } | { jsonld: Record<string, unknown> } | { sdjwt: string }

/**
 * What a credential is indexed by, parsed from it (nothing verified), with its format, its encoded form as a record keeps
 * it, and its content hash; `disclosures` are what the record keeps sealed (an SD-JWT VC's encoded disclosures).
 */
export type ParsedCredential = Required<Pick<CredentialRecord, 'format' | 'encoded'>> &
  Pick<CredentialRecord, 'vcId' | 'did' | 'issuer' | 'subject' | 'spelled' | 'types' | 'issuanceDate' | 'expirationDate' | 'hash'> & {
    disclosures?: string[]
  }

/** The service's bounds on what a format decodes or processes of a request. */
export interface FormatLimits {
  /** Bounds of every JSON-LD input. */
  jsonld: JsonLdLimits
  /** Deepest nesting of what the service decodes from a request (a VC-JWT's payload). */
  depth: number
}

/** What a credential says, whatever its format. */
export interface CredentialContent {
  /** The credential's id (a DID or URI). */
  id: string
  issuer: string
  /** Subject DID (`credentialSubject.id`), if any. */
  subject?: string
  /** Members of `credentialSubject` besides `id`. */
  claims: Record<string, unknown>
  /**
   * Contexts after the credentials context (URLs, or inline context definitions):
   * credentials/v1 (data model 1.1), unless they include credentials/v2, which then comes first
   * (data model 2.0).
   */
  contexts: ContextEntry[]
  /** Types after `VerifiableCredential`. */
  types: string[]
  /** Issuance, ms. */
  issuedAt: number
  /** Expiration, ms; none when undefined. */
  expiresAt?: number
  /** `credentialStatus` entries: one is the member itself, more an array. */
  status?: Array<Record<string, unknown>>
  /** SD-JWT VC: what only that format issues (required by it, ignored by the others). */
  sdJwt?: SdJwtContent
}

/** What an SD-JWT VC carries besides the content every format has. */
export interface SdJwtContent {
  /** The credential type (`vct`). */
  vct: string
  /** JSON pointers of the claims made selectively disclosable; default every top-level claim but `sub`, `[]` none. */
  disclose?: string[]
  /** Decoy digests added at the top level. */
  decoys?: number
  /** The holder's public key (`cnf.jwk`). */
  holderJwk: PublicJwk
}

/** What presenting one credential with key binding needs (SD-JWT: a KB-JWT by the credential's holder key). */
export interface PresentInput {
  /** JSON pointers of the claims shown (each with everything beneath it); `[]`: only the always-visible claims. */
  disclose: string[]
  /** The verifier's nonce. */
  nonce: string
  /** The verifier (`aud`). */
  aud: string
  /** When the presentation is made, ms. */
  now: number
  /** The signer of the credential's holder key (`cnf.jwk`); throws 403 when the caller may not use that key. */
  holderSigner: (holderJwk: PublicJwk) => Promise<KeySigner>
}

/** What a verifier expects a presentation's key binding to carry. */
export interface KeyBindingExpectation {
  nonce: string
  aud: string
}

/** How a credential is issued (each format reads what applies to it). */
export interface IssueOptions {
  /** JSON-LD: the proof suite; default the suite registry's for the signer's key type (secp256k1: EcdsaKoblitzSignature2016). */
  proofType?: ProofType
  /** JSON-LD: the Data Integrity cryptosuite (with `proofType` `DataIntegrityProof`, or alone). */
  cryptosuite?: string
  /** JSON-LD: canonicalizes; default in this thread. */
  hasher?: CanonicalHasher
  /** JSON-LD with a selective-disclosure cryptosuite (ecdsa-sd-2023): what every derived credential reveals. */
  mandatoryPointers?: string[]
  /**
   * JSON-LD: terms no context defines: `vocab` (default) signs them under the undefined-terms context,
   * appended last only when safe mode refuses the credential for such a term; `reject` lets the refusal stand.
   */
  undefinedTerms?: UndefinedTerms
  /** Resolves the issuer's document when its method is not in the registry (did:web): names its key's verification method. */
  resolver?: Resolvable
  /** JSON-LD `bbs-2023`: the issuer wallet's BBS assertion key, which signs the base proof instead of its own key. */
  bbs?: BbsAssertionKey
}

/** A wallet's BBS assertion key as a proof signs with it: its signer and its verification method (`<did>#bbs-0`). */
export interface BbsAssertionKey {
  signer: BbsSigner
  verificationMethod: string
}

/** The outcome of verifying one credential. */
export interface CredentialVerification {
  verified: boolean
  /** The issuer DID the credential names, or null. */
  issuer: string | null
  checks: VerificationCheck[]
  /** The first failed check. */
  error?: string
  /** SD-JWT VC, when verified: the payload with the disclosures applied and `_sd`, `_sd_alg`, `cnf` removed. */
  disclosed?: Record<string, unknown>
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

/** A claim of a sign request, as a format judges it before anything is made for it. */
export interface ClaimShape {
  /** Its `credentialSubject` members besides `id`. */
  claims: Record<string, unknown>
  /** The contexts the request and the claim name. */
  named: ContextEntry[]
  /** Whether it gets status entries. */
  withStatus: boolean
}

/**
 * One credential format. `E` is its encoded form. Every method that judges what a caller gave
 * throws the 422 naming `field`; `verify` never throws for a bad credential (it answers `verified: false`).
 */
export interface CredentialFormat<E extends EncodedCredential = EncodedCredential> {
  /** The spec's `format` value. */
  readonly name: FormatName
  /** The member that carries it in requests, responses and records (`{ jwt }`, `{ jsonld }`, `{ sdjwt }`). */
  readonly member: 'jwt' | 'jsonld' | 'sdjwt'
  /** Whether a claim signed without `id` gets a new claim DID (a wallet of the tenant) as its id. */
  readonly claimDids: boolean
  /** The media type of a signed credential of this format served as it is (a status list). */
  readonly mediaType: string
  /** The contexts of a Bitstring status list credential in this format. */
  readonly statusListContexts: ContextEntry[]
  /** Whether `encoded` has this format's encoded shape (not whether it is valid). */
  is(encoded: EncodedCredential): encoded is E
  /** Refuses (422 naming `field`) a given credential over the service's bounds, before anything else reads it. */
  checkInput(encoded: E, field: string, limits: FormatLimits): void
  /**
   * The fields a stored record is indexed by, its encoded form as a record keeps it (and what the record seals) and its
   * content hash; 422 when it is not a credential of this format.
   * @param options.issued - `encoded` is what this format's {@link issue} just returned, not a credential given from
   *   outside: checks that only guard against malformed input may be skipped (an SD-JWT's disclosures are known to fit
   *   it). The result is the same.
   */
  parse(encoded: E, limits: FormatLimits, options?: { issued?: boolean }): Promise<ParsedCredential>
  /** The credential again from what {@link parse} gave: a record's `encoded` and its unsealed `disclosures`. */
  assemble(encoded: EncodedCredential, disclosures: readonly string[]): E
  /** Equal for two encodings of the same content (what records are deduplicated by). */
  contentHash(encoded: E): string
  /** The W3C credential document it carries (a VC-JWT's `vc`), or undefined when it carries none. */
  document(encoded: E): Record<string, unknown> | undefined
  /** The subject DIDs it names (none when a subject has no DID). */
  subjects(encoded: E): string[]
  /**
   * Whether its keys sign in this format (JSON-LD: with the proof suite `proof` names, or the key type's default): 422
   * naming what does otherwise.
   */
  assertSigns(keyType: KeyType, proof?: SuiteRequest): void
  /** The contexts of a claim to issue, after checking its claims and contexts fit this format (422 naming `field`). */
  contextsOf(claim: ClaimShape, field: string): ContextEntry[]
  /** Refuses (422 naming `field`) content to issue over the service's bounds. */
  checkContent(content: CredentialContent, field: string, limits: FormatLimits): void
  /** `content` signed by the issuer's key. */
  issue(content: CredentialContent, signer: KeySigner, options?: IssueOptions): Promise<E>
  /** Verifies it into named checks. */
  verify(encoded: E, options: CredentialVerifyOptions): Promise<CredentialVerification>
  /**
   * Where the format allows (SD-JWT): the presentation of `encoded` showing the claims `disclose` names, bound to the
   * verifier's `nonce` and `aud` by the holder key. 422 for input that does not fit, 403 (from `holderSigner`) for a key
   * the caller may not use.
   */
  present?(encoded: E, input: PresentInput): Promise<E>
  /**
   * Where the format allows (SD-JWT): the named checks of a presentation's key binding at `now` (ms) — the rest of it is
   * checked by {@link verify}. Never throws for a bad presentation.
   */
  keyBindingChecks?(presented: E, expected: KeyBindingExpectation, now: number): Promise<VerificationCheck[]>
}
