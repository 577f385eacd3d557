/**
 * Resolution of a `walletConfig`: the vault's template, extended or overridden by the
 * request's, checked against what the service is configured for. No request is ever sent
 * to a host the caller names: `apiUrl` must be one of the configured registry endpoints.
 */
import { invalid } from '../errors.js'
import { parseEthrDid, type EthrNetwork } from '../did/methods/ethr/index.js'
import type { DidRegistry } from '../did/methods/ethr/index.js'
import type { WalletConfig } from './config-schemas.js'
import type { WalletRecord } from './records.js'
import type { Caller } from '../auth/context.js'
import { applyTxs, type RegistryReport } from './did-updates.js'
import { didWebApplier } from './did-web-updates.js'
import type { WalletsConfig, WalletsContext } from './context.js'

/** Merges `override` over `template` field by field (a given `txsInput` replaces the template's). */
export function mergeWalletConfig(template?: WalletConfig, override?: WalletConfig): WalletConfig | undefined {
  if (!template && !override) return undefined
  const merged: WalletConfig = { ...template }
  for (const [k, v] of Object.entries(override ?? {})) if (v !== undefined) (merged as Record<string, unknown>)[k] = v
  return merged
}

/**
 * Rejects (422) a config naming an unknown DID method or registry endpoint, or a newOwner that is
 * not a did:ethr DID (address or public key) of a configured network.
 */
export function checkWalletConfig(config: WalletConfig | undefined, service: WalletsConfig): void {
  if (!config) return
  if (config.didMethod !== undefined && !service.didMethods.includes(config.didMethod)) {
    throw invalid(`walletConfig.didMethod: unsupported DID method "${config.didMethod}" (supported: ${service.didMethods.join(', ')})`)
  }
  if (config.apiUrl !== undefined && !service.apiUrls.includes(stripSlash(config.apiUrl))) {
    throw invalid('walletConfig.apiUrl: not a registry endpoint configured in this service')
  }
  // did:web checks its own txsInput (did-web-updates.ts); these are did:ethr's.
  if (config.didMethod === 'web') return
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
 * Checks (before anything is written) that `config` can apply to `did`, and returns what
 * applies it once the wallet exists: its `txsInput` through the registry of `did`'s network (a did:web DID: through
 * the service's did:web documents, did-web-updates.ts).
 * The applier resolves to undefined when there is nothing to apply. The caller's tokens count as member
 * approvals of the signatures when the wallet is an MPC wallet; each change is audited as its act.
 */
export function walletConfigApplier(
  ctx: Pick<WalletsContext, 'audit' | 'keyManager' | 'now' | 'onError' | 'onItemFailure' | 'registries' | 'signers' | 'storage'>,
  did: string,
  config: WalletConfig | undefined,
  caller: Caller,
): (wallet: WalletRecord) => Promise<RegistryReport | undefined> {
  const txs = config?.txsInput ?? []
  if (did.startsWith('did:web:')) return didWebApplier(ctx, txs, caller)
  const registry = registryForDid(ctx, did, config)
  return async (wallet) => (txs.length === 0 ? undefined : applyTxs(ctx, wallet, registry, txs, caller))
}
