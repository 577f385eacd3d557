/**
 * `IdentityService`: every operation of the spec as a method taking the request body (or
 * query) and the request's {@link AuthContext}, resolving to the documented response body
 * or rejecting with an {@link IdentityError}.
 */
import { applyDeclaredConfigurations, type DeclaredConfiguration } from '../oid4vci/configurations.js'
import type { Resolvable, Resolver } from 'did-resolver'
import { Authenticator } from '../auth/authenticator.js'
import type { Oid4vciModule } from '../oid4vci/module.js'
import type { Oid4vpModule } from '../oid4vp/module.js'
import { keyResolverOf } from '../oid4vci/key-resolver.js'
import { authenticateAccess } from '../oid4vci/access.js'
import type { AuthContext } from '../auth/context.js'
import { CallerFacts, otherControllingKeys } from '../roles/caller-facts.js'
import { roleAssignmentsOfDids } from '../roles/did-references.js'
import { CredentialRoleResources } from '../credentials/role-resources.js'
import { StoredWalletVaults } from '../vaults/wallet-vaults.js'
import { walletTenantLookup } from '../wallets/records.js'
import type { DidAuthOptions } from '../auth/did-auth.js'
import type { TenantResolver } from '../auth/tenants.js'
import { ApiKeyTenants } from '../auth/api-keys.js'
import { DEV_NETWORK, type EthrNetwork } from '../did/methods/ethr/index.js'
import { Registries, createResolver } from '../did/methods/ethr/index.js'
import { ClaimResolvers } from '../did/named-resolvers.js'
import { DidWebResolver, didWebMethod, OwnDidWebDocuments } from '../did/methods/index.js'
import { storedDidWebWallets } from '../wallets/did-web-wallets.js'
import { registerContext } from '../proofs/jsonld/contexts.js'
import { jsonLdLimitsOf, type JsonLdLimits } from '../proofs/jsonld/bounds.js'
import { DEFAULT_DEPTH, depthProblem } from '../operations/request-bounds.js'
import { CanonicalizationPool, type JsonLdPoolStats, type JsonLdWorkerOptions } from '../proofs/jsonld/canonicalization-pool.js'
import { UNDEFINED_TERMS_POLICIES, type UndefinedTerms } from '../proofs/jsonld/undefined-terms.js'
import type { OnchainRegistryOptions } from '../did/methods/ethr/index.js'
import { KeyCustody } from '../custody/key-custody.js'
import { keyringSalt, masterKeyOf, openKeyring, pendingHsmKey, type MasterKeySetting } from '../custody/keyring-store.js'
import { isHsmMasterKey } from '../custody/hsm-master-key.js'
import { PublicKeyDirectory } from '../wallets/public-keys.js'
import { SignatureMemo } from '../proofs/signature-memo.js'
import { rotateMasterKey, type RotationProgress } from '../custody/rotation.js'
import { InstanceHeartbeat } from '../custody/instances.js'
import { KeyringError } from '../keys/keyring.js'
import { openOneTimeStore, type OneTimeStore } from '../one-time/index.js'
import { COLLECTIONS } from './collections.js'
import { assertStorageSupports } from './storage-requirements.js'
import type { StorageAdapter } from '../storage/port.js'
import type { ServiceConfig, ServiceContext, ServiceLimits } from './context.js'
import type { BoundOperations, OperationMethods as MethodsOf } from '../operations/contract.js'
import type { ErrorInfo, ItemFailure } from '../operations/runtime.js'
import { CONTRACTS, type OperationName } from './contracts.js'
import { OperationDispatcher } from './dispatcher.js'
import { WalletSigners } from '../wallets/signers.js'
import { QuorumApprovals, type ApproveCallback } from '../mpc/approvals.js'
import { MpcVaults } from '../vaults/mpc-vaults.js'
import type { MpcProvider } from '../mpc/port.js'
import { ShamirQuorumCustody } from '../mpc/shamir-quorum-custody.js'
import type { HsmModule } from '../keys/hsm.js'
import { openKeyManager } from '../keys/backends/index.js'
import { StatusAllocator } from '../status/allocate.js'
import { StatusPublisher } from '../status/publisher.js'
import { signList } from '../status/sign-list.js'
import { publicBaseUrl } from '../status/list-url.js'
import { StoredStatusLists } from '../status/stored-lists.js'
import { StatusVerifier, type StatusVerifierOptions } from '../status/verify-status.js'
import { consoleErrorLog, redactor, secretFormsOfKey, secretPartsOfUrl } from './error-log.js'
import { NO_AUDIT_TRAIL, StoredAuditTrail, type AuditTrail } from '../audit/trail.js'
import { afterCommits } from '../audit/after-commits.js'
import type { AuditChainingOptions } from '../audit/sequencer.js'
import { SYSTEM_TENANT } from '../auth/tenants.js'

