/**
 * The Data Integrity suites (src/proofs/data-integrity/) with keys behind the key port (the sealed backend on a real
 * SQLite file) and issuers of did:key and did:jwk resolved by didvault's method registry: sign → verify per suite,
 * and each way a proof must fail — a changed claim, a proof copied onto another document, the wrong purpose, a
 * method not in the controller's current document or not under the purpose, another controller, a key type the
 * cryptosuite does not take (422 before signing), a challenge or domain not the expected one; EdDSA determinism;
 * ecdsa-sd-2023 base → derive → verify, with a claim added back or a mandatory one dropped refused.
 */
import type { DIDDocument } from 'did-resolver'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { UnavailableError } from '../../../src/errors.js'
import type { KeyType } from '../../../src/keys/key-types.js'
import type { KeySigner } from '../../../src/keys/signer.js'
import {
  DATA_INTEGRITY_SUITES,
  ecdsaSd2023,
  eddsaJcs2022,
  eddsaRdfc2022,
  ecdsaRdfc2019,
  type DataIntegritySuite,
  type JsonLdDocument,
} from '../../../src/proofs/data-integrity/index.js'
import { fixedResolver, openSealedKeys, portIdentity, resolver } from './helpers.js'

let port: Awaited<ReturnType<typeof openSealedKeys>>
beforeAll(async () => {
  port = await openSealedKeys()
})
afterAll(() => port.close())

const WHOLE: Array<[DataIntegritySuite, KeyType]> = [
  [DATA_INTEGRITY_SUITES['ecdsa-rdfc-2019'], 'P-256'],
  [DATA_INTEGRITY_SUITES['eddsa-rdfc-2022'], 'Ed25519'],
  [DATA_INTEGRITY_SUITES['ecdsa-jcs-2019'], 'P-256'],
  [DATA_INTEGRITY_SUITES['eddsa-jcs-2022'], 'Ed25519'],
]

function credential(issuer: string, name = 'Alice'): JsonLdDocument {
  return {
    '@context': ['https://www.w3.org/ns/credentials/v2'],
    type: ['VerifiableCredential'],
    issuer,
    validFrom: '2026-01-01T00:00:00Z',
    credentialSubject: { id: 'did:example:holder', name, description: 'BSc, 2026' },
  }
}

const proofOf = (document: JsonLdDocument) => document.proof as Record<string, unknown>
const assertion = (controller?: string) => ({ resolver, proofPurpose: 'assertionMethod' as const, controller })

/** A signer that counts its signatures. */
function counting(signer: KeySigner): KeySigner & { calls: number } {
  const counted = { ...signer, calls: 0, sign: (...args: Parameters<KeySigner['sign']>) => (counted.calls++, signer.sign(...args)) }
  return counted
}

