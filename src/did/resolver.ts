/**
 * Resolution of did:ethr DIDs without a chain. The document of an identity comes from its
 * current owner; until DID-document updates land (registry events), that is the identity
 * itself, which is exactly what an ERC-1056 registry answers for an untouched identity.
 */
import { Resolver, type DIDResolutionResult, type DIDResolver } from 'did-resolver'
import { ethrDocument } from './document.js'
import { parseEthrDid, type EthrNetwork } from './ethr.js'

/** Answers the current owner address of an identity on a network. */
export interface OwnerLookup {
  ownerOf(network: EthrNetwork, address: string): Promise<string>
}

/** Owner lookup for identities with no registry events: every identity owns itself. */
export const selfOwned: OwnerLookup = { ownerOf: async (_network, address) => address }

function failure(error: string, message: string): DIDResolutionResult {
  return { didResolutionMetadata: { error, message }, didDocument: null, didDocumentMetadata: {} }
}

/** A did-resolver method resolver for `ethr` over the given networks. */
export function embeddedEthrResolver(networks: EthrNetwork[], owners: OwnerLookup = selfOwned): DIDResolver {
  const byName = new Map(networks.map((n) => [n.name, n]))
  return async (did) => {
    const parsed = parseEthrDid(did)
    if (!parsed) return failure('invalidDid', `Not a valid did:ethr: ${did}`)
    const network = byName.get(parsed.network)
    if (!network) return failure('unknownNetwork', `No configuration for network: ${parsed.network}`)
    const owner = await owners.ownerOf(network, parsed.address)
    return {
      didResolutionMetadata: { contentType: 'application/did+ld+json' },
      didDocument: ethrDocument(parsed.did, owner, network),
      didDocumentMetadata: {},
    }
  }
}

/** A did-resolver `Resolver` for the service's networks. */
export function createResolver(networks: EthrNetwork[], owners?: OwnerLookup): Resolver {
  return new Resolver({ ethr: embeddedEthrResolver(networks, owners) }, { cache: false })
}