/** MPC vaults (docs/mpc.md). */
export interface MpcOptions {
  /**
   * What holds MPC vaults' keys. Default: {@link ShamirQuorumCustody} over the service's storage and keyring (quorum custody with
   * Shamir secret sharing, not threshold ECDSA).
   */
  provider?: MpcProvider
  /**
   * Approvals gathered out of band, asked for when a request's own DID-auth tokens fall short
   * of a quorum (signing with an MPC wallet, initializing, creating wallets in, deleting an MPC
   * vault). Resolves to the approving members' DIDs.
   */
  approve?: ApproveCallback
}

export interface IdentityServiceOptions {
  /** Where records live: `createMemoryStorage()`, `createSqliteStorage(...)` from `didvault/sqlite`, or your adapter. */
  storage: StorageAdapter
  /**
   * 32 raw bytes, 64 hex characters, or a passphrase (stretched with scrypt); or `{ hsm, label? }`, the master key in a
   * PKCS#11 token (`hsm: pkcs11(...)` from `didvault/pkcs11`): the data key envelopes are sealed with is kept
   * in the storage only wrapped by an AES key in the token, unwrapped once at start (docs/keys.md *The master key in an HSM*).
   */
  masterKey: MasterKeySetting
  /** Older master keys (or `{ hsm }`), accepted for reading while {@link IdentityService.rotateMasterKey} runs. */
  previousMasterKeys?: MasterKeySetting[]
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
  /**
   * DID resolvers credential operations may name in `resolver`, by name (did-resolver
   * `Resolvable`s, e.g. `universalResolver({ url })`). `default` is always the service's own
   * (its registries, and did:key offline) and cannot be replaced.
   */
  resolvers?: Record<string, Resolvable>
  /**
   * JSON-LD context documents credentials may reference, by URL, besides the bundled ones
   * (credentials, security, DID, secp256k1 suites). Contexts are never fetched: any other URL is
   * refused (422). A URL names one document for the whole process (see `registerContext`).
   */
  contexts?: Record<string, object>
  /**
   * What Sign Verifiable Credentials does with JSON-LD terms no context defines, when a request
   * does not say (its `undefinedTerms`): `vocab` (default, W3C VCDM 2.0) signs them under the
   * undefined-terms context `https://www.w3.org/ns/credentials/undefined-terms/v2`, appended
   * last when needed; `reject` refuses such a credential (422). docs/credentials.md *Undefined terms*.
   */
  undefinedTerms?: UndefinedTerms
  /**
   * Request depth (`depth`, default 64: the deepest nesting of objects and arrays any request may
   * have; at least `jsonld.maxDepth` + 16, else `create` fails naming both), batch size, DID-auth
   * token lifetimes, and the bounds of JSON-LD inputs (`jsonld`; docs/credentials.md *Work bounds*).
   */
  limits?: ServiceLimitsOptions
  /**
   * How JSON-LD canonicalization runs: in a pool of worker threads (`threads`), at most
   * `perTenant` tasks of one tenant at once, each within `deadlineMs` (docs/credentials.md *Work bounds*).
   */
  jsonldWorkers?: JsonLdWorkerOptions
  /** MPC vaults: the provider holding their keys, and an optional out-of-band approval callback. */
  mpc?: MpcOptions
  /**
   * A hardware security module: `pkcs11({ module, tokenLabel, pin, sessions })` of `didvault/pkcs11` (optional peer
   * `pkcs11js`). Its key backend is registered as `hsm`: vaults with `keyManagement: "HSM"` and wallets with
   * `walletConfig.keyManagement: "HSM"` keep their keys in the token; `/health/ready` asks its `ready()`; the service's
   * `close()` closes it. Without it, `HSM` is 422 (docs/keys.md *HSM custody*).
   */
  hsm?: HsmModule
  /**
   * The service's public base URL (absolute http(s), no query or fragment): status lists are
   * published at `<publicUrl>/status/<listId>`, and that URL is signed into credentials issued with
   * status. Never taken from a request's `Host`; without it, issuing with status is 422.
   */
  publicUrl?: string
  /** Status-list changes within this interval (ms) are signed together; `Cache-Control: max-age` of lists is at most it. Default 1000. */
  statusPublishIntervalMs?: number
  /**
   * The OpenID for Verifiable Credential Issuance issuer module: `oid4vci()` of `didvault/oid4vc` (optional peers
   * `@openid4vc/*`). With it and `publicUrl`, each tenant with credential configurations is a Credential Issuer at
   * `<publicUrl>/oid4vci/<slug>` (docs/oid4vci.md). Without it, the issuer endpoints answer 404.
   */
  oid4vci?: Oid4vciModule
  /**
   * The OpenID for Verifiable Presentations verifier module: `oid4vp()` of `didvault/oid4vc` (optional peers
   * `@openid4vc/openid4vp`, `dcql`, `jose`). With it and `publicUrl`, each tenant asks wallets for presentations
   * (docs/oid4vp.md). Without it, the verifier endpoints answer 404.
   */
  oid4vp?: Oid4vpModule
  /** Entries per new status list. Default 131,072 (the W3C minimum); smaller only for tests. */
  statusListSize?: number
  /**
   * Origins (`https://host[:port]`; http only on a loopback host) whose status lists Verify may
   * fetch; lists elsewhere fail their check, unrequested. docs/credentials.md *Checking status when verifying*.
   */
  statusListOrigins?: string[]
  /**
   * Origins (`https://host[:port]`) whose did:web DID documents the service may fetch to resolve
   * did:web DIDs it does not hold (`GET /1.0/identifiers/`, verification); a did:web elsewhere
   * resolves to `notFound` naming `didWebOrigins`, unrequested. docs/did-registries.md *did:web*.
   */
  didWebOrigins?: string[]
  /**
   * Fetching foreign status lists: `timeoutMs` (default 5 s), `maxBytes` (2 MiB, also of a decoded
   * list), `cacheSize` (32 lists); per request `maxListsPerRequest` (16 distinct lists of other
   * origins) and `requestDeadlineMs` (10 s for all its status checks); `negativeCacheMs` (30 s: a
   * list that could not be fetched is not asked for again meanwhile). docs/credentials.md
   * *Checking status when verifying*. Token Status Lists (SD-JWT VCs) the service publishes: `tokenLifetimeMs`
   * (`exp` − `iat`, default 24 h; signed again from half of it on) and `tokenTtlMs` (`ttl`, default 300 s);
   * docs/credentials.md *Token Status List*.
   */
  statusLists?: Pick<
    StatusVerifierOptions,
    'timeoutMs' | 'maxBytes' | 'cacheSize' | 'maxListsPerRequest' | 'requestDeadlineMs' | 'negativeCacheMs'
  > & { tokenLifetimeMs?: number; tokenTtlMs?: number }
  /** Clock, ms since the epoch (tests). */
  now?: () => number
  /**
   * Called with unexpected (500) errors, and with the cause of each 503 (storage unavailable), for
   * logging. The error may come from a library; the response never carries its message. Default:
   * on stderr, the operation name, then the error's
   * message and stack and those of its `cause` chain, with secrets redacted (the master keys,
   * the path and query of `rpcUrl`s, URL passwords, 32-byte hex values, BIP39 mnemonics). `operation`: the
   * operation's name in the table (`createVault`), or a background task's (`Publish status list`, `JSON-LD worker`); `info.requestId`:
   * the failed request's id (`AuthContext.requestId`), when known; `info.item`: for a failed item of a 200 answer
   * (a batch item, a `walletConfig` transaction), what was done to it (`rename wallet`).
   */
  onError?: (operation: string, error: unknown, info?: ErrorInfo) => void
  /**
   * Told of each item of a 200 answer that failed, whatever its error (the answer's `errors`: batch items, `walletConfig`
   * transactions, status changes): operation, item, error type and status, request id. `didvault serve` counts them
   * (`didvault_batch_item_failures_total`).
   */
  onItemFailure?: (failure: ItemFailure) => void
  /** Told of each status list the service signed and published (metrics: `didvault_status_list_publishes_total`). */
  onStatusListPublished?: () => void
  /**
   * The audit trail (docs/operations.md *Audit trail*): every security-relevant act appended, in
   * its transaction, to the tenant's hash-chained trail. Default true; keep it on — `false` is for
   * benches and tests measuring its cost only.
   */
  audit?: boolean
  /**
   * Announce this process in the storage while the service is open (docs/operations.md
   * *Master-key rotation*): the master key it seals with and those it opens, host, pid, refreshed
   * every 5 s and removed by {@link IdentityService.close}. {@link IdentityService.rotateMasterKey}
   * refuses while a live process seals with another key, and a process that finds a rotation to a
   * key it lacks refuses to start, or stops sealing new secrets. Default false; `didvault serve`
   * turns it on. Turn it on for a service that shares its database with others.
   */
  heartbeat?: boolean
  /**
   * When the audit trail's sequencer chains committed records (docs/operations.md *Audit trail*,
   * the integration lag): `delayMs` after the commit that appended them (default 50), and every
   * `sweepMs` those any process left unchained longer than that (default 1000).
   */
  auditChaining?: AuditChainingOptions
}

