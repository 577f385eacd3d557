/**
 * What the methods derived from their key (did:key, did:jwk) share: resolution results, the
 * refusal of updates, and the keys their documents list for authentication.
 */
import type { DIDDocument, DIDResolutionResult, VerificationMethod } from 'did-resolver'
import { invalid } from '../../errors.js'
import { KEY_TYPES, keyTypeOfJwk, type KeyType, type PublicJwk } from '../../keys/key-types.js'
import { decodeMultikey } from './multikey.js'
import type { ControllingKey } from './port.js'
import { publicJwkOf } from './public-key-bytes.js'

const SIGNING = new Set<string>(KEY_TYPES)

/** A document found. */
export function resolved(didDocument: DIDDocument): DIDResolutionResult {
  return { didResolutionMetadata: { contentType: 'application/did+ld+json' }, didDocument, didDocumentMetadata: {} }
}

/** A resolution that failed (`invalidDid`, `notFound`, …), with a message that names no secret. */
export function unresolved(error: string, message: string): DIDResolutionResult {
  return { didResolutionMetadata: { error, message }, didDocument: null, didDocumentMetadata: {} }
}

/** The DID of a DID URL (without path, query or fragment). */
export const didOf = (didUrl: string): string => didUrl.split(/[/?#]/, 1)[0]

/** The 422 for a `txsInput` on a DID of a method whose documents cannot change. */
export function immutable(method: string) {
  return invalid(
    `txsInput: a did:${method} DID is derived from its key and cannot change (no services, delegates or owners); ` +
      'use did:ethr or did:web for a DID that updates',
  )
}

/** The keys a document lists under `authentication` (by reference or embedded), as JWKs. */
export function authenticationKeys(document: DIDDocument, keyOf: (vm: VerificationMethod) => PublicJwk | undefined): ControllingKey[] {
  return relationshipKeys(document, ['authentication'], keyOf)
}

/** The keys (by `keyOf`) of the verification methods that `relationships` of `document` name, in the order listed. */
export function relationshipKeys(
  document: DIDDocument,
  relationships: ReadonlyArray<'authentication' | 'assertionMethod'>,
  keyOf: (vm: VerificationMethod) => PublicJwk | undefined,
): ControllingKey[] {
  const methods = document.verificationMethod ?? []
  return relationships
    .flatMap((relationship) => document[relationship] ?? [])
    .flatMap((entry) => {
      const vm = typeof entry === 'string' ? methods.find((m) => m.id === entry) : entry
      const publicJwk = vm === undefined ? undefined : keyOf(vm)
      return vm !== undefined && publicJwk !== undefined ? [{ methodId: vm.id, publicJwk }] : []
    })
}

/**
 * A verification method's key as a JWK when it is a key type didvault uses: its `publicKeyJwk`, or the
 * `publicKeyMultibase` of a `Multikey` (did:key's, and did:web's P-256 and Ed25519 keys).
 */
export function jwkOfMethod(vm: VerificationMethod): PublicJwk | undefined {
  if (vm.type === 'Multikey' && vm.publicKeyMultibase !== undefined) return jwkOfMultikey(vm.publicKeyMultibase)
  const jwk = vm.publicKeyJwk as Record<string, unknown> | undefined
  if (jwk === undefined || keyTypeOfJwk(jwk) === undefined) return undefined
  const { kty, crv, x, y } = jwk as unknown as PublicJwk
  return y === undefined ? { kty, crv, x } : { kty, crv, x, y }
}

/** The JWK of a Multikey value of a key type didvault signs with; undefined for another codec or a malformed key. */
export function jwkOfMultikey(value: string): PublicJwk | undefined {
  const decoded = decodeMultikey(value)
  if (decoded === undefined || !SIGNING.has(decoded.type)) return undefined
  try {
    return publicJwkOf(decoded.type as KeyType, decoded.bytes)
  } catch {
    return undefined
  }
}