for (const [suite, keyType] of WHOLE) {
  describe(`${suite.cryptosuite} (${keyType} key in the sealed backend)`, () => {
    for (const method of ['key', 'jwk'] as const) {
      it(`did:${method} issuer: sign → verify, bound to the issuer; a changed claim fails`, async () => {
        const { signer, did, verificationMethod } = await portIdentity(port.keys, keyType, method)
        const signed = await suite.sign(credential(did), signer, { verificationMethod })
        expect(proofOf(signed)).toMatchObject({
          type: 'DataIntegrityProof',
          cryptosuite: suite.cryptosuite,
          verificationMethod,
          proofPurpose: 'assertionMethod',
        })
        expect(proofOf(signed).proofValue).toMatch(/^z[1-9A-HJ-NP-Za-km-z]+$/)
        expect(await suite.verify(signed, proofOf(signed), assertion(did))).toEqual({ verified: true, verificationMethod, controller: did })
        const changed = structuredClone(signed) as unknown as JsonLdDocument & { credentialSubject: { name: string } }
        changed.credentialSubject.name = 'Mallory'
        expect(await suite.verify(changed, proofOf(changed), assertion(did))).toMatchObject({ verified: false, check: 'signature' })
      })
    }

    it('the proof to verify must be one of the document’s (a copy of it is): another is a proof failure', async () => {
      const { signer, did, verificationMethod } = await portIdentity(port.keys, keyType)
      const signed = await suite.sign(credential(did), signer, { verificationMethod })
      expect(await suite.verify(signed, structuredClone(proofOf(signed)), assertion(did))).toMatchObject({ verified: true })
      const elsewhere = { ...proofOf(signed), created: '2020-01-01T00:00:00Z' }
      expect(await suite.verify(signed, elsewhere, assertion(did))).toMatchObject({ verified: false, check: 'proof' })
    })

    it('a proof copied onto another document fails', async () => {
      const { signer, did, verificationMethod } = await portIdentity(port.keys, keyType)
      const signed = await suite.sign(credential(did), signer, { verificationMethod })
      const other = { ...credential(did, 'Bob'), proof: signed.proof }
      expect(await suite.verify(other, proofOf(other), assertion(did))).toMatchObject({ verified: false, check: 'signature' })
    })

    it('wrong purpose, a method not under the purpose, not in the current document, another controller: named failures', async () => {
      const { signer, did, verificationMethod, document } = await portIdentity(port.keys, keyType)
      const signed = await suite.sign(credential(did), signer, { verificationMethod })
      const proof = proofOf(signed)
      expect(await suite.verify(signed, proof, { resolver, proofPurpose: 'authentication' })).toMatchObject({
        verified: false,
        check: 'purpose',
      })
      const authenticationOnly: DIDDocument = { ...document, assertionMethod: [] }
      expect(await suite.verify(signed, proof, { ...assertion(did), resolver: fixedResolver([authenticationOnly]) })).toMatchObject({
        verified: false,
        check: 'purpose',
      })
      const rotated = (await portIdentity(port.keys, keyType)).document
      const withoutTheKey: DIDDocument = { ...rotated, id: did, verificationMethod: [], assertionMethod: [] }
      expect(await suite.verify(signed, proof, { ...assertion(did), resolver: fixedResolver([withoutTheKey]) })).toMatchObject({
        verified: false,
        check: 'verification-method',
      })
      expect(await suite.verify(signed, proof, { ...assertion(did), resolver: fixedResolver([]) })).toMatchObject({
        verified: false,
        check: 'verification-method',
      })
      const other = (await portIdentity(port.keys, keyType)).did
      expect(await suite.verify(signed, proof, assertion(other))).toMatchObject({ verified: false, check: 'controller' })
    })

    it('a key type the cryptosuite does not take: 422 before anything is signed', async () => {
      for (const wrong of (['P-256', 'Ed25519', 'secp256k1'] as const).filter((type) => type !== keyType)) {
        const identity = await portIdentity(port.keys, wrong)
        const signer = counting(identity.signer)
        await expect(
          suite.sign(credential(identity.did), signer, { verificationMethod: identity.verificationMethod }),
        ).rejects.toMatchObject({
          statusCode: 422,
          errorType: 'VALIDATION_ERROR',
        })
        expect(signer.calls).toBe(0)
      }
    })

    it('a presentation: authentication with challenge and domain; another challenge or domain fails', async () => {
      const { signer, did, verificationMethod } = await portIdentity(port.keys, keyType)
      const presentation = { '@context': ['https://www.w3.org/ns/credentials/v2'], type: ['VerifiablePresentation'], holder: did }
      const signed = await suite.sign(presentation, signer, {
        verificationMethod,
        proofPurpose: 'authentication',
        challenge: 'c-1',
        domain: 'example.org',
      })
      const options = { resolver, proofPurpose: 'authentication' as const, controller: did, challenge: 'c-1', domain: 'example.org' }
      expect(await suite.verify(signed, proofOf(signed), options)).toMatchObject({ verified: true })
      expect(await suite.verify(signed, proofOf(signed), { ...options, challenge: 'c-2' })).toMatchObject({
        verified: false,
        check: 'challenge',
      })
      expect(await suite.verify(signed, proofOf(signed), { ...options, domain: 'evil.example' })).toMatchObject({
        verified: false,
        check: 'domain',
      })
      expect(await suite.verify(signed, proofOf(signed), assertion(did))).toMatchObject({ verified: false, check: 'purpose' })
    })
  })
}

