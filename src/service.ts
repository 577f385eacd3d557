/**
 * `IdentityService`: every operation of the spec as a method taking the request body (or
 * query) and the request's {@link AuthContext}, resolving to the documented response body
 * or rejecting with an {@link IdentityError}.
 */
import type { Resolver } from 'did-resolver'
import { Authenticator } from './auth/authenticator.js'
import type { AuthContext, AuthRequirement, Caller } from './auth/context.js'
import { AccessPolicy } from './auth/policy.js'
import type { DidAuthOptions } from './auth/did-auth.js'
import { ApiKeyTenants, type TenantResolver } from './auth/tenants.js'
import { DEV_NETWORK, type EthrNetwork } from './did/ethr.js'
import { Registries, createResolver } from './did/resolver.js'
import type { OnchainRegistryOptions } from './did/registry/onchain.js'
import { toIdentityError } from './errors.js'
import { KeyCustody } from './keys/custody.js'
import { keyringSalt, masterKeyOf, openKeyring, type MasterKeyInput } from './keys/keyring-store.js'
import { PublicKeyDirectory } from './keys/public-keys.js'
import { rotateMasterKey, type RotationProgress } from './keys/rotation.js'
import { COLLECTIONS } from './storage/collections.js'
import type { StorageAdapter } from './storage/port.js'
import type { OperationContext, ServiceConfig, ServiceLimits } from './operations/context.js'
import * as vaults from './operations/vaults.js'
import * as wallets from './operations/wallets.js'
import * as tokens from './operations/tokens.js'

export interface IdentityServiceOptions {
  /** Where records live: `createMemoryStorage()`, `createSqliteStorage(...)` from `didvault/sqlite`, or your adapter. */
  storage: StorageAdapter
  /** 32 raw bytes, 64 hex characters, or a passphrase (stretched with scrypt). */
  masterKey: MasterKeyInput
  /** Older master keys, accepted for reading while {@link IdentityService.rotateMasterKey} runs. */
  previousMasterKeys?: MasterKeyInput[]
  /** Maps Base Auth Tokens to tenants. Default: API keys stored (hashed) in the storage. */
  tenants?: TenantResolver
  /**
   * Networks DIDs may live on. Default: `dev` (chainId 1337). A network with `rpcUrl` and
   * `registry` (an `EthereumDIDRegistry` address) has an on-chain registry; the others use
   * the embedded registry (events in `storage`, no chain).
   */
  networks?: EthrNetwork[]
  /** Options of the on-chain registries, by network name: `{ gasPayer }` (an ethers `Signer` paying the gas), `provider`. */
  onchain?: Record<string, OnchainRegistryOptions>
  /** Name of the network new DIDs are made on. Default: the first of `networks`. */
  network?: string
  /** `aud` of the DID-auth tokens this service issues and accepts. Default `didvault`. */
  audience?: string
  limits?: Partial<ServiceLimits>
  /** Clock, ms since the epoch (tests). */
  now?: () => number
  /**
   * Called with unexpected (500) errors, for logging. The error may come from a library; the
   * response never carries its message. Default: one line on stderr with the operation name.
   */
  onError?: (operation: string, error: unknown) => void
}

const DEFAULT_LIMITS: ServiceLimits = {
  batch: 1_000,
  tokenDefaultLifetimeMs: 15 * 60_000,
  tokenMaxLifetimeMs: 24 * 3_600_000,
}

/** The operations with a request body or query, as this service names them. */
type Operation<I, O> = (body: I, auth: AuthContext) => Promise<O>

export class IdentityService {
  readonly #ctx: OperationContext
  readonly #auth: Authenticator
  readonly #onError: (operation: string, error: unknown) => void
  /** The API keys of the default tenant resolver (undefined when `tenants` was given). */
  readonly apiKeys?: ApiKeyTenants

  private constructor(ctx: OperationContext, auth: Authenticator, apiKeys?: ApiKeyTenants) {
    this.#ctx = ctx
    this.#auth = auth
    this.#onError = ctx.onError
    this.apiKeys = apiKeys
  }

