/**
 * Offline resolution of `did:key` DIDs (W3C CCG did:key method) for secp256k1 and Ed25519
 * keys: the DID is the key (`did:key:z` + base58btc of multicodec prefix ‖ public key), so its
 * document is computed, never fetched. Other key types are `unsupportedPublicKeyType`.
 *
 * The multibase/multicodec decoding is did-jwt's (`multibaseToBytes`); secp256k1 points are
 * checked with @noble/curves. The documents use the verification method types did-jwt and
 * didvault's proof suites verify: `EcdsaSecp256k1VerificationKey2019` with `publicKeyHex`
 * (compressed) and `Ed25519VerificationKey2018` with `publicKeyBase58`.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { bytesToHex } from '@noble/hashes/utils.js'
import { bytesToBase58, multibaseToBytes } from 'did-jwt'
import type { DIDDocument, DIDResolutionResult, DIDResolver, VerificationMethod } from 'did-resolver'
import { DID_V1_URL } from '../credentials/jsonld/contexts.js'

const DID_KEY = /^did:key:(z[1-9A-HJ-NP-Za-km-z]{40,60})$/
const SECP256K1_2019_CONTEXT = 'https://w3id.org/security/suites/secp256k1-2019/v1'
const ED25519_2018_CONTEXT = 'https://w3id.org/security/suites/ed25519-2018/v1'

const failure = (error: string, message: string): DIDResolutionResult => ({ didResolutionMetadata: { error, message }, didDocument: null, didDocumentMetadata: {} })

/** The did-resolver method resolver for `key`. */
export const didKeyResolver: DIDResolver = async (_did, parsed) => {
  const did = `did:key:${parsed.id}`
  const match = DID_KEY.exec(did)
  if (!match) return failure('invalidDid', `Not a valid did:key: ${did.slice(0, 120)}`)
  const method = verificationMethodOf(did, match[1])
  if (typeof method === 'string') return failure(method === 'invalidPublicKey' ? 'invalidDid' : method, `${method}: ${did.slice(0, 120)}`)
  return {
    didResolutionMetadata: { contentType: 'application/did+ld+json' },
    didDocument: documentOf(did, method),
    didDocumentMetadata: {},
  }
}

/** The one verification method of a did:key, or why there is none. */
function verificationMethodOf(did: string, multibase: string): VerificationMethod | 'invalidPublicKey' | 'unsupportedPublicKeyType' {
  let decoded: ReturnType<typeof multibaseToBytes>
  try {
    decoded = multibaseToBytes(multibase)
  } catch {
    return 'invalidPublicKey'
  }
  const { keyBytes, keyType } = decoded
  const id = `${did}#${multibase}`
  if (keyType === 'Secp256k1' && keyBytes.length === 33) {
    try {
      secp256k1.Point.fromBytes(keyBytes)
    } catch {
      return 'invalidPublicKey'
    }
    return { id, type: 'EcdsaSecp256k1VerificationKey2019', controller: did, publicKeyHex: bytesToHex(keyBytes) }
  }
  if (keyType === 'Ed25519' && keyBytes.length === 32) {
    return { id, type: 'Ed25519VerificationKey2018', controller: did, publicKeyBase58: bytesToBase58(keyBytes) }
  }
  return keyType === undefined ? 'invalidPublicKey' : 'unsupportedPublicKeyType'
}

function documentOf(did: string, method: VerificationMethod): DIDDocument {
  const suite = method.type === 'Ed25519VerificationKey2018' ? ED25519_2018_CONTEXT : SECP256K1_2019_CONTEXT
  return {
    '@context': [DID_V1_URL, suite],
    id: did,
    verificationMethod: [method],
    authentication: [method.id],
    assertionMethod: [method.id],
    capabilityInvocation: [method.id],
    capabilityDelegation: [method.id],
  }
}
