/**
 * did:ethr identifiers: `did:ethr:<network>:<identifier>` (the network part is omitted for
 * `mainnet`, as the method specifies), where the identifier is an Ethereum address (`0x` + 40
 * hex) or a secp256k1 public key — compressed (`0x` + 66 hex, as Veramo makes them) or
 * uncompressed (`0x` + 130 hex).
 *
 * A did:ethr **principal** is (network, address): the public-key forms of a key and the
 * address form of its address name the same ERC-1056 identity, so they are one principal for
 * control, ownership and everything the service indexes ({@link principalOf}). What a caller
 * spelled is kept where a response echoes it ({@link normalizeDid} only checksums addresses).
 */
import { SigningKey, computeAddress, getAddress, isAddress } from 'ethers'
import { ETHR_DID } from './syntax.js'

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
  /** The canonical spelling of the DID: addresses in EIP-55, public keys as given; no `mainnet:` part. */
  did: string
  /** The principal: the address form of the DID (`did` itself for an address DID). */
  principal: string
  network: string
  /** EIP-55 address of the identity (of the key, for a public-key DID). */
  address: string
  /**
   * Public-key DIDs: the key the DID document lists as `#controllerKey` (0x-hex) — the DID's own
   * spelling of a compressed key, the compressed form of an uncompressed one.
   */
  controllerKey?: string
}

/** The DID of `address` (any case) on `network`. */
export function ethrDid(network: EthrNetwork, address: string): string {
  return didOfChecksummed(network, getAddress(address))
}

/** The DID of an address already in its EIP-55 spelling (e.g. from `addressOf`). */
export function didOfChecksummed(network: EthrNetwork, address: string): string {
  return didOn(network.name, address)
}

const didOn = (network: string, identifier: string) =>
  network === 'mainnet' ? `did:ethr:${identifier}` : `did:ethr:${network}:${identifier}`

/**
 * The EIP-55 spelling of an address (`0x` + 40 hex: all lowercase, all uppercase, or with a
 * valid checksum), or undefined when it is not one.
 */
export function eip55Address(raw: string): string | undefined {
  if (checksummedAddresses.has(raw)) return checksummedAddresses.get(raw)
  // A checksum is a keccak hash (two when checking a mixed-case spelling): verifying a JWT or a
  // proof asks for the same few addresses of its documents on every request.
  const address = /^0x[0-9a-fA-F]{40}$/.test(raw) && isAddress(raw) ? getAddress(raw.toLowerCase()) : undefined
  if (checksummedAddresses.size >= PARSED_MAX) checksummedAddresses.delete(checksummedAddresses.keys().next().value!)
  checksummedAddresses.set(raw, address)
  return address
}

/** {@link eip55Address}'s answers by spelling. */
const checksummedAddresses = new Map<string, string | undefined>()

/** Parsed DIDs by spelling: parsing hashes (a checksum, a key's address), and every request parses the same few DIDs. */
const parsed = new Map<string, ParsedEthrDid>()
const PARSED_MAX = 10_000

/**
 * Parses a did:ethr DID in address or public-key form (hex in any case), or returns undefined:
 * also for a key of another length, or one that is not a point of secp256k1.
 */
export function parseEthrDid(did: string): ParsedEthrDid | undefined {
  const hit = parsed.get(did)
  if (hit) return { ...hit }
  const m = ETHR_DID.exec(did)
  if (!m) return undefined
  const network = m[1] ?? 'mainnet'
  const result = m[2].length === 42 ? addressDid(network, m[2]) : publicKeyDid(network, m[2])
  if (!result) return undefined
  if (parsed.size >= PARSED_MAX) parsed.delete(parsed.keys().next().value!)
  parsed.set(did, result)
  return { ...result }
}

function addressDid(network: string, raw: string): ParsedEthrDid | undefined {
  const address = eip55Address(raw)
  if (address === undefined) return undefined
  const did = didOn(network, address)
  return { did, principal: did, network, address }
}

/** A public-key DID: 33 bytes with prefix 02/03, or 65 bytes with prefix 04, on the curve. */
function publicKeyDid(network: string, key: string): ParsedEthrDid | undefined {
  const prefix = key.slice(2, 4)
  if (key.length === 68 ? prefix !== '02' && prefix !== '03' : prefix !== '04') return undefined
  let compressed: string
  try {
    compressed = SigningKey.computePublicKey(key, true)
  } catch {
    return undefined
  }
  const address = computeAddress(compressed)
  const controllerKey = key.length === 68 ? key : compressed
  return { did: didOn(network, key), principal: didOn(network, address), network, address, controllerKey }
}

/** The canonical spelling of a DID: did:ethr addresses checksummed (public keys as given); other DIDs unchanged. */
export function normalizeDid(did: string): string {
  return parseEthrDid(did)?.did ?? did
}

/**
 * The principal a DID names, as the service compares and indexes DIDs: a did:ethr DID in
 * address or public-key form → its address form (EIP-55); other DIDs unchanged.
 */
export function principalOf(did: string): string {
  return parseEthrDid(did)?.principal ?? did
}
