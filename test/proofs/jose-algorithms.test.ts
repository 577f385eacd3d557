/**
 * The JWT side's algorithm → verifier table (`src/proofs/jose-algorithms.ts`), which the DID-signed JWT verifier and
 * the JWS-by-DID check share: each algorithm verifies a signature the key port made, reads its key from the signer's
 * did:key document, refuses a key of another curve (even one whose signature scheme is the same ECDSA over SHA-256),
 * and an algorithm without a row has no verifier.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { KeyType, SignatureAlgorithm } from '../../src/keys/key-types.js'
import { JOSE_VERIFIERS, joseVerifierOf } from '../../src/proofs/jose-algorithms.js'
import { jwsSigners } from '../../src/proofs/jws-by-did.js'
import { openSealedKeys, portIdentity, resolver } from './data-integrity/helpers.js'

let port: Awaited<ReturnType<typeof openSealedKeys>>
const identities = {} as Record<KeyType, Awaited<ReturnType<typeof portIdentity>>>
beforeAll(async () => {
  port = await openSealedKeys()
  for (const type of ['secp256k1', 'P-256', 'Ed25519'] as const) identities[type] = await portIdentity(port.keys, type)
})
afterAll(() => port.close())

const ROWS: Array<[SignatureAlgorithm, KeyType]> = [
  ['ES256K', 'secp256k1'],
  ['ES256K-R', 'secp256k1'],
  ['ES256', 'P-256'],
  ['EdDSA', 'Ed25519'],
]
const input = 'eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJkaWQ6ZXhhbXBsZToxIn0'
const bytes = (text: string) => new TextEncoder().encode(text)
const methodOf = (type: KeyType) => identities[type].document.verificationMethod![0]

describe('the JOSE algorithm → verifier table', () => {
  it('has a row for exactly the algorithms the key port signs under', () => {
    expect(Object.keys(JOSE_VERIFIERS).sort()).toEqual(['ES256', 'ES256K', 'ES256K-R', 'EdDSA'])
  })

  for (const [alg, keyType] of ROWS) {
    it(`${alg}: verifies the key port's signature with the did:key document's key and the JWK; not over other bytes`, async () => {
      const verifier = joseVerifierOf(alg)!
      expect(verifier.keyTypes).toEqual([keyType])
      const { signer } = identities[keyType]
      const signature = await signer.sign(alg, bytes(input))
      expect(signature.length).toBe(alg === 'ES256K-R' ? 65 : 64)
      const key = verifier.keyOf(methodOf(keyType))
      expect(key).toBeDefined()
      expect(verifier.verify(input, signature, key!)).toBe(true)
      expect(verifier.verify(bytes(input), signature, signer.publicJwk)).toBe(true)
      expect(verifier.verify(`${input}x`, signature, key!)).toBe(false)
    })

    it(`${alg}: a key of another curve is refused, as a method and as a JWK`, async () => {
      const verifier = JOSE_VERIFIERS[alg]
      for (const other of (['secp256k1', 'P-256', 'Ed25519'] as const).filter((t) => t !== keyType)) {
        expect(verifier.keyOf(methodOf(other))).toBeUndefined()
        // The other key's own signature, checked under this algorithm with that key: never accepted.
        const otherAlg = ROWS.find(([, t]) => t === other)![0]
        const theirs = await identities[other].signer.sign(otherAlg, bytes(input))
        expect(verifier.verify(input, theirs, identities[other].signer.publicJwk)).toBe(false)
        expect(verifier.verify(input, theirs.subarray(0, 64), identities[other].signer.publicJwk)).toBe(false)
      }
    })
  }

  it('an algorithm without a row has no verifier, and the JWS-by-DID check refuses it', async () => {
    for (const alg of ['none', 'HS256', 'RS256', 'ES384', 'ES256k', '__proto__', 'toString', 7, undefined]) {
      expect(joseVerifierOf(alg)).toBeUndefined()
    }
    const { did } = identities['P-256']
    const refused = await jwsSigners({ alg: 'ES384', kid: undefined, issuer: did }, { resolver })
    expect(refused).toMatchObject({ found: false, reason: 'alg' })
  })
})
