/**
 * The ES256 (P-256) and EdDSA (Ed25519) keys of a DID
 * document's verification method (`publicKeyJwk`, `publicKeyMultibase` or `publicKeyBase58`, as
 * did-jwt reads them), as node:crypto key objects, each made once and remembered. The algorithm → verifier
 * table (`jose-algorithms.ts`) reads them.
 */
import { createPublicKey, type KeyObject } from 'node:crypto'
import { extractPublicKeyBytes } from 'did-jwt'
import type { VerificationMethod } from 'did-resolver'

/** The JOSE algorithms checked here. */
export type JoseAlgorithm = 'ES256' | 'EdDSA'

/** The verification-method types each algorithm's keys may come in (did-jwt's list). */
const METHOD_TYPES: Record<JoseAlgorithm, ReadonlySet<string>> = {
  ES256: new Set(['JsonWebKey2020', 'Multikey', 'EcdsaSecp256r1VerificationKey2019']),
  EdDSA: new Set(['Ed25519VerificationKey2018', 'Ed25519VerificationKey2020', 'JsonWebKey2020', 'Multikey']),
}

/** The key type (as did-jwt names it) and SubjectPublicKeyInfo DER prefix of each algorithm's keys, by key length. */
const SPKI: Record<JoseAlgorithm, { keyType: string; prefix: Record<number, string> }> = {
  ES256: {
    keyType: 'P-256',
    prefix: {
      33: '3039301306072a8648ce3d020106082a8648ce3d030107032200',
      65: '3059301306072a8648ce3d020106082a8648ce3d030107034200',
    },
  },
  EdDSA: { keyType: 'Ed25519', prefix: { 32: '302a300506032b6570032100' } },
}

const MAX_REMEMBERED = 10_000
const remembered = new Map<string, KeyObject | null>()

/** The key object of `vm` when it is a key `alg` signs with (OpenSSL checks the point); undefined otherwise. */
export function joseKeyOf(vm: VerificationMethod, alg: JoseAlgorithm): KeyObject | undefined {
  if (!METHOD_TYPES[alg].has(vm.type)) return undefined
  let bytes: Uint8Array
  try {
    const extracted = extractPublicKeyBytes(vm)
    if (extracted.keyType !== SPKI[alg].keyType) return undefined
    bytes = extracted.keyBytes
  } catch {
    return undefined
  }
  const prefix = SPKI[alg].prefix[bytes.length]
  if (prefix === undefined) return undefined
  const der = prefix + Buffer.from(bytes).toString('hex')
  let key = remembered.get(der)
  if (key === undefined) {
    try {
      key = createPublicKey({ key: Buffer.from(der, 'hex'), format: 'der', type: 'spki' })
    } catch {
      key = null
    }
    if (remembered.size >= MAX_REMEMBERED) remembered.delete(remembered.keys().next().value!)
    remembered.set(der, key)
  }
  return key ?? undefined
}