describe('EdDSA determinism', () => {
  for (const suite of [eddsaRdfc2022, eddsaJcs2022]) {
    it(`${suite.cryptosuite}: the same document, key and created give the same proofValue`, async () => {
      const { signer, did, verificationMethod } = await portIdentity(port.keys, 'Ed25519')
      const options = { verificationMethod, created: '2026-02-03T04:05:06Z' }
      const [first, second] = [await suite.sign(credential(did), signer, options), await suite.sign(credential(did), signer, options)]
      expect(proofOf(first).proofValue).toBe(proofOf(second).proofValue)
      expect(proofOf(first).created).toBe('2026-02-03T04:05:06Z')
    })
  }
})

describe('verification of a proof whose method has another key type', () => {
  it('an eddsa-rdfc-2022 proof naming a P-256 method: key-type', async () => {
    const ed = await portIdentity(port.keys, 'Ed25519')
    const p256 = await portIdentity(port.keys, 'P-256')
    const signed = await eddsaRdfc2022.sign(credential(ed.did), ed.signer, { verificationMethod: ed.verificationMethod })
    const forged = { ...signed, proof: { ...proofOf(signed), verificationMethod: p256.verificationMethod } }
    expect(await eddsaRdfc2022.verify(forged, proofOf(forged), { resolver, proofPurpose: 'assertionMethod' })).toMatchObject({
      verified: false,
      check: 'key-type',
    })
  })
})

describe('bad documents', () => {
  it('over the JSON-LD bounds, without the credentials v2 context, with an unknown context, a malformed created: 422', async () => {
    const { signer, did, verificationMethod } = await portIdentity(port.keys, 'P-256')
    const signer0 = counting(signer)
    const big = { ...credential(did), credentialSubject: { id: 'did:example:holder', name: Array.from({ length: 1_001 }, (_, i) => i) } }
    const v1 = { ...credential(did), '@context': ['https://www.w3.org/2018/credentials/v1'] }
    const unknown = { ...credential(did), '@context': ['https://www.w3.org/ns/credentials/v2', 'https://unknown.example/context'] }
    for (const document of [big, v1, unknown]) {
      await expect(ecdsaRdfc2019.sign(document, signer0, { verificationMethod })).rejects.toMatchObject({ statusCode: 422 })
    }
    await expect(ecdsaRdfc2019.sign(credential(did), signer0, { verificationMethod, created: 'yesterday' })).rejects.toMatchObject({
      statusCode: 422,
    })
    expect(signer0.calls).toBe(0)
    const signed = await ecdsaRdfc2019.sign(credential(did), signer, { verificationMethod })
    const grown = { ...big, proof: signed.proof }
    expect(await ecdsaRdfc2019.verify(grown, proofOf(grown), assertion(did))).toMatchObject({ verified: false, check: 'document' })
  })
})

describe('a failing key port', () => {
  it('its error reaches the caller unchanged (not a 422), for each cryptosuite', async () => {
    const down = new UnavailableError('key backend down', 'key backend unavailable')
    for (const [suite, keyType] of [...WHOLE, [ecdsaSd2023, 'P-256'] as const]) {
      const { signer, did, verificationMethod } = await portIdentity(port.keys, keyType)
      const failing: KeySigner = { ...signer, sign: () => Promise.reject(down) }
      await expect(suite.sign(credential(did), failing, { verificationMethod })).rejects.toBe(down)
    }
  })
})

