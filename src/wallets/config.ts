/**
 * Resolution of a `walletConfig`: the vault's template, extended or overridden by the
 * request's, checked against what the service is configured for. No request is ever sent
 * to a host the caller names: `apiUrl` must be one of the configured registry endpoints.
 */
import { forbidden, invalid } from '../errors.js'
import { ETHR_KEY_TYPES, parseEthrDid, type EthrNetwork } from '../did/methods/ethr/index.js'
import { didMethodNamed, immutableMethodError } from '../did/methods/index.js'
import { KEY_TYPES, type KeyType } from '../keys/key-types.js'
import { HSM_BACKEND } from '../keys/hsm.js'
import type { DidRegistry } from '../did/methods/ethr/index.js'
import type { WalletConfig } from './config-schemas.js'
import { noPublicUrl } from './wallet-did.js'
import type { WalletRecord } from './records.js'
import type { Caller } from '../auth/context.js'
import { applyTxs, ownerWallet, type RegistryReport } from './did-updates.js'
import { didWebApplier } from './did-web-updates.js'
import type { WalletsConfig, WalletsContext } from './context.js'

/** Merges `override` over `template` field by field (a given `txsInput` replaces the template's). */
export function mergeWalletConfig(template?: WalletConfig, override?: WalletConfig): WalletConfig | undefined {
  if (!template && !override) return undefined
  const merged: WalletConfig = { ...template }
  for (const [k, v] of Object.entries(override ?? {})) if (v !== undefined) (merged as Record<string, unknown>)[k] = v
  return merged
}

/** The DID method of a wallet made under `config`: `ethr` unless it names another. */
export const didMethodOfConfig = (config: WalletConfig | undefined): string => config?.didMethod ?? 'ethr'

/** The key type of a wallet made under `config`: `secp256k1` unless it names another. */
export const keyTypeOfConfig = (config: WalletConfig | undefined): KeyType => config?.keyType ?? 'secp256k1'

/**
 * The key types a DID method makes DIDs for: did:ethr secp256k1 only, did:web any (its documents list a JWK), the
 * methods of the registry what their {@link DidMethod} says.
 */
export function keyTypesOfMethod(method: string): readonly KeyType[] {
  if (method === 'ethr') return ETHR_KEY_TYPES
  return didMethodNamed(method)?.keyTypes ?? KEY_TYPES
}

/**
 * Rejects (422) a config the service cannot make a wallet under: an unknown DID method or registry endpoint, a key
 * type the method cannot take (did:ethr: secp256k1 only), `apiUrl` on a method without registries, did:web without
 * the service's `publicUrl`, `txsInput` on a method whose DIDs cannot change (did:key, did:jwk), or a did:ethr
 * newOwner that is not a did:ethr DID (address or public key) of a configured network.
 */
export function checkWalletConfig(
  config: WalletConfig | undefined,
  service: WalletsConfig,
  options: { makesBbsKey?: boolean; choosesKeyManagement?: boolean } = {},
): void {
  if (!config) return
  if (config.keyManagement !== undefined) checkKeyManagement(config.keyManagement, service, options.choosesKeyManagement === true)
  const method = didMethodOfConfig(config)
  if (!service.didMethods.includes(method)) {
    throw invalid(`walletConfig.didMethod: unsupported DID method "${method}" (supported: ${service.didMethods.join(', ')})`)
  }
  const keyType = keyTypeOfConfig(config)
  const keyTypes = keyTypesOfMethod(method)
  if (!keyTypes.includes(keyType)) {
    const takes = `did:${method} takes ${keyTypes.join(', ')}`
    throw invalid(`walletConfig.keyType: a did:${method} DID cannot be made for a ${keyType} key (${takes})`)
  }
  if (config.apiUrl !== undefined && method !== 'ethr') {
    throw invalid(`walletConfig.apiUrl: did:${method} has no registry (apiUrl chooses a did:ethr registry endpoint)`)
  }
  if (method === 'web' && service.publicUrl === undefined) throw noPublicUrl()
  if (config.bbsKey === true) checkBbsKey(method, keyType, options.makesBbsKey === true)
  // A wallet in the HSM keeps every key of its DID there; PKCS#11 tokens hold no Bls12381G2 (BBS) keys.
  if (config.bbsKey === true && config.keyManagement === 'HSM')
    throw invalid('walletConfig.bbsKey: an HSM wallet keeps its keys in the token, which holds no BBS (Bls12381G2) keys')
  if ((config.txsInput?.length ?? 0) > 0 && (method === 'key' || method === 'jwk')) throw immutableMethodError(method)
  if (config.apiUrl !== undefined && !service.apiUrls.includes(stripSlash(config.apiUrl))) {
    throw invalid('walletConfig.apiUrl: not a registry endpoint configured in this service')
  }
  // did:web checks its own txsInput (did-web-updates.ts); these are did:ethr's.
  if (method !== 'ethr') return
  config.txsInput?.forEach((tx, i) => {
    if (tx.delegate?.publicKeyJwk !== undefined) {
      throw invalid(`walletConfig.txsInput.${i}.delegate.publicKeyJwk: a did:ethr delegate is an address (delegate.address)`)
    }
    if (tx.newOwner !== undefined) {
      const owner = parseEthrDid(tx.newOwner)
      if (!owner || !service.networks.some((n) => n.name === owner.network)) {
        const what = 'must be a did:ethr DID (an address or a secp256k1 public key) on a configured network'
        throw invalid(`walletConfig.txsInput.${i}.newOwner: ${what}`)
      }
    }
  })
}

