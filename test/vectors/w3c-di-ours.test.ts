/**
 * The W3C Data Integrity vectors (test/fixtures/w3c-di/) run through didvault's suites (src/proofs/data-integrity/):
 * every vector proof verifies, a changed byte of its proof value or claim fails; the EdDSA vectors re-signed through
 * the key port (the vector key imported into the sealed backend) are byte-identical; the ECDSA P-256 ones re-signed
 * verify with ours; the ecdsa-sd-2023 derived documents are derived byte-identically from the base ones.
 *
 * The vectors' did:key documents are served by a fixed resolver, with no controller expected: no vector's issuer
 * controls its key.
 */
import type { DIDDocument } from 'did-resolver'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DATA_INTEGRITY_SUITES, ecdsaSd2023 } from '../../src/proofs/data-integrity/index.js'
import { registerContext } from '../../src/proofs/jsonld/contexts.js'
import { fixedResolver, openSealedKeys } from '../proofs/data-integrity/helpers.js'
import {
  didKeyDocumentOf,
  loadW3cProofVectors,
  privateJwkOf,
  W3C_DI_CONTEXTS,
  w3cDiSignerSuite,
  w3cDiVerifierSuite,
  w3cSdSuite,
  w3cVectorKeys,
  type JsonLdDocument,
  type W3cSigner,
  type W3cVerifier,
} from '../helpers/w3c-di-vectors.js'

for (const [url, context] of W3C_DI_CONTEXTS) registerContext(url, context)
const resolver = fixedResolver(w3cVectorKeys().map((key) => didKeyDocumentOf(key) as unknown as DIDDocument))

let port: Awaited<ReturnType<typeof openSealedKeys>>
beforeAll(async () => {
  port = await openSealedKeys()
})
afterAll(() => port.close())

const ours: W3cVerifier = async (document) => {
  const proof = document.proof as Record<string, unknown>
  const suite = DATA_INTEGRITY_SUITES[proof.cryptosuite as keyof typeof DATA_INTEGRITY_SUITES]
  const outcome = await suite.verify(document, proof, { resolver, proofPurpose: 'assertionMethod' })
  return outcome.verified
}

const oursSign: W3cSigner = async (unsigned, { keyPair, proofOptions }) => {
  const signer = await port.importJwk(privateJwkOf(keyPair))
  const suite = DATA_INTEGRITY_SUITES[proofOptions.cryptosuite]
  const { verificationMethod, created, proofPurpose } = proofOptions
  return (await suite.sign(unsigned, signer, { verificationMethod, created, proofPurpose })) as JsonLdDocument & {
    proof: Record<string, unknown>
  }
}

describe('W3C Data Integrity vectors, verified by didvault', () => {
  w3cDiVerifierSuite(ours)
})

describe('W3C EdDSA vectors, re-signed by didvault through the key port', () => {
  w3cDiSignerSuite(oursSign)
})

describe('W3C ECDSA P-256 vectors, re-signed by didvault through the key port', () => {
  for (const vector of loadW3cProofVectors().filter((v) => v.cryptosuite.startsWith('ecdsa-') && v.keyPair.curve === 'P-256')) {
    it(`${vector.name}: re-signed with the vector's options, verifies`, async () => {
      const signed = await oursSign(structuredClone(vector.unsigned), { keyPair: vector.keyPair, proofOptions: vector.proofOptions })
      const { proofValue: _ours, ...options } = signed.proof
      const { proofValue: _theirs, ...expected } = vector.signed.proof
      expect(options).toEqual(expected)
      expect(await ours(signed, { verifyAt: vector.verifyAt, keyPair: vector.keyPair })).toBe(true)
    })
  }
})

describe('W3C ecdsa-sd-2023 vectors, derived and verified by didvault', () => {
  w3cSdSuite(
    ours,
    (base, { selectivePointers }) => ecdsaSd2023.derive(base, selectivePointers) as ReturnType<Parameters<typeof w3cSdSuite>[1] & {}>,
  )
})
