/**
 * The key a wallet's proof names by a DID URL (`kid: did:jwk:…#0`, `did:key:…#z…`), found through the service's own
 * resolver (its registries, did:key / did:jwk offline, did:web from storage or the allowed origins): never a host the
 * wallet names.
 */
import type { Resolvable, VerificationMethod } from 'did-resolver'

/** Finds the verification method `didUrl` names in its DID's current document; undefined when none. */
export function keyResolverOf(resolver: Resolvable): (didUrl: string) => Promise<VerificationMethod | undefined> {
  return async (didUrl) => {
    const hash = didUrl.indexOf('#')
    if (hash <= 0) return undefined
    const did = didUrl.slice(0, hash)
    const { didDocument } = await resolver.resolve(did)
    const fragment = didUrl.slice(hash)
    return didDocument?.verificationMethod?.find((vm) => vm.id === didUrl || vm.id === fragment)
  }
}
