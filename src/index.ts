/**
 * didvault — the core entry. Loads no optional peer (better-sqlite3, express, mongodb):
 * those live behind `didvault/sqlite`, `didvault/express`, `didvault/mongo`.
 */
export {
  IdentityService,
  type IdentityServiceOptions,
  type BoundIdentityService,
  type MpcOptions,
  type OperationMethods,
  type ServiceLimitsOptions,
} from './service.js'
export type { ServiceConfig, ServiceLimits } from './operations/context.js'
export { DEFAULT_JSONLD_LIMITS, type JsonLdLimits } from './credentials/jsonld/bounds.js'
export type { JsonLdPoolStats, JsonLdWorkerOptions } from './credentials/jsonld/canonicalization-pool.js'
export type { UndefinedTerms } from './credentials/jsonld/undefined-terms.js'
export { IdentityError, type ErrorBody, type ErrorType } from './errors.js'
export type { AuthContext, Caller } from './auth/context.js'
export { staticTenants, type TenantResolver } from './auth/tenants.js'
export { ApiKeyTenants, type ApiKeyInfo, type CreatedApiKey } from './auth/api-keys.js'
export { DEV_NETWORK, ethrDid, parseEthrDid, principalOf, type EthrNetwork, type ParsedEthrDid } from './did/ethr.js'
export { Registries } from './did/resolver.js'
export { DEFAULT_RESOLVER, universalResolver, type UniversalResolverOptions } from './did/resolvers.js'
export { EmbeddedRegistry } from './did/registry/embedded.js'
export { OnchainRegistry, type OnchainNetwork, type OnchainRegistryOptions } from './did/registry/onchain.js'
export { RegistryError, type AppliedChange, type DidRegistry, type RegistryChange } from './did/registry/port.js'
export type { DidVersion, DidVersionQuery } from './did/version.js'
export type { DigestSigner, RecoverableSignature } from './keys/signer.js'
export { KeyringError, randomMasterKey } from './keys/keyring.js'
export type { MasterKeyInput } from './keys/keyring-store.js'
export type { RotationProgress } from './keys/rotation.js'
export { createMemoryStorage, MemoryStorage } from './storage/memory/index.js'
export {
  InvalidCursorError,
  UniqueConstraintError,
  type Collection,
  type CollectionSpec,
  type Condition,
  type FindOptions,
  type IndexSpec,
  type Page,
  type Scalar,
  type StorageAdapter,
  type StorageCapabilities,
  type StoredRecord,
  type Where,
} from './storage/port.js'
export type { WalletView } from './schemas/wallets.js'
export type { DelegateView, RegistryReport, TransactionView } from './operations/did-updates.js'
export type { VaultView } from './schemas/vaults.js'
export type { AssignmentView, Permission, RoleView } from './schemas/roles.js'
export type { DidAuthToken } from './schemas/tokens.js'
export type { SignedCredential, VerificationCheck, VerifiedCredential } from './schemas/claims.js'
export { OPERATIONS } from './operations/table.js'
export { CONTRACTS, type OperationName } from './operations/contracts.js'
export type { OperationContract, OperationInput, OperationOutput, ParsedInput, Route } from './operations/contract.js'
export type { OperationDefinition, OperationHandler, OperationImplementation } from './operations/define.js'
export { OperationDispatcher, AuthenticatedCall } from './operations/dispatcher.js'
export type { WalletConfig, TxInput } from './schemas/wallet-config.js'
export type {
  CreateMpcVaultRequest,
  InitializeOutcome,
  MpcPending,
  MpcProvider,
  MpcPublicKey,
  MpcVaultRef,
  QuorumGroup,
  QuorumPolicy,
  SignatureOutcome,
  SignatureRequest,
} from './mpc/port.js'
export type { ApprovalAction, ApprovalRequest, ApproveCallback } from './mpc/approvals.js'
export { ShamirQuorumCustody } from './mpc/shamir-quorum-custody.js'