  /** Opens the storage (creating collections and running migrations) and the keyring; fails loudly on a wrong master key. */
  static async create(options: IdentityServiceOptions): Promise<IdentityService> {
    const { storage } = options
    await storage.init(COLLECTIONS)
    const keyring = await openKeyring(storage, options.masterKey, options.previousMasterKeys)
    const networks = options.networks ?? [DEV_NETWORK]
    const network = networks.find((n) => n.name === (options.network ?? networks[0].name))
    if (!network) throw new Error(`network ${options.network} is not among the configured networks`)
    const now = options.now ?? Date.now
    const registries = Registries.forNetworks(networks, storage, now, options.onchain)
    const config: ServiceConfig = {
      network,
      networks,
      didMethods: ['ethr'],
      apiUrls: registries.endpoints,
      audience: options.audience ?? 'didvault',
      limits: { ...DEFAULT_LIMITS, ...options.limits },
    }
    const resolver = createResolver(registries)
    const keys = new PublicKeyDirectory(storage)
    const onError = options.onError ?? ((op: string, err: unknown) => console.error(`didvault: ${op} failed (${err instanceof Error ? err.name : typeof err})`))
    const ctx: OperationContext = { storage, custody: new KeyCustody(keyring), policy: new AccessPolicy(resolver), resolver, registries, keys, config, now, onError }
    const apiKeys = options.tenants ? undefined : new ApiKeyTenants(storage)
    const auth = new Authenticator(options.tenants ?? apiKeys!, { resolver, audience: config.audience, keys, now }, storage)
    return new IdentityService(ctx, auth, apiKeys)
  }

  /** A did-resolver `Resolver` for the service's DIDs (and any did:ethr on its networks). */
  get resolver(): Resolver {
    return this.#ctx.resolver
  }

  /** The DID registry of each configured network. */
  get registries(): Registries {
    return this.#ctx.registries
  }

  /** Options for verifying DID-auth tokens the way this service does (`verifyDidAuthToken`). */
  get didAuthOptions(): DidAuthOptions {
    return { resolver: this.#ctx.resolver, audience: this.#ctx.config.audience, keys: this.#ctx.keys, now: this.#ctx.now }
  }

  /** The service's configuration (networks, audience, limits). */
  get config(): Readonly<ServiceConfig> {
    return this.#ctx.config
  }

  async #run<O>(operation: string, need: AuthRequirement, auth: AuthContext | undefined, fn: (caller: Caller) => Promise<O>): Promise<O> {
    try {
      const caller = await this.#auth.authenticate(auth ?? {}, need)
      return await fn(caller)
    } catch (err) {
      const error = toIdentityError(err, operation)
      if (error.statusCode === 500) this.#onError(operation, err)
      throw error
    }
  }

  // ---- Identity vaults

  /** Create Identity Vault (`POST /vaults`). */
  createVault: Operation<unknown, Awaited<ReturnType<typeof vaults.createVault>>> = (body, auth) =>
    this.#run('create vault', 'tenant', auth, (c) => vaults.createVault(this.#ctx, c, body))

  /** Get Identity Vaults (`GET /vaults`); `query` holds the filters. */
  getVaults: Operation<unknown, Awaited<ReturnType<typeof vaults.getVaults>>> = (query, auth) =>
    this.#run('get vaults', 'tenant', auth, (c) => vaults.getVaults(this.#ctx, c, query))

  /** Delete Identity Vault (`DELETE /vaults`). */
  deleteVault: Operation<unknown, Awaited<ReturnType<typeof vaults.deleteVault>>> = (body, auth) =>
    this.#run('delete vault', 'tenant+did', auth, (c) => vaults.deleteVault(this.#ctx, c, body))

  /** Create Identity Vault's Wallet (`POST /vaults/:vaultID/wallet`). */
  createVaultWallet = (vaultId: string, body: unknown, auth: AuthContext) =>
    this.#run('create vault wallet', 'tenant+did', auth, (c) => vaults.createVaultWallet(this.#ctx, c, vaultId, body))

  // ---- Identity wallets

  /** Generate Identity Wallet (`POST /wallet`). */
  generateWallet: Operation<unknown, Awaited<ReturnType<typeof wallets.generateWallet>>> = (body, auth) =>
    this.#run('generate wallet', 'tenant', auth, (c) => wallets.generateWallet(this.#ctx, c, body))