describe('JCS cryptosuites and lone surrogates', () => {
  it('a document with a lone surrogate: 422 when signing, a document failure when verifying', async () => {
    const { signer, did, verificationMethod } = await portIdentity(port.keys, 'Ed25519')
    const lone = { ...credential(did), credentialSubject: { id: 'did:example:holder', name: 'A\uD800B' } }
    const counted = counting(signer)
    await expect(eddsaJcs2022.sign(lone, counted, { verificationMethod })).rejects.toMatchObject({ statusCode: 422 })
    expect(counted.calls).toBe(0)
    const paired = { ...credential(did), credentialSubject: { id: 'did:example:holder', name: 'A\uD83D\uDE00B' } }
    const signed = await eddsaJcs2022.sign(paired, signer, { verificationMethod })
    expect(await eddsaJcs2022.verify(signed, proofOf(signed), assertion(did))).toMatchObject({ verified: true })
    const broken = { ...lone, proof: signed.proof }
    expect(await eddsaJcs2022.verify(broken, proofOf(broken), assertion(did))).toMatchObject({ verified: false, check: 'document' })
  })
})

describe('ecdsa-sd-2023 (P-256 issuer key in the sealed backend)', () => {
  it('base proof with mandatory pointers → derive by a holder → verify; the base proof itself does not verify', async () => {
    const { signer, did, verificationMethod } = await portIdentity(port.keys, 'P-256')
    const base = await ecdsaSd2023.sign(credential(did), signer, { verificationMethod, mandatoryPointers: ['/issuer', '/validFrom'] })
    expect(String(proofOf(base).proofValue)).toMatch(/^u2V0A/)
    expect(await ecdsaSd2023.verify(base, proofOf(base), assertion(did))).toMatchObject({ verified: false, check: 'signature' })
    const derived = await ecdsaSd2023.derive(base, ['/credentialSubject/name'])
    expect(derived.credentialSubject).toEqual({ id: 'did:example:holder', name: 'Alice' })
    expect(derived.issuer).toBe(did)
    expect(String(proofOf(derived).proofValue)).toMatch(/^u2V0B/)
    expect(await ecdsaSd2023.verify(derived, proofOf(derived), assertion(did))).toEqual({
      verified: true,
      verificationMethod,
      controller: did,
    })
  })

  it('a derived proof with a claim not chosen added back, or a mandatory one dropped, fails', async () => {
    const { signer, did, verificationMethod } = await portIdentity(port.keys, 'P-256')
    const base = await ecdsaSd2023.sign(credential(did), signer, { verificationMethod, mandatoryPointers: ['/issuer', '/validFrom'] })
    const derived = await ecdsaSd2023.derive(base, ['/credentialSubject/name'])
    const revealed = { ...derived, credentialSubject: { ...(derived.credentialSubject as object), description: 'BSc, 2026' } }
    expect(await ecdsaSd2023.verify(revealed, proofOf(revealed), assertion(did))).toMatchObject({ verified: false, check: 'signature' })
    const { validFrom: _dropped, ...withoutMandatory } = derived
    expect(await ecdsaSd2023.verify(withoutMandatory, proofOf(withoutMandatory), assertion(did))).toMatchObject({ verified: false })
  })

  it('an Ed25519 key, malformed pointers, a pointer selecting nothing: 422', async () => {
    const ed = await portIdentity(port.keys, 'Ed25519')
    await expect(ecdsaSd2023.sign(credential(ed.did), ed.signer, { verificationMethod: ed.verificationMethod })).rejects.toMatchObject({
      statusCode: 422,
    })
    const { signer, did, verificationMethod } = await portIdentity(port.keys, 'P-256')
    await expect(ecdsaSd2023.sign(credential(did), signer, { verificationMethod, mandatoryPointers: ['issuer'] })).rejects.toMatchObject({
      statusCode: 422,
    })
    const base = await ecdsaSd2023.sign(credential(did), signer, { verificationMethod })
    await expect(ecdsaSd2023.derive(base, ['/credentialSubject/nothing'])).rejects.toMatchObject({ statusCode: 422 })
    await expect(ecdsaSd2023.derive(credential(did), ['/issuer'])).rejects.toMatchObject({ statusCode: 422 })
  })
})