/**
 * 422 unless a BBS assertion key can be made here: by Generate Identity Wallet (`makesBbsKey`), for a did:web wallet
 * of a P-256 or Ed25519 key — the one method whose documents list a key beside the wallet's, under a key that signs
 * the DID-auth tokens governing the wallet (a secp256k1 did:web wallet signs Koblitz proofs with its own key).
 */
function checkBbsKey(method: string, keyType: KeyType, makesBbsKey: boolean): void {
  const why = 'a BBS assertion key is made with a did:web wallet of a P-256 or Ed25519 key by Generate Identity Wallet'
  if (!makesBbsKey)
    throw invalid(`walletConfig.bbsKey: ${why}; vaults, their wallets, claim DIDs, roles and a wallet’s later changes take none`)
  if (method !== 'web')
    throw invalid(
      `walletConfig.bbsKey: ${why}; a did:${method} DID ${method === 'key' || method === 'jwk' ? 'is its one key' : 'lists no such key'}`,
    )
  if (keyType !== 'P-256' && keyType !== 'Ed25519') throw invalid(`walletConfig.bbsKey: ${why}, not ${keyType}`)
}

/** Why `walletConfig.keyManagement` is taken by two operations only. */
const KEY_MANAGEMENT_CHOSEN_BY =
  'walletConfig.keyManagement: only Generate Identity Wallet and Create Role choose where a new wallet’s key is kept; ' +
  'a vault’s keyManagement decides for its wallets, and claim DIDs and a wallet’s later changes take none'

/**
 * 422 unless `walletConfig.keyManagement` may be given here (`choosesKeyManagement`: Generate Identity Wallet, Create
 * Role) and, for `HSM`, the service has an HSM ({@link hsmUnavailable}).
 */
function checkKeyManagement(keyManagement: 'ECS' | 'HSM', service: WalletsConfig, choosesKeyManagement: boolean): void {
  if (!choosesKeyManagement) throw invalid(KEY_MANAGEMENT_CHOSEN_BY)
  if (keyManagement === 'HSM' && service.hsm !== true) throw hsmUnavailable('walletConfig.keyManagement')
}

/** The 422 of an HSM key asked of a service without an HSM: it names the setting that gives it one. */
export const hsmUnavailable = (field: string) =>
  invalid(
    `${field}: HSM keys need the service's PKCS#11 module, and none is configured ` +
      "(the serve config's `hsm.module`, or `--hsm-module`; embedded: `IdentityService.create({ hsm: pkcs11({ ... }) })`)",
  )

/** The key backend holding a new wallet's key under `keyManagement` (`hsm` for HSM, else the service's default). */
export const keyBackendOf = (keyManagement: string | undefined): { backend?: string } =>
  keyManagement === 'HSM' ? { backend: HSM_BACKEND } : {}

/**
 * {@link checkWalletConfig} for a change to an existing wallet: `config` (the request's over its vault's template) is
 * checked as the wallet's own method and key type (a did:key or did:jwk DID takes no `txsInput`); a request naming
 * another method or key type than the wallet's is 422 (a wallet's DID and key never change).
 */
