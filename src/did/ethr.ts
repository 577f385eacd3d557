/**
 * did:ethr identifiers: `did:ethr:<network>:<address>` (the network part is omitted for
 * `mainnet`, as the method specifies).
 */
import { getAddress, isAddress } from 'ethers'

/** An Ethereum network DIDs can live on. `registry` and `rpcUrl` matter to on-chain registries only. */
export interface EthrNetwork {
  /** Name used in DIDs, e.g. `dev` → `did:ethr:dev:0x…`. */
  name: string
  chainId: number
  /** JSON-RPC endpoint of an on-chain registry. May carry a provider's API key: it is never shown to callers. */
  rpcUrl?: string
  registry?: string
  /**
   * The public name callers give as `walletConfig.apiUrl` to choose this network's registry, and
   * that responses report. Default: the origin of `rpcUrl` (scheme, host and port — no path,
   * query or credentials, where providers put their keys).
   */
  apiUrl?: string
}

/** The default network: a local development chain. */
export const DEV_NETWORK: EthrNetwork = { name: 'dev', chainId: 1337 }

export interface ParsedEthrDid {
  did: string
  network: string
  /** EIP-55 address of the identity. */
  address: string
}

const ETHR = /^did:ethr:(?:([a-zA-Z0-9_.-]+):)?(0x[0-9a-fA-F]{40})$/

/** The DID of `address` (any case) on `network`. */
export function ethrDid(network: EthrNetwork, address: string): string {
  return didOfChecksummed(network, getAddress(address))
}

/** The DID of an address already in its EIP-55 spelling (e.g. from `addressOf`). */
export function didOfChecksummed(network: EthrNetwork, address: string): string {
  return network.name === 'mainnet' ? `did:ethr:${address}` : `did:ethr:${network.name}:${address}`
}

/** Parsed DIDs by spelling: parsing checksums the address (a keccak hash), and every request parses the same few DIDs. */
const parsed = new Map<string, ParsedEthrDid>()
const PARSED_MAX = 10_000

/** Parses an address-based did:ethr DID (any case), or returns undefined. */
export function parseEthrDid(did: string): ParsedEthrDid | undefined {
  const hit = parsed.get(did)
  if (hit) return { ...hit }
  const m = ETHR.exec(did)
  if (!m || !isAddress(m[2])) return undefined
  const network = m[1] ?? 'mainnet'
  const address = getAddress(m[2].toLowerCase())
  const result = { network, address, did: network === 'mainnet' ? `did:ethr:${address}` : `did:ethr:${network}:${address}` }
  if (parsed.size >= PARSED_MAX) parsed.delete(parsed.keys().next().value!)
  parsed.set(did, result)
  return { ...result }
}

/** The canonical spelling of a DID: did:ethr addresses checksummed; other DIDs unchanged. */
export function normalizeDid(did: string): string {
  return parseEthrDid(did)?.did ?? did
}
