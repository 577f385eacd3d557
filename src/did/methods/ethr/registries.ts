/**
 * Resolution of did:ethr DIDs through the service's registries: each configured network has
 * one {@link DidRegistry} (embedded, or on chain when the network has `rpcUrl` + `registry`),
 * and a DID goes to the registry of the network it names. Resolution never contacts a host
 * other than a configured network's `rpcUrl`.
 */
import { Resolver, type DIDResolver } from 'did-resolver'
import type { StorageAdapter } from '../../../storage/port.js'
import { didOfChecksummed, parseEthrDid, type EthrNetwork } from './ethr.js'
import { EmbeddedRegistry } from './registry/embedded.js'
import { OnchainRegistry, isOnchain, type OnchainRegistryOptions } from './registry/onchain.js'
import { invalidEthrDid, resolutionFailure, type DidRegistry } from './registry/port.js'

/** The registries of a set of networks, by network name and by endpoint. */
export class Registries {
  readonly #byNetwork = new Map<string, DidRegistry>()

  constructor(registries: DidRegistry[]) {
    for (const r of registries) this.#byNetwork.set(r.network.name, r)
  }

  /**
   * One registry per network: networks with `rpcUrl` and `registry` get an on-chain registry
   * (with `onchain[network.name]` as its options), the others the embedded registry over `storage`.
   */
  static forNetworks(
    networks: EthrNetwork[],
    storage: StorageAdapter,
    now: () => number,
    onchain: Record<string, OnchainRegistryOptions> = {},
  ): Registries {
    return new Registries(
      networks.map((n) => (isOnchain(n) ? new OnchainRegistry(n, onchain[n.name]) : new EmbeddedRegistry(storage, n, now))),
    )
  }

  /** The registry of a network. */
  forNetwork(name: string): DidRegistry | undefined {
    return this.#byNetwork.get(name)
  }

  /** Every registry endpoint (`local` and the on-chain networks' `rpcUrl`s), for `walletConfig.apiUrl`. */
  get endpoints(): string[] {
    return [...new Set([...this.#byNetwork.values()].map((r) => r.endpoint))]
  }

  /**
   * The did:ethr DIDs handed to one of `owners` (current owner one of them, not the DID's own
   * key), at most `limit` per network, from the registries that can list them by owner (the
   * embedded ones; a chain cannot be asked who owns what).
   */
  async handedTo(owners: readonly string[], limit: number): Promise<string[]> {
    const lists = await Promise.all(
      [...this.#byNetwork.values()].map(async (r) =>
        r.identitiesHandedTo ? (await r.identitiesHandedTo(owners, limit)).map((identity) => didOfChecksummed(r.network, identity)) : [],
      ),
    )
    return lists.flat()
  }

  /** The did-resolver method resolver for `ethr`: a DID goes to its network's registry. */
  readonly ethr: DIDResolver = async (did, parsed, resolver, options) => {
    const id = parseEthrDid(did)
    if (!id) return invalidEthrDid(did)
    const registry = this.#byNetwork.get(id.network)
    if (!registry) return resolutionFailure('unknownNetwork', `No configuration for network: ${id.network}`)
    return registry.resolver(did, parsed, resolver, options)
  }
}

/** A did-resolver `Resolver` over the given registries. */
export function createResolver(registries: Registries): Resolver {
  return new Resolver({ ethr: registries.ethr }, { cache: false })
}