export function checkConfigOfWallet(
  wallet: Pick<WalletRecord, 'did' | 'didMethod' | 'keyType'>,
  request: WalletConfig,
  config: WalletConfig | undefined,
  service: WalletsConfig,
): void {
  const keyType = wallet.keyType ?? 'secp256k1'
  if (request.didMethod !== undefined && request.didMethod !== wallet.didMethod)
    throw invalid(`walletConfig.didMethod: ${wallet.did} is a did:${wallet.didMethod} DID; a wallet's DID method cannot change`)
  if (request.keyType !== undefined && request.keyType !== keyType)
    throw invalid(`walletConfig.keyType: the key of ${wallet.did} is ${keyType}; a wallet's key type cannot change`)
  checkWalletConfig(config && { ...config, didMethod: wallet.didMethod, keyType }, service)
}

export const stripSlash = (url: string) => url.replace(/\/+$/, '')

/**
 * The network a new wallet's DID is made on: the service's network, unless `apiUrl` names
 * the registry endpoint of another configured network (call after {@link checkWalletConfig}).
 */
export function networkForNewWallet(ctx: Pick<WalletsContext, 'config' | 'registries'>, config: WalletConfig | undefined): EthrNetwork {
  const apiUrl = config?.apiUrl === undefined ? undefined : stripSlash(config.apiUrl)
  if (apiUrl === undefined || ctx.registries.forNetwork(ctx.config.network.name)?.endpoint === apiUrl) return ctx.config.network
  const network = ctx.config.networks.find((n) => ctx.registries.forNetwork(n.name)?.endpoint === apiUrl)
  if (!network) throw invalid('walletConfig.apiUrl: not a registry endpoint configured in this service')
  return network
}

/** The registry of `did`'s network; 422 when `apiUrl` names another registry. */
export function registryForDid(ctx: Pick<WalletsContext, 'registries'>, did: string, config: WalletConfig | undefined): DidRegistry {
  const network = parseEthrDid(did)?.network
  const registry = network === undefined ? undefined : ctx.registries.forNetwork(network)
  if (!registry) throw invalid(`${did}: no DID registry is configured for its network`)
  if (config?.apiUrl !== undefined && stripSlash(config.apiUrl) !== registry.endpoint) {
    throw invalid(`walletConfig.apiUrl: that registry does not record DIDs of network ${network}`)
  }
  return registry
}

/**
 * The wallet whose key signs as `wallet`'s DID (credentials, presentations, status lists): for did:ethr the DID's
 * current owner ({@link ownerWallet}; `knownOwner` the owner a token of this request proved), for other methods the
 * wallet itself (did:key and did:jwk never change hands). 403 when the service holds no such key for the tenant.
 */
export async function signingWallet(
  ctx: Pick<WalletsContext, 'registries' | 'signers' | 'storage'>,
  wallet: WalletRecord,
  knownOwner?: string,
): Promise<WalletRecord> {
  if (wallet.did.startsWith('did:ethr:')) return ownerWallet(ctx, wallet, registryForDid(ctx, wallet.did, undefined), knownOwner)
  if (!ctx.signers.canSign(wallet)) throw forbidden(`the service holds no key of ${wallet.did} for the tenant: it cannot sign as it`)
  return wallet
}

/**
 * Checks (before anything is written) that `config` can apply to the new wallet `made`, and returns what
 * applies it once the wallet exists: its `txsInput` through the registry of its DID's network (did:ethr), or the
 * service's did:web documents (did-web-updates.ts). did:key and did:jwk DIDs never change: their `txsInput` is 422.
 * The applier resolves to undefined when there is nothing to apply. The caller's tokens count as member
 * approvals of the signatures when the wallet is an MPC wallet; each change is audited as its act.
 * `made`'s network and `apiUrl` were checked when its DID was made (`networkForNewWallet`), so without `txsInput`
 * nothing is looked up here.
 */
export function walletConfigApplier(
  ctx: Pick<WalletsContext, 'audit' | 'keyManager' | 'now' | 'onError' | 'onItemFailure' | 'registries' | 'signers' | 'storage'>,
  made: Pick<WalletRecord, 'did' | 'didMethod'>,
  config: WalletConfig | undefined,
  caller: Caller,
): (wallet: WalletRecord) => Promise<RegistryReport | undefined> {
  const txs = config?.txsInput ?? []
  if (made.didMethod === 'web') return didWebApplier(ctx, txs, caller)
  if (made.didMethod !== 'ethr') {
    if (txs.length > 0) throw invalid(`walletConfig.txsInput: did:${made.didMethod} DIDs take no txsInput updates here`)
    return async () => undefined
  }
  if (txs.length === 0) return async () => undefined
  const registry = registryForDid(ctx, made.did, config)
  return (wallet) => applyTxs(ctx, wallet, registry, txs, caller)
}