/** The actor of acts of no tenant (the operator's): the audit trail's system chain. */
const SYSTEM_ACTOR = { tenantId: SYSTEM_TENANT, dids: [] }

/** The secrets the service is configured with, which the default error log never shows (nor should a replacement's). */
export function configuredSecrets(options: IdentityServiceOptions): string[] {
  const keys = [options.masterKey, ...(options.previousMasterKeys ?? [])].flatMap((key) =>
    isHsmMasterKey(key) ? [] : secretFormsOfKey(key),
  )
  const urls = (options.networks ?? []).flatMap((network) => (network.rpcUrl === undefined ? [] : secretPartsOfUrl(network.rpcUrl)))
  return [...keys, ...urls]
}

/** {@link ServiceLimits} as options: any of them, and any of the JSON-LD bounds. */
export type ServiceLimitsOptions = Partial<Omit<ServiceLimits, 'jsonld'>> & { jsonld?: Partial<JsonLdLimits> }

const DEFAULT_LIMITS: Omit<ServiceLimits, 'jsonld'> = {
  depth: DEFAULT_DEPTH,
  batch: 1_000,
  tokenDefaultLifetimeMs: 15 * 60_000,
  tokenMaxLifetimeMs: 24 * 3_600_000,
}

/**
 * One method per operation of the table (`src/operations/contracts.ts`): `service.<name>(input, auth)`
 * takes the request body (or query; path parameters such as `vaultID` are fields of it) and the
 * request's headers, and resolves to the response body or rejects with an `IdentityError`.
 */
