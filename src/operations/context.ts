/** What every operation is given: the service's parts and configuration, never HTTP objects. */
import type { Resolver } from 'did-resolver'
import { errorObject, type ErrorBody } from '../errors.js'
import type { AccessControl } from '../auth/access-control.js'
import type { JsonLdLimits } from '../proofs/jsonld/bounds.js'
import type { CanonicalizationPool } from '../proofs/jsonld/canonicalization-pool.js'
import type { UndefinedTerms } from '../proofs/jsonld/undefined-terms.js'
import type { EthrNetwork } from '../did/ethr.js'
import type { Registries } from '../did/resolver.js'
import type { ClaimResolvers } from '../did/resolvers.js'
import type { KeyCustody } from '../custody/key-custody.js'
import type { WalletSigners } from '../wallets/signers.js'
import type { MpcVaults } from '../vaults/mpc-vaults.js'
import type { PublicKeyDirectory } from '../wallets/public-keys.js'
import type { StorageAdapter } from '../storage/port.js'
import type { CredentialRecord, DelegateKeyRecord, RoleAssignmentRecord, RoleRecord, WalletRecord, VaultRecord } from '../storage/collections.js'
import { tenantCollection } from '../storage/tenant-scope.js'

export interface ServiceLimits {
  /** Most items in one batch (wallets, roles, claims, assignments). */
  batch: number
  /** Default DID-auth token lifetime, ms. */
  tokenDefaultLifetimeMs: number
  /** Longest DID-auth token lifetime, ms. */
  tokenMaxLifetimeMs: number
  /** Bounds of every JSON-LD input, checked before any JSON-LD processing (docs/credentials.md *Work bounds*). */
  jsonld: JsonLdLimits
}

export interface ServiceConfig {
  /** Network new DIDs are made on. */
  network: EthrNetwork
  networks: EthrNetwork[]
  /** DID methods a `walletConfig.didMethod` may name. */
  didMethods: string[]
  /** Registry endpoints a `walletConfig.apiUrl` may name: `local` (embedded) and the on-chain networks' `rpcUrl`s. */
  apiUrls: string[]
  /** `aud` of DID-auth tokens this service issues and accepts. */
  audience: string
  limits: ServiceLimits
  /** What Sign Verifiable Credentials does with JSON-LD terms no context defines, when the request does not say. */
  undefinedTerms: UndefinedTerms
}

export interface OperationContext {
  storage: StorageAdapter
  /** Seals and opens the secrets the service keeps (new keys, mnemonics, account nodes). */
  custody: KeyCustody
  /** The signer of each wallet, whatever holds its key: operations sign only through it. */
  signers: WalletSigners
  /** The access policy, with the facts it decides on: every "may this caller…" goes through it. */
  access: AccessControl
  /** MPC vaults: their provider and the quorum approvals their keys need. */
  mpc: MpcVaults
  resolver: Resolver
  /** The resolvers credential operations choose by name (`resolver`); `default` is the service's own, with did:key. */
  resolvers: ClaimResolvers
  /** The DID registry of each network. */
  registries: Registries
  /** Public keys of the wallets the service holds, by address. */
  keys: PublicKeyDirectory
  /** The worker pool JSON-LD canonicalization runs in (see `jsonLdHasher`). */
  jsonld: CanonicalizationPool
  config: ServiceConfig
  /** Current time, ms. */
  now(): number
  /** Receives unexpected (500) failures, for the operator's logs; responses never carry their details. */
  onError(operation: string, error: unknown): void
}

/** The body of a failed batch item; an unexpected (500) failure also goes to {@link OperationContext.onError}. */
export function itemError(ctx: OperationContext, err: unknown, operation: string): ErrorBody {
  const body = errorObject(err, operation)
  if (body.statusCode === 500) ctx.onError(operation, err)
  return body
}

/** The tenant's view of the collections, on the context's storage or a transaction's. */
export function collectionsOf(storage: StorageAdapter, tenantId: string) {
  return {
    vaults: tenantCollection<VaultRecord>(storage, 'vaults', tenantId),
    wallets: tenantCollection<WalletRecord>(storage, 'wallets', tenantId),
    delegateKeys: tenantCollection<DelegateKeyRecord>(storage, 'delegateKeys', tenantId),
    roles: tenantCollection<RoleRecord>(storage, 'roles', tenantId),
    roleAssignments: tenantCollection<RoleAssignmentRecord>(storage, 'roleAssignments', tenantId),
    credentials: tenantCollection<CredentialRecord>(storage, 'credentials', tenantId),
  }
}
