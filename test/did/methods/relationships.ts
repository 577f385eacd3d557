/**
 * A DID document reduced to what two did:key implementations must agree on whatever key types
 * they write: per verification relationship, the keys it lists (key type and bytes, EC points
 * compressed), read by did-jwt's `extractPublicKeyBytes` (not didvault's code).
 */
import { extractPublicKeyBytes } from 'did-jwt'
import type { DIDDocument, VerificationMethod } from 'did-resolver'
import { p256 } from '@noble/curves/nist.js'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { bytesToHex } from '@noble/hashes/utils.js'

export const RELATIONSHIPS = ['authentication', 'assertionMethod', 'capabilityInvocation', 'capabilityDelegation', 'keyAgreement'] as const

/** `type:hex` of a method's key (EC points compressed). */
export function keyOf(vm: VerificationMethod): string {
  const extracted = extractPublicKeyBytes(vm)
  const { keyBytes } = extracted
  // did-jwt knows no key type for the vectors' `P256Key2021` (base58 of the compressed point).
  const keyType = extracted.keyType ?? (vm.type === 'P256Key2021' ? 'P-256' : undefined)
  if (keyType === 'P-256') return `P-256:${bytesToHex(p256.Point.fromBytes(keyBytes).toBytes(true))}`
  if (keyType === 'Secp256k1') return `secp256k1:${bytesToHex(secp256k1.Point.fromBytes(keyBytes).toBytes(true))}`
  return `${keyType}:${bytesToHex(keyBytes)}`
}

/** Per relationship, the keys it lists (absent relationships: none). */
export function relationshipKeys(document: DIDDocument): Record<string, string[]> {
  const methods = document.verificationMethod ?? []
  return Object.fromEntries(
    RELATIONSHIPS.map((relationship) => [
      relationship,
      (document[relationship] ?? []).map((entry) => {
        const vm = typeof entry === 'string' ? methods.find((m) => m.id === entry) : entry
        if (vm === undefined) throw new Error(`${relationship}: ${JSON.stringify(entry)} names no verification method`)
        return keyOf(vm)
      }),
    ]),
  )
}
