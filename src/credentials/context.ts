/** What the credentials' operations may be given (each handler takes only the parts it uses). */
import type { ApprovalEvidence } from '../mpc/approvals.js'
import type { ClaimResolvers } from '../did/named-resolvers.js'
import type { JsonLdLimits } from '../proofs/jsonld/bounds.js'
import type { CanonicalizationPool } from '../proofs/jsonld/canonicalization-pool.js'
import type { KnownKeys } from '../proofs/known-keys.js'
import type { UndefinedTerms } from '../proofs/jsonld/undefined-terms.js'
import type { WalletsConfig, WalletsContext } from '../wallets/context.js'
import type { StatusPurpose } from './schemas.js'
import type { CredentialStatusChecks, FormatName } from './formats/index.js'
import type { CredentialRecord, CredentialStatus } from './records.js'

export interface CredentialsConfig extends WalletsConfig {
  limits: {
    /** Bounds of every JSON-LD input, checked before any JSON-LD processing (docs/credentials.md *Work bounds*). */
    jsonld: JsonLdLimits
    /** Deepest nesting of a request (`limits.depth`), and of what the service decodes from one (a VC-JWT's payload). */
    depth: number
  }
  /** What Sign Verifiable Credentials does with JSON-LD terms no context defines, when the request does not say. */
  undefinedTerms: UndefinedTerms
}

/** What a credential being issued asks of status lists. */
export interface StatusRequest {
  /** The issuer DID as the credential names it. */
  issuer: string
  format: FormatName
  purposes: readonly StatusPurpose[]
  /** The credential's `id`. */
  credentialId: string
  /** The signing request's approvals: a new list of an MPC issuer is signed with them at once. */
  approvals?: ApprovalEvidence
}

/** Status entries allocated for a credential being issued. */
export interface StatusAllocation {
  /** Its `credentialStatus` entries (`BitstringStatusListEntry`), one per purpose. */
  entries: Array<Record<string, unknown>>
  /** Gives the entries back: for a credential that is not issued after all. */
  release(): Promise<void>
}

/** Status lists, as issuing needs them (implemented by the status domain). */
export interface CredentialStatuses {
  /** Allocates one entry per purpose (written at once); 422 when the service cannot issue status. */
  allocate(tenantId: string, request: StatusRequest): Promise<StatusAllocation>
  /**
   * The status of a credential being stored, from the entries its document names in the tenant's lists: `revoked`,
   * `suspended`, or undefined (active, or no entry in this service's lists).
   */
  statusOf(tenantId: string, record: CredentialRecord): Promise<CredentialStatus | undefined>
}

export interface CredentialsContext extends WalletsContext {
  /** Status entries of credentials being issued. */
  statuses: CredentialStatuses
  /** The resolvers credential operations choose by name (`resolver`); `default` is the service's own, with did:key. */
  resolvers: ClaimResolvers
  /** Public keys the service knows (its wallets, delegate keys): their signatures are checked fastest. */
  keys: KnownKeys
  /** The worker pool JSON-LD canonicalization runs in. */
  jsonld: CanonicalizationPool
  config: CredentialsConfig
  /** Checks credentials' `credentialStatus` entries when verifying (src/status), one budget per request; absent: status is not checked. */
  status?: CredentialStatusChecks
}
