/**
 * Finds, through a DID resolver, the keys a proof's `creator` / `verificationMethod` DID URL
 * stands for: a verification method of the DID's **current** document that the document
 * lists under `assertionMethod` — for did:ethr, the owner's `#controller` and the live
 * `veriKey`/`sigAuth` delegates. A key the document no longer lists (a former owner, an
 * expired or revoked delegate) signs nothing.
 */
import type { DIDDocument, Resolvable, VerificationMethod } from 'did-resolver'
import type { SigningKey } from './jsonld/index.js'

/** A `resolveSigningKeys` for JSON-LD verification over `resolver`. */
export function signingKeysResolver(resolver: Resolvable): (didUrl: string) => Promise<SigningKey[]> {
  return async (didUrl) => {
    const did = didUrl.split('#')[0]
    // A path, query or parameters would name something else than the DID's current document.
    if (/[/?;]/.test(did)) return []
    const { didDocument } = await resolver.resolve(did)
    if (!didDocument) return []
    const chosen = assertionMethods(didDocument).filter((m) => !didUrl.includes('#') || m.id === didUrl || `${did}${m.id}` === didUrl)
    return chosen.map((m) => ({ publicKeyHex: m.publicKeyHex, ethereumAddress: m.ethereumAddress, blockchainAccountId: m.blockchainAccountId }))
  }
}

/** The verification methods `document` lists under `assertionMethod` (by reference or embedded). */
function assertionMethods(document: DIDDocument): VerificationMethod[] {
  const methods = document.verificationMethod ?? []
  const absolute = (id: string) => (id.startsWith('#') ? `${document.id}${id}` : id)
  return (document.assertionMethod ?? []).flatMap((entry) => {
    if (typeof entry !== 'string') return [entry]
    const found = methods.find((m) => absolute(m.id) === absolute(entry))
    return found ? [found] : []
  })
}