export type OperationMethods = MethodsOf<typeof CONTRACTS>

/**
 * {@link IdentityService} with the request headers bound (see {@link IdentityService.as}); inputs
 * that may be empty are optional. The HTTP client of `didvault/client` has exactly these methods.
 */
export type BoundIdentityService = BoundOperations<typeof CONTRACTS>

// The operation methods are generated from the table in the constructor (this interface merges with the class).
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type
export interface IdentityService extends OperationMethods {}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class IdentityService {
  readonly #ctx: ServiceContext
  /**
   * The operations as transports use them: authenticate a request from its headers first, run
   * it once its body is in (see `createRouter`). The methods of this class are the same calls in one step.
   */
  readonly dispatcher: OperationDispatcher
  /**
   * The stored API keys (create, add, list, revoke) of the default tenant resolver; undefined
   * when the `tenants` option replaces it. A revoked key is refused from the next request on.
   */
  readonly apiKeys?: ApiKeyTenants
  readonly #trail?: StoredAuditTrail

  /** This process's record in the storage (option `heartbeat`). */
  readonly #heartbeat: InstanceHeartbeat | undefined

  private constructor(
    ctx: ServiceContext,
    auth: Authenticator,
    apiKeys?: ApiKeyTenants,
    trail?: StoredAuditTrail,
    heartbeat?: InstanceHeartbeat,
  ) {
    this.#ctx = ctx
    this.#trail = trail
    this.#heartbeat = heartbeat
    this.dispatcher = new OperationDispatcher(ctx, auth)
    this.apiKeys = apiKeys
    for (const name of Object.keys(CONTRACTS) as OperationName[]) {
      Object.defineProperty(this, name, {
        value: (input: unknown, auth: AuthContext) => this.dispatcher.call(name, input, auth),
        enumerable: false,
      })
    }
  }