  /** Get Identity Wallets (`GET /wallets`); `query` holds the filters. */
  getWallets: Operation<unknown, Awaited<ReturnType<typeof wallets.getWallets>>> = (query, auth) =>
    this.#run('get wallets', 'tenant', auth, (c) => wallets.getWallets(this.#ctx, c, query))

  /** Rename Identity Wallet (`POST /wallet/rename`). */
  renameWallets: Operation<unknown, Awaited<ReturnType<typeof wallets.renameWallets>>> = (body, auth) =>
    this.#run('rename wallets', 'tenant+did', auth, (c) => wallets.renameWallets(this.#ctx, c, body))

  /** Delete Identity Wallet (`DELETE /wallet`). */
  deleteWallets: Operation<unknown, Awaited<ReturnType<typeof wallets.deleteWallets>>> = (body, auth) =>
    this.#run('delete wallets', 'tenant+did', auth, (c) => wallets.deleteWallets(this.#ctx, c, body))

  /** Configure Identity Wallet (`POST /wallet/configure`): applies a `walletConfig` to the DID document of a wallet the caller controls. */
  configureWallet: Operation<unknown, Awaited<ReturnType<typeof wallets.configureWallet>>> = (body, auth) =>
    this.#run('configure wallet', 'tenant+did', auth, (c) => wallets.configureWallet(this.#ctx, c, body))

  // ---- DID-auth tokens

  /** Generate Token (`POST /did-auth-jwt`). Requires a Base Auth Token: `iss` must be a wallet of the tenant. */
  generateToken: Operation<unknown, Awaited<ReturnType<typeof tokens.generateToken>>> = (body, auth) =>
    this.#run('generate token', 'tenant', auth, (c) => tokens.generateToken(this.#ctx, c, body))

  /** Resolves a DID to its resolution result (DID documents are public). */
  resolveDid(did: string) {
    return this.#ctx.resolver.resolve(did)
  }

  /** The same operations with the headers bound once. */
  as(auth: AuthContext): BoundIdentityService {
    return {
      createVault: (b) => this.createVault(b, auth),
      getVaults: (q) => this.getVaults(q ?? {}, auth),
      deleteVault: (b) => this.deleteVault(b, auth),
      createVaultWallet: (id, b) => this.createVaultWallet(id, b ?? {}, auth),
      generateWallet: (b) => this.generateWallet(b ?? {}, auth),
      getWallets: (q) => this.getWallets(q ?? {}, auth),
      renameWallets: (b) => this.renameWallets(b, auth),
      deleteWallets: (b) => this.deleteWallets(b, auth),
      configureWallet: (b) => this.configureWallet(b, auth),
      generateToken: (b) => this.generateToken(b, auth),
    }
  }

  // ---- Administration

  /**
   * Reseals every secret under `newKey`. Resumable: if interrupted, start the service with
   * `masterKey: newKey, previousMasterKeys: [oldKey]` and call this again.
   */
  async rotateMasterKey(newKey: MasterKeyInput, onProgress?: (p: RotationProgress) => void): Promise<{ resealed: number }> {
    const key = masterKeyOf(newKey, await keyringSalt(this.#ctx.storage))
    return rotateMasterKey(this.#ctx.storage, this.#ctx.custody.keyring, COLLECTIONS, key, onProgress)
  }

  /** Closes the storage. */
  close(): Promise<void> {
    return this.#ctx.storage.close()
  }
}

/** {@link IdentityService} with the request headers bound (see {@link IdentityService.as}). */
export interface BoundIdentityService {
  createVault(body: unknown): ReturnType<IdentityService['createVault']>
  getVaults(query?: unknown): ReturnType<IdentityService['getVaults']>
  deleteVault(body: unknown): ReturnType<IdentityService['deleteVault']>
  createVaultWallet(vaultId: string, body?: unknown): ReturnType<IdentityService['createVaultWallet']>
  generateWallet(body?: unknown): ReturnType<IdentityService['generateWallet']>
  getWallets(query?: unknown): ReturnType<IdentityService['getWallets']>
  renameWallets(body: unknown): ReturnType<IdentityService['renameWallets']>
  deleteWallets(body: unknown): ReturnType<IdentityService['deleteWallets']>
  configureWallet(body: unknown): ReturnType<IdentityService['configureWallet']>
  generateToken(body: unknown): ReturnType<IdentityService['generateToken']>
}
