/**
 * did:key documents (W3C CCG did:key method, v0.7): one `Multikey` verification method whose
 * `publicKeyMultibase` is the DID's own identifier, listed under `authentication`,
 * `assertionMethod`, `capabilityInvocation` and `capabilityDelegation`; `keyAgreement` lists the
 * same key for P-256 and secp256k1, and for Ed25519 the X25519 key derived from it (a second
 * `Multikey` method), as the method's test vectors have them.
 */
import type { DIDDocument, VerificationMethod } from 'did-resolver'
import type { KeyType } from '../../../keys/key-types.js'
import { encodeMultikey } from '../multikey.js'
import { x25519OfEd25519 } from '../public-key-bytes.js'

export const DID_KEY_CONTEXT = ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/multikey/v1']

/** The document of the did:key of `bytes` (a key of `type`, as did:key carries it). */
export function didKeyDocument(type: KeyType, bytes: Uint8Array): DIDDocument {
  const fingerprint = encodeMultikey(type, bytes)
  const did = `did:key:${fingerprint}`
  const method = (value: string): VerificationMethod => ({
    id: `${did}#${value}`,
    type: 'Multikey',
    controller: did,
    publicKeyMultibase: value,
  })
  const signing = method(fingerprint)
  const agreement = type === 'Ed25519' ? method(encodeMultikey('X25519', x25519OfEd25519(bytes))) : signing
  return {
    '@context': DID_KEY_CONTEXT,
    id: did,
    verificationMethod: agreement === signing ? [signing] : [signing, agreement],
    authentication: [signing.id],
    assertionMethod: [signing.id],
    capabilityInvocation: [signing.id],
    capabilityDelegation: [signing.id],
    keyAgreement: [agreement.id],
  }
}

/**
 * The document of the did:key of a BLS12-381 G2 key (96 bytes, compressed): its one `Multikey` method listed under
 * `assertionMethod` only — a BBS key signs bbs-2023 credentials and nothing else (no JWT, DID-auth token or
 * authentication proof), so it neither authenticates nor controls the DID.
 */
export function bbsDidKeyDocument(bytes: Uint8Array): DIDDocument {
  const fingerprint = encodeMultikey('Bls12381G2', bytes)
  const did = `did:key:${fingerprint}`
  const id = `${did}#${fingerprint}`
  return {
    '@context': DID_KEY_CONTEXT,
    id: did,
    verificationMethod: [{ id, type: 'Multikey', controller: did, publicKeyMultibase: fingerprint }],
    assertionMethod: [id],
  }
}
