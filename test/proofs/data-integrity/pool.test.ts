/**
 * ecdsa-rdfc-2019 (P-256) and eddsa-rdfc-2022 canonicalize through a {@link CanonicalHasher}: given the service's
 * worker pool's (a real one, every input sent to its worker), signing and verifying run their RDF canonicalization
 * there, and the pool's bounds refuse an input before the key port is asked to sign.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { KeySigner } from '../../../src/keys/signer.js'
import { ecdsaRdfc2019, eddsaRdfc2022 } from '../../../src/proofs/data-integrity/index.js'
import { DEFAULT_JSONLD_LIMITS } from '../../../src/proofs/jsonld/bounds.js'
import { CanonicalizationPool } from '../../../src/proofs/jsonld/canonicalization-pool.js'
import { openSealedKeys, portIdentity, resolver } from './helpers.js'

let port: Awaited<ReturnType<typeof openSealedKeys>>
const pool = new CanonicalizationPool({ threads: 1, inlineMaxNodes: 0 })
beforeAll(async () => {
  port = await openSealedKeys()
})
afterAll(async () => {
  await pool.close()
  await port.close()
})

const credential = (issuer: string, name: string) => ({
  '@context': ['https://www.w3.org/ns/credentials/v2'],
  type: ['VerifiableCredential'],
  issuer,
  validFrom: '2026-01-01T00:00:00Z',
  credentialSubject: { id: 'did:example:holder', name },
})

describe('RDF cryptosuites in the canonicalization pool', () => {
  for (const [suite, keyType] of [
    [ecdsaRdfc2019, 'P-256'],
    [eddsaRdfc2022, 'Ed25519'],
  ] as const) {
    it(`${suite.cryptosuite}: sign and verify canonicalize in the pool's worker`, async () => {
      const hasher = pool.hasherFor('tenant-a', DEFAULT_JSONLD_LIMITS)
      const { signer, did, verificationMethod } = await portIdentity(port.keys, keyType)
      const before = pool.stats().completed
      const signed = await suite.sign(credential(did, `pool ${suite.cryptosuite}`), signer, { verificationMethod, hasher })
      const afterSigning = pool.stats().completed
      expect(afterSigning).toBeGreaterThan(before)
      const verified = await suite.verify(signed, signed.proof as Record<string, unknown>, {
        resolver,
        proofPurpose: 'assertionMethod',
        controller: did,
        hasher,
      })
      expect(verified).toMatchObject({ verified: true })
      const changed = { ...signed, credentialSubject: { id: 'did:example:holder', name: 'changed in the pool' } }
      expect(
        await suite.verify(changed, changed.proof as Record<string, unknown>, { resolver, proofPurpose: 'assertionMethod', hasher }),
      ).toMatchObject({
        verified: false,
        check: 'signature',
      })
      expect(pool.stats().completed).toBeGreaterThan(afterSigning)
    })

    it(`${suite.cryptosuite}: the hasher's bounds refuse a document before anything is signed`, async () => {
      const hasher = pool.hasherFor('tenant-a', { ...DEFAULT_JSONLD_LIMITS, maxNodes: 8 })
      const { signer, did, verificationMethod } = await portIdentity(port.keys, keyType)
      let calls = 0
      const counted: KeySigner = { ...signer, sign: (alg, data) => (calls++, signer.sign(alg, data)) }
      await expect(suite.sign(credential(did, 'too many values'), counted, { verificationMethod, hasher })).rejects.toMatchObject({
        statusCode: 422,
        errorType: 'VALIDATION_ERROR',
      })
      expect(calls).toBe(0)
    })
  }
})