  /** Opens the storage (creating collections and running migrations) and the keyring; fails loudly on a wrong master key. */
  static async create(options: IdentityServiceOptions): Promise<IdentityService> {
    if (!options?.storage)
      throw new TypeError(
        'IdentityService.create: options.storage is required (createMemoryStorage(), createSqliteStorage(...) from didvault/sqlite, ...)',
      )
    if (options.masterKey === undefined || options.masterKey === null || options.masterKey === '') {
      throw new TypeError(
        'IdentityService.create: options.masterKey is required (32 bytes, 64 hex characters, or a passphrase); keep it ' +
          'outside the database',
      )
    }
    const { storage: given } = options
    const undefinedTerms = options.undefinedTerms ?? 'vocab'
    if (!UNDEFINED_TERMS_POLICIES.includes(undefinedTerms)) {
      const policies = UNDEFINED_TERMS_POLICIES.map((p) => `"${p}"`).join(' or ')
      throw new TypeError(`IdentityService.create: options.undefinedTerms must be ${policies}`)
    }
    const limits: ServiceLimits = { ...DEFAULT_LIMITS, ...options.limits, jsonld: jsonLdLimitsOf(options.limits?.jsonld) }
    const depthRefused = depthProblem(limits.depth, limits.jsonld.maxDepth)
    if (depthRefused !== undefined) throw new TypeError(`IdentityService.create: limits.depth ${depthRefused}`)
    const onError = options.onError ?? consoleErrorLog(redactor(configuredSecrets(options)))
    const jsonld = new CanonicalizationPool(options.jsonldWorkers, (err) => onError('JSON-LD worker', err))
    assertStorageSupports(given)
    const now = options.now ?? Date.now
    await given.init(COLLECTIONS)
    const trail = options.audit === false ? undefined : new StoredAuditTrail(given, now, { ...options.auditChaining, onError })
    // The service's storage tells the trail of each commit, so what an act appended is chained shortly after.
    const storage = trail ? afterCommits(given, () => trail.committed()) : given
    const keyring = await openKeyring(storage, options.masterKey, options.previousMasterKeys, now)
    // Swept on the way: every 64th issue/remember of a process deletes up to ~500 expired values.
    const oneTime = await openOneTimeStore(storage, keyring, { now, onError })
    const networks = options.networks ?? [DEV_NETWORK]
    const network = networks.find((n) => n.name === (options.network ?? networks[0].name))
    if (!network) throw new Error(`network ${options.network} is not among the configured networks`)
    const registries = Registries.forNetworks(networks, storage, now, options.onchain)
    const config: ServiceConfig = {
      network,
      networks,
      didMethods: ['ethr', 'key', 'jwk', 'web'],
      apiUrls: registries.endpoints,
      audience: options.audience ?? 'didvault',
      limits,
      undefinedTerms,
      ...(options.publicUrl !== undefined && { publicUrl: publicBaseUrl(options.publicUrl, 'IdentityService.create: options.publicUrl') }),
      statusPublishIntervalMs: options.statusPublishIntervalMs ?? 1_000,
      statusListSize: options.statusListSize ?? 131_072,
      statusTokenLifetimeMs: positiveMs('statusLists.tokenLifetimeMs', options.statusLists?.tokenLifetimeMs ?? 86_400_000),
      statusTokenTtlMs: positiveMs('statusLists.tokenTtlMs', options.statusLists?.tokenTtlMs ?? 300_000),
      ...(options.hsm && { hsm: true }),
    }
    const resolver = createResolver(registries)
    const publicUrl = config.publicUrl === undefined ? {} : { publicUrl: config.publicUrl }
    // The service's own did:web DIDs are answered from its storage, never fetched.
    const ownDidWeb = new OwnDidWebDocuments({ storage, wallets: storedDidWebWallets(storage), now, ...publicUrl })
    const didWeb = new DidWebResolver({ origins: options.didWebOrigins ?? [], own: ownDidWeb, ...publicUrl })
    const resolvers = new ClaimResolvers(resolver, options.resolvers, didWeb)
    for (const [url, document] of Object.entries(options.contexts ?? {})) registerContext(url, document)
    const keys = new PublicKeyDirectory(storage)
    const custody = new KeyCustody(keyring)
    const audit: AuditTrail = trail ?? NO_AUDIT_TRAIL
    const mpc = new MpcVaults(
      options.mpc?.provider ?? new ShamirQuorumCustody(storage, custody, now),
      new QuorumApprovals(options.mpc?.approve),
      storage,
      audit,
    )
    // Control of DIDs of other methods than did:ethr is read from the `default` resolver, one per request (did:web's budget).
    const callers = new CallerFacts(resolver, storage, () => resolvers.get().resolver)
    // The registered key backends the service is set up for (`keys/backends/index.ts`): sealed, mpc, and hsm with an HSM.
    const keyManager = await openKeyManager({ storage, keyring, now, mpc: mpc.keyBackend, hsm: options.hsm })
    const signers = new WalletSigners(custody, keyManager, mpc)
    const publisher = new StatusPublisher(
      async (listId) => {
        const list = await signList(ctx, listId)
        // A Status List Token is signed again at half its lifetime.
        if (list?.expiresAt !== undefined && list.signedAt !== undefined)
          publisher.renewIn(listId, Math.max(0, (list.expiresAt - list.signedAt) / 2))
      },
      config.statusPublishIntervalMs,
      onError,
      options.onStatusListPublished,
    )
    // `own`: the lists this service publishes, their entries read from storage as they are now (published or not).
    const own = new StoredStatusLists({ storage })
    const { tokenLifetimeMs: _lifetime, tokenTtlMs: _ttl, ...fetching } = options.statusLists ?? {}
    const status = new StatusVerifier({ ...fetching, publicUrl: config.publicUrl, origins: options.statusListOrigins, own })
    const ctx: ServiceContext = {
      statusPublisher: publisher,
      statuses: new StatusAllocator({ storage, config, now, statusPublisher: publisher, registries, resolvers, signers, audit }),
      storage,
      custody,
      keyManager,
      signers,
      mpc,
      callers,
      roleResources: new CredentialRoleResources({ callers, storage }),
      walletVaults: new StoredWalletVaults(storage),
      didReferences: roleAssignmentsOfDids,
      audit,
      resolver,
      resolvers,
      // A did:web handed to a DID of another method (`newOwner`) is controlled by that DID's keys, as the facts see them.
      didWeb: didWebMethod({
        own: ownDidWeb,
        foreign: didWeb,
        storage,
        keyManager,
        now,
        ...publicUrl,
        otherControllingKeys: otherControllingKeys(callers),
      }),
      registries,
      keys,
      jsonld,
      config,
      status,
      now,
      onError,
      onItemFailure: options.onItemFailure ?? (() => undefined),
      oneTime,
      ...(options.hsm && { hsm: options.hsm }),
      ...(options.oid4vci && { oid4vci: options.oid4vci.start(keyResolverOf(resolvers.get().resolver)) }),
      ...(options.oid4vp && { oid4vp: options.oid4vp.start() }),
    }
    // API keys are the operator's acts (CLI, embedded admin API): they go to the system chain.
    const journal = (tx: StorageAdapter, act: { action: 'apiKey.create' | 'apiKey.revoke'; keyId: string }) =>
      audit.append(tx, SYSTEM_ACTOR, [{ action: act.action, target: { type: 'apiKey', id: act.keyId } }])
    const apiKeys = options.tenants ? undefined : await ApiKeyTenants.open(storage, keyring, now, journal)
    const auth = new Authenticator(
      options.tenants ?? apiKeys!,
      // DID-auth tokens are checked against the `default` resolver, one per request: the service's DIDs, did:key / did:jwk
      // offline, did:web from storage or `didWebOrigins` — each did:web document read afresh by each request, under its budget.
      {
        resolver: resolvers.get().resolver,
        resolverForRequest: () => resolvers.get().resolver,
        audience: config.audience,
        keys,
        now,
        memo: new SignatureMemo(),
      },
      walletTenantLookup(storage),
    )
    const issuer = ctx.oid4vci
    if (issuer) auth.register('oid4vci-access', (given) => authenticateAccess({ storage, oneTime, oid4vci: issuer }, given))
    // authcode: the PAR and authorization endpoints' caller (the issuer of the path, the wallet's request).
    let heartbeat: InstanceHeartbeat | undefined
    if (options.heartbeat) {
      const onFence = (reason: string | undefined) => reason !== undefined && onError('master-key rotation', new KeyringError(reason))
      try {
        heartbeat = await InstanceHeartbeat.start(storage, keyring, { now, onFence })
      } catch (err) {
        await publisher.close()
        await jsonld.close()
        throw err
      }
    }
    return new IdentityService(ctx, auth, apiKeys, trail, heartbeat)
  }

