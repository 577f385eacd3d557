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
} from './service/identity-service.js'
export type { ServiceConfig, ServiceLimits } from './service/context.js'
export { DEFAULT_JSONLD_LIMITS, type JsonLdLimits } from './proofs/jsonld/bounds.js'
export type { JsonLdPoolStats, JsonLdWorkerOptions } from './proofs/jsonld/canonicalization-pool.js'
export type { UndefinedTerms } from './proofs/jsonld/undefined-terms.js'
export { IdentityError, UnavailableError, type ErrorBody, type ErrorType } from './errors.js'
export type { AuthContext, Caller } from './auth/context.js'
export { staticTenants, type TenantResolver } from './auth/tenants.js'
export { ApiKeyRevokedError, ApiKeyTenants, type ApiKeyInfo, type CreatedApiKey } from './auth/api-keys.js'
export { DEV_NETWORK, ethrDid, parseEthrDid, principalOf, type EthrNetwork, type ParsedEthrDid } from './did/methods/ethr/index.js'
export { didEthrMethod, Registries } from './did/methods/ethr/index.js'
export { DEFAULT_RESOLVER, universalResolver, type UniversalResolverOptions } from './did/named-resolvers.js'
export { EmbeddedRegistry } from './did/methods/ethr/index.js'
export { OnchainRegistry, type OnchainNetwork, type OnchainRegistryOptions } from './did/methods/ethr/index.js'
export { RegistryError, type AppliedChange, type DidRegistry, type RegistryChange } from './did/methods/ethr/index.js'
export type { DidVersion, DidVersionQuery } from './did/version.js'
export type { DigestSigner, KeySigner, RecoverableSignature } from './keys/signer.js'
export { KEY_TYPES, ALGORITHMS_OF, keyTypeOfJwk } from './keys/key-types.js'
export type { KeyType, PublicJwk, SignatureAlgorithm } from './keys/key-types.js'
export { BackendKeyManager, parseKeyRef } from './keys/port.js'
export type { BackendKey, CreateKeyRequest, CreatedKey, KeyBackend, KeyManager, KeyRef, SignRequest } from './keys/port.js'
export { didMethodNamed, didMethodNames, didMethodOf, didWebOfWallet, DidWebResolver } from './did/methods/index.js'
export type { ControllingKey, CreatedDid, DidCreateInput, DidMethod, DidUpdateInput } from './did/methods/index.js'
export { jwkThumbprint } from './keys/thumbprint.js'
export { SealedKeyBackend } from './keys/backends/sealed/index.js'
export { MpcKeyBackend, mpcKeyId, type MpcVaultDirectory } from './mpc/key-backend.js'
export { KeyringError, randomMasterKey } from './keys/keyring.js'
export type { MasterKeyInput } from './custody/keyring-store.js'
export { RotationBlockedError, type RotationProgress } from './custody/rotation.js'
export { createMemoryStorage, MemoryStorage } from './storage/memory/index.js'
export {
  InvalidCursorError,
  StorageUnavailableError,
  UniqueConstraintError,
  type Collection,
  type CollectionSpec,
  type CollectionWrite,
  type Condition,
  type FindOptions,
  type IndexSpec,
  type Page,
  type QueryPlan,
  type Scalar,
  type StorageAdapter,
  type StorageCapabilities,
  type StoredRecord,
  type Where,
} from './storage/port.js'
export type { WalletView } from './wallets/schemas.js'
export type { DelegateView, RegistryReport, TransactionView } from './wallets/did-updates.js'
export type { VaultView } from './vaults/schemas.js'
export type { AssignmentView, Permission, RoleView } from './roles/schemas.js'
export type { DidAuthToken } from './tokens/schemas.js'
export type { SignedCredential, VerificationCheck, VerifiedCredential } from './credentials/schemas.js'
export { OPERATIONS } from './service/table.js'
export { CONTRACTS, type OperationName } from './service/contracts.js'
export type { OperationContract, OperationInput, OperationOutput, ParsedInput, Route } from './operations/contract.js'
export type { OperationDefinition, OperationHandler, OperationImplementation } from './operations/define.js'
export { OperationDispatcher, AuthenticatedCall } from './service/dispatcher.js'
export type { WalletConfig, TxInput } from './wallets/config-schemas.js'
export type {
  CreateMpcVaultRequest,
  DataSignatureOutcome,
  DataSignatureRequest,
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
