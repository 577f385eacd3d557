/**
 * Resolution of a `walletConfig`: the vault's template, extended or overridden by the
 * request's, checked against what the service is configured for. No request is ever sent
 * to a host the caller names: `apiUrl` must be one of the configured registry endpoints.
 */
import { invalid } from '../errors.js'
import { parseEthrDid } from '../did/ethr.js'
import type { WalletConfig } from '../schemas/wallet-config.js'
import type { ServiceConfig } from './context.js'

/** Merges `override` over `template` field by field (a given `txsInput` replaces the template's). */
export function mergeWalletConfig(template?: WalletConfig, override?: WalletConfig): WalletConfig | undefined {
  if (!template && !override) return undefined
  const merged: WalletConfig = { ...template }
  for (const [k, v] of Object.entries(override ?? {})) if (v !== undefined) (merged as Record<string, unknown>)[k] = v
  return merged
}

/** Rejects (422) a config naming an unknown DID method or registry endpoint, or a newOwner that is not an address-bearing DID. */
export function checkWalletConfig(config: WalletConfig | undefined, service: ServiceConfig): void {
  if (!config) return
  if (config.didMethod !== undefined && !service.didMethods.includes(config.didMethod)) {
    throw invalid(`walletConfig.didMethod: unsupported DID method "${config.didMethod}" (supported: ${service.didMethods.join(', ')})`)
  }
  if (config.apiUrl !== undefined && !service.apiUrls.includes(stripSlash(config.apiUrl))) {
    throw invalid('walletConfig.apiUrl: not a registry endpoint configured in this service')
  }
  config.txsInput?.forEach((tx, i) => {
    if (tx.newOwner !== undefined) {
      const owner = parseEthrDid(tx.newOwner)
      if (!owner || !service.networks.some((n) => n.name === owner.network)) {
        throw invalid(`walletConfig.txsInput.${i}.newOwner: must be a did:ethr DID with an address on a configured network`)
      }
    }
  })
}

export const stripSlash = (url: string) => url.replace(/\/+$/, '')
