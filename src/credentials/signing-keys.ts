/** Finds, through the DID resolver, the keys a proof's `creator` / `verificationMethod` DID URL stands for. */
import type { Resolvable } from 'did-resolver'
import type { SigningKey } from './jsonld/index.js'

/** A `resolveSigningKeys` for JSON-LD verification over the service's resolver. */
export function signingKeysResolver(resolver: Resolvable): (didUrl: string) => Promise<SigningKey[]> {
  return async (didUrl) => {
    const did = didUrl.split('#')[0]
    const { didDocument } = await resolver.resolve(did)
    const methods = didDocument?.verificationMethod ?? []
    const chosen = didUrl.includes('#') ? methods.filter((m) => m.id === didUrl || `${did}${m.id}` === didUrl) : methods
    return chosen.map((m) => ({ publicKeyHex: m.publicKeyHex, ethereumAddress: m.ethereumAddress, blockchainAccountId: m.blockchainAccountId }))
  }
}
