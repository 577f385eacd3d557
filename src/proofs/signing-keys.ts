/**
 * Finds, through a DID resolver, the keys a proof's `creator` / `verificationMethod` DID URL
 * stands for: a verification method of the DID's **current** document that the document
 * lists under `assertionMethod` — for did:ethr, the owner's `#controller` and the live
 * `veriKey`/`sigAuth` delegates. A key the document no longer lists (a former owner, an
 * expired or revoked delegate) signs nothing.
 *
 * A secp256k1 method that gives its key in another encoding (`publicKeyBase58`, as did:key
 * documents do; `publicKeyMultibase`; `publicKeyJwk`) is given as `publicKeyHex`. A method that
 * names only an address whose public key `keys` knows (the service's wallets
 * and delegate keys, signers recovered before) is given as that public key, so its signatures
 * are checked by verification instead of recovering the signer (several times slower).
 */
import { extractPublicKeyBytes } from 'did-jwt'
import type { DIDDocument, Resolvable, VerificationMethod } from 'did-resolver'
import { bytesToHex } from '@noble/hashes/utils.js'
import { eip55Address } from '../did/methods/ethr/index.js'
import type { KnownKeys } from './known-keys.js'
import type { SigningKey } from './jsonld/index.js'

/**
 * A `resolveSigningKeys` for JSON-LD verification over `resolver`: the methods the document lists
 * under `relationship` (default `assertionMethod`; a presentation's proof: `authentication`).
 */
export function signingKeysResolver(
  resolver: Resolvable,
  keys?: Pick<KnownKeys, 'publicKeyHexFor'>,
  relationship: 'assertionMethod' | 'authentication' = 'assertionMethod',
): (didUrl: string) => Promise<SigningKey[]> {
  return async (didUrl) => {
    const did = didUrl.split('#')[0]
    // A path, query or parameters would name something else than the DID's current document.
    if (/[/?;]/.test(did)) return []
    const { didDocument } = await resolver.resolve(did)
    if (!didDocument) return []
    const chosen = methodsUnder(didDocument, relationship).filter(
      (m) => !didUrl.includes('#') || m.id === didUrl || `${did}${m.id}` === didUrl,
    )
    return Promise.all(chosen.map((m) => signingKeyOf(m, keys)))
  }
}

async function signingKeyOf(m: VerificationMethod, keys: Pick<KnownKeys, 'publicKeyHexFor'> | undefined): Promise<SigningKey> {
  const named = {
    publicKeyHex: m.publicKeyHex ?? secp256k1KeyHex(m),
    ethereumAddress: m.ethereumAddress,
    blockchainAccountId: m.blockchainAccountId,
  }
  if (named.publicKeyHex !== undefined || keys === undefined) return named
  const raw = m.ethereumAddress ?? m.blockchainAccountId?.split(':').pop()?.split('@')[0]
  const address = raw === undefined ? undefined : eip55Address(raw)
  const publicKeyHex = address === undefined ? undefined : await keys.publicKeyHexFor(address)
  // The directory's key hashes to the address: it stands for the method exactly.
  return publicKeyHex === undefined ? named : { publicKeyHex }
}

/** The verification methods `document` lists under `relationship` (by reference or embedded). */
export function methodsUnder(document: DIDDocument, relationship: 'assertionMethod' | 'authentication'): VerificationMethod[] {
  const methods = document.verificationMethod ?? []
  const absolute = (id: string) => (id.startsWith('#') ? `${document.id}${id}` : id)
  return (document[relationship] ?? []).flatMap((entry) => {
    if (typeof entry !== 'string') return [entry]
    const found = methods.find((m) => absolute(m.id) === absolute(entry))
    return found ? [found] : []
  })
}

/** The hex secp256k1 key of a method that gives it base58, multibase or as a JWK (as did:key documents do); undefined for other keys. */
export function secp256k1KeyHex(m: VerificationMethod): string | undefined {
  if (m.publicKeyBase58 === undefined && m.publicKeyMultibase === undefined && m.publicKeyJwk === undefined) return undefined
  try {
    const { keyBytes, keyType } = extractPublicKeyBytes(m)
    return keyType === 'Secp256k1' && (keyBytes.length === 33 || keyBytes.length === 65) ? bytesToHex(keyBytes) : undefined
  } catch {
    return undefined
  }
}