  /**
   * Single-use, expiring values shared by every process on the service's storage (the OID4VCI issuer's codes, nonces,
   * DPoP `jti`s), kept as keyed hashes only: what the operations reach as `ctx.oneTime`.
   */
  get oneTime(): OneTimeStore {
    return this.#ctx.oneTime
  }

  /** A did-resolver `Resolver` for the service's DIDs (and any did:ethr on its networks). */
  get resolver(): Resolver {
    return this.#ctx.resolver
  }

  /** The DID registry of each configured network. */
  get registries(): Registries {
    return this.#ctx.registries
  }

  /**
   * Options for verifying DID-auth tokens the way this service does (`verifyDidAuthToken`),
   * except that every signature is checked (the service remembers the signers of tokens it
   * verified; these options do not).
   */
  get didAuthOptions(): DidAuthOptions {
    const { resolver } = this.#ctx.resolvers.get()
    return { resolver, audience: this.#ctx.config.audience, keys: this.#ctx.keys, now: () => this.#ctx.now() }
  }

  /**
   * Creates or replaces the OID4VCI credential configurations an operator declares for a tenant (the config file's
   * issuers, applied by `serve` at start): no DID control is asked, but each issuing DID must be a wallet of the tenant
   * whose key signs the format, and the slug the tenant's or free. Audited with actor `{ system: "config" }`.
   * @throws {IdentityError} 422 naming the field of the first configuration refused (those before it are written)
   */
  applyDeclaredConfigurations(
    tenantId: string,
    slug: string,
    configurations: readonly DeclaredConfiguration[],
  ): Promise<{ created: string[]; updated: string[] }> {
    return applyDeclaredConfigurations(this.#ctx, tenantId, slug, configurations)
  }

  /** The service's configuration (networks, audience, limits). */
  get config(): Readonly<ServiceConfig> {
    return this.#ctx.config
  }

  /** The same operations with the headers bound once: `service.as(auth).createVault(body)`. */
  as(auth: AuthContext): BoundIdentityService {
    const bound: Record<string, (input?: unknown) => Promise<unknown>> = {}
    for (const name of Object.keys(CONTRACTS) as OperationName[]) bound[name] = (input) => this.dispatcher.call(name, input ?? {}, auth)
    return bound as BoundIdentityService
  }

  // ---- Administration

  /**
   * Reseals every secret under `newKey`, while the service (and others on the same storage) run;
   * records `masterKey.rotate` on the audit trail's system chain when done. Refuses (a
   * `RotationBlockedError` naming them) while a live process announced by option `heartbeat`
   * seals with another key: restart those with `masterKey: newKey, previousMasterKeys: [oldKey]`
   * first. Resumable: if interrupted, start the service with `masterKey: newKey,
   * previousMasterKeys: [oldKey]` and call this again. `onStale` hears of each record of a process
   * not seen for 30 s, which is ignored and removed. `{ hsm, label? }` moves the master key into the HSM (or, there
   * already, to a new data key): a data key is made, wrapped by the token key and recorded (or the one a move begun
   * recorded is taken again), then everything is resealed under it.
   */
  async rotateMasterKey(
    newKey: MasterKeySetting,
    onProgress?: (p: RotationProgress) => void,
    onStale?: (described: string) => void,
  ): Promise<{ resealed: number }> {
    const key = isHsmMasterKey(newKey)
      ? await pendingHsmKey(this.#ctx.storage, newKey, () => this.#ctx.now())
      : masterKeyOf(newKey, await keyringSalt(this.#ctx.storage))
    const journal = (tx: StorageAdapter, keyId: string) =>
      this.#ctx.audit.append(tx, SYSTEM_ACTOR, [{ action: 'masterKey.rotate', target: { type: 'masterKey', id: keyId } }])
    try {
      return await rotateMasterKey(this.#ctx.storage, this.#ctx.custody.keyring, COLLECTIONS, key, {
        onProgress,
        journal,
        now: () => this.#ctx.now(),
        ...(this.#heartbeat && { self: this.#heartbeat.id }),
        ...(onStale && { onStale }),
      })
    } finally {
      // An unwrapped data key lives in the keyring only.
      if (isHsmMasterKey(newKey)) key.fill(0)
    }
  }

  /**
   * What the JSON-LD worker pool is doing: its threads, per-tenant cap and deadline, tasks
   * running and waiting, the most tasks of one tenant that ever ran at once, and the tasks
   * finished and stopped at the deadline.
   */
  jsonldStats(): JsonLdPoolStats {
    return this.#ctx.jsonld.stats()
  }

  /**
   * Signs now the status lists changed in this process whose signature waits for the end of its
   * interval (`statusPublishIntervalMs`), and waits for the signatures under way: before a
   * shutdown, or to publish at once.
   */
  publishStatusLists(): Promise<void> {
    return this.#ctx.statusPublisher.flush()
  }

  /**
   * Chains now the audit records committed but not yet chained — those this process appended and
   * any others left unchained — as the sequencer would shortly (docs/operations.md *Audit trail*).
   */
  async chainAuditRecords(): Promise<void> {
    await this.#trail?.flush()
  }

  /**
   * Whether the service's HSM (option `hsm`) answers now; true without one. `/health/ready` is 503 while it is false;
   * signing with an HSM key meanwhile is 503 `SERVICE_UNAVAILABLE`.
   */
  async hsmReady(): Promise<boolean> {
    return this.#ctx.hsm === undefined ? true : await this.#ctx.hsm.ready().catch(() => false)
  }

  /** Chains the audit records still pending, stops the JSON-LD workers, closes the HSM module and the storage. */
  async close(): Promise<void> {
    await this.#trail?.close()
    await this.#heartbeat?.stop()
    await this.#ctx.statusPublisher.close()
    await this.#ctx.jsonld.close()
    await this.#ctx.hsm?.close()
    await this.#ctx.storage.close()
  }
}

/** `value` when it is a whole number of seconds of at least one, in ms. @throws {TypeError} naming the option otherwise */
function positiveMs(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1000 || value % 1000 !== 0)
    throw new TypeError(`IdentityService.create: options.${name} must be a whole number of seconds in ms (at least 1000)`)
  return value
}
