/**
 * Presentation interop with independent implementations, both ways:
 *
 * - did-jwt-vc: the VP-JWTs didvault signs verify with its `verifyPresentation` (over the
 *   service's resolver, the harness's embedded registry), challenge and domain as nonce and aud;
 *   VP-JWTs it creates with `createVerifiablePresentationJwt` verify here.
 * - @transmute/lds-ecdsa-secp256k1-recovery2020 on jsonld-signatures 5 (the Recovery2020
 *   implementation of test/credentials/transmute-interop.test.ts, with the two bridges that file
 *   explains: the proof's options stated in the document's context for jsonld-signatures 5, and the
 *   DID document's CAIP-10 accounts stated as `ethereumAddress`): a JSON-LD presentation didvault
 *   signs verifies with its `AuthenticationProofPurpose` (challenge, domain); one it signs verifies here.
 */
import { createRequire } from 'node:module'
import { bytesToHex } from '@noble/hashes/utils.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createVerifiablePresentationJwt, verifyPresentation } from 'did-jwt-vc'
import { didJwtSigner } from '../../src/proofs/jwt-signer.js'
import { CREDENTIALS_V1_URL, SECP256K1_RECOVERY_2020_V0_URL, type JsonLdDocument } from '../../src/proofs/jsonld/index.js'
import { generatePrivateKey, LocalSigner } from '../../src/keys/secp256k1.js'
import { transmuteDocumentLoader } from '../helpers/transmute.js'
import { startHarness, walletWithToken, type Harness } from '../helpers/harness.js'

const require = createRequire(import.meta.url)
const { EcdsaSecp256k1RecoveryMethod2020, EcdsaSecp256k1RecoverySignature2020 } = require('@transmute/lds-ecdsa-secp256k1-recovery2020')
const jsigs = require('jsonld-signatures')

let h: Harness
let holder: { did: string; jwt: string }
let jwtVc: string
let jsonldVc: JsonLdDocument
beforeAll(async () => {
  h = await startHarness()
  holder = await walletWithToken(h)
  const issue = async (format: string) =>
    (
      await h.request('POST', '/claims/sign', {
        json: { iss: holder.did, sub: holder.did, format, claims: [{ id: `urn:example:vp-${format}`, payload: { member: true } }] },
        didAuth: holder.jwt,
      })
    ).body.vcs[0]
  jwtVc = (await issue('JWT')).jwt
  jsonldVc = (await issue('JSON-LD')).jsonld
})
afterAll(() => h?.close())

const sign = (json: unknown) => h.request('POST', '/presentations/sign', { json, didAuth: holder.jwt })
const verifyHere = async (json: unknown) => (await h.request('POST', '/presentations/verify', { json, didAuth: holder.jwt })).body

/** A random key the 2020 suite can sign with (it fails on keys whose first byte is zero: see transmute-interop.test.ts). */
function suiteSafeKey(): Uint8Array {
  for (;;) {
    const key = generatePrivateKey()
    if (key[0] !== 0) return key
  }
}

describe('VP-JWT ↔ did-jwt-vc', () => {
  it('didvault’s VP-JWT verifies with did-jwt-vc’s verifyPresentation (challenge → nonce, domain → aud); a wrong challenge does not', async () => {
    const res = await sign({ holder: holder.did, format: 'JWT', nonce: 'n-42', aud: 'https://verifier.example', vcs: [{ jwt: jwtVc }] })
    expect(res.status).toBe(200)
    const { jwt } = res.body.presentation
    const theirs = await verifyPresentation(jwt, h.service.resolver, { challenge: 'n-42', domain: 'https://verifier.example' })
    expect(theirs.verified).toBe(true)
    expect(theirs.issuer).toBe(holder.did)
    expect(theirs.verifiablePresentation.verifiableCredential?.[0]).toMatchObject({ proof: { jwt: jwtVc } })
    await expect(verifyPresentation(jwt, h.service.resolver, { challenge: 'n-43', domain: 'https://verifier.example' })).rejects.toThrow(
      /nonce/,
    )
  })

  it('a VP-JWT did-jwt-vc creates verifies here, nonce and aud included; by another key in the holder’s name, it does not', async () => {
    const key = new LocalSigner(generatePrivateKey())
    const did = `did:ethr:dev:${key.address}`
    const payload = { vp: { '@context': [CREDENTIALS_V1_URL], type: ['VerifiablePresentation'], verifiableCredential: [jwtVc] } }
    const jwt = await createVerifiablePresentationJwt(
      payload,
      { did, signer: didJwtSigner(key), alg: 'ES256K' },
      { challenge: 'n-7', domain: 'https://verifier.example' },
    )
    const ours = await verifyHere({ presentation: { jwt }, nonce: 'n-7', aud: 'https://verifier.example' })
    expect(ours).toMatchObject({ verified: true, holder: did, vcs: [{ verified: true }] })
    expect(ours.checks.map((c: { check: string }) => c.check)).toEqual(['signature', 'nonce', 'aud', 'credential'])
    const forged = await createVerifiablePresentationJwt(payload, { did, signer: didJwtSigner(new LocalSigner(generatePrivateKey())) })
    expect((await verifyHere({ presentation: { jwt: forged } })).verified).toBe(false)
  })
})

const transmuteLoader = (url: string) => transmuteDocumentLoader(h.service.resolver, url)

const purpose = (challenge: string, domain?: string) => new jsigs.purposes.AuthenticationProofPurpose({ challenge, domain })

describe('JSON-LD presentation ↔ transmute Recovery2020', () => {
  it('didvault’s presentation verifies with the suite’s AuthenticationProofPurpose; another challenge does not', async () => {
    const res = await sign({
      holder: holder.did,
      format: 'JSON-LD',
      challenge: 'c-9',
      domain: 'verifier.example',
      vcs: [{ jsonld: jsonldVc }],
    })
    expect(res.status).toBe(200)
    const vp = res.body.presentation.jsonld as JsonLdDocument
    const hinted = { ...vp, proof: { '@context': vp['@context'], ...(vp.proof as object) } }
    const check = async (challenge: string) =>
      (
        await jsigs.verify(structuredClone(hinted), {
          suite: new EcdsaSecp256k1RecoverySignature2020(),
          purpose: purpose(challenge, 'verifier.example'),
          documentLoader: transmuteLoader,
          compactProof: false,
        })
      ).verified
    expect(await check('c-9')).toBe(true)
    expect(await check('c-10')).toBe(false)
  })

  it('a presentation the suite signs (authentication, challenge, domain) verifies here; tampered, it does not', async () => {
    const privateKey = suiteSafeKey()
    const did = `did:ethr:dev:${new LocalSigner(privateKey).address}`
    const key = new EcdsaSecp256k1RecoveryMethod2020({
      id: `${did}#controller`,
      type: 'EcdsaSecp256k1RecoveryMethod2020',
      controller: did,
      privateKeyHex: bytesToHex(privateKey),
    })
    const unsigned = {
      '@context': [CREDENTIALS_V1_URL, SECP256K1_RECOVERY_2020_V0_URL],
      type: ['VerifiablePresentation'],
      holder: did,
      verifiableCredential: [jsonldVc],
    }
    const vp: JsonLdDocument = await jsigs.sign(structuredClone(unsigned), {
      suite: new EcdsaSecp256k1RecoverySignature2020({ key }),
      purpose: purpose('c-11', 'verifier.example'),
      documentLoader: transmuteLoader,
      compactProof: false,
    })
    expect(vp.proof).toMatchObject({ proofPurpose: 'authentication', challenge: 'c-11', domain: 'verifier.example' })
    const ours = await verifyHere({ presentation: { jsonld: vp }, challenge: 'c-11', domain: 'verifier.example' })
    expect(ours).toMatchObject({ verified: true, holder: did, vcs: [{ verified: true }] })
    const tampered = { ...vp, holder: holder.did }
    expect((await verifyHere({ presentation: { jsonld: tampered }, challenge: 'c-11' })).verified).toBe(false)
  })
})

describe('a presentation naming a holder other than its signer (issue 28, finding 9)', () => {
  it('a VP-JWT did-jwt-vc signs with one key naming another holder — in vp.holder or holder — is verified: false (`holder`)', async () => {
    const key = new LocalSigner(generatePrivateKey())
    const signer = `did:ethr:dev:${key.address}`
    const vp = { '@context': [CREDENTIALS_V1_URL], type: ['VerifiablePresentation'], verifiableCredential: [jwtVc] }
    const by = { did: signer, signer: didJwtSigner(key), alg: 'ES256K' }
    const inVp = await createVerifiablePresentationJwt({ vp: { ...vp, holder: holder.did } }, by)
    // did-jwt-vc moves a top-level holder into iss unless told to keep it; the signer's DID then overrides iss.
    const topLevel = await createVerifiablePresentationJwt({ vp, holder: holder.did }, by, { removeOriginalFields: false })
    for (const jwt of [inVp, topLevel]) {
      const ours = await verifyHere({ presentation: { jwt } })
      expect(ours).toMatchObject({ verified: false, holder: signer, error: expect.stringMatching(/^holder: /) })
      expect(ours.checks.filter((c: { check: string }) => c.check !== 'credential')).toEqual([
        { check: 'signature', verified: true, verificationMethod: `${signer}#controller` },
        {
          check: 'holder',
          verified: false,
          error: `the holder it names (${holder.did}) is not its signer (iss ${signer})`,
        },
      ])
    }
    // Naming the signer itself (in either spelling of its DID) is the holder check passed.
    const keyDid = `did:ethr:dev:0x${key.publicKeyHex}`
    for (const named of [signer, keyDid]) {
      const jwt = await createVerifiablePresentationJwt({ vp: { ...vp, holder: named } }, by)
      const ours = await verifyHere({ presentation: { jwt } })
      expect(ours).toMatchObject({ verified: true, holder: signer })
      expect(ours.checks.map((c: { check: string }) => c.check)).toEqual(['signature', 'holder', 'credential'])
    }
  })

  it('a JSON-LD presentation the Recovery2020 suite signs with one key naming another holder is verified: false (`proof`)', async () => {
    const privateKey = suiteSafeKey()
    const signer = `did:ethr:dev:${new LocalSigner(privateKey).address}`
    const key = new EcdsaSecp256k1RecoveryMethod2020({
      id: `${signer}#controller`,
      type: 'EcdsaSecp256k1RecoveryMethod2020',
      controller: signer,
      privateKeyHex: bytesToHex(privateKey),
    })
    const unsigned = {
      '@context': [CREDENTIALS_V1_URL, SECP256K1_RECOVERY_2020_V0_URL],
      type: ['VerifiablePresentation'],
      holder: holder.did,
      verifiableCredential: [jsonldVc],
    }
    const vp: JsonLdDocument = await jsigs.sign(structuredClone(unsigned), {
      suite: new EcdsaSecp256k1RecoverySignature2020({ key }),
      purpose: purpose('c-12', 'verifier.example'),
      documentLoader: transmuteLoader,
      compactProof: false,
    })
    const ours = await verifyHere({ presentation: { jsonld: vp }, challenge: 'c-12' })
    expect(ours).toMatchObject({ verified: false, holder: holder.did })
    expect(ours.checks[0]).toEqual({
      check: 'proof',
      verified: false,
      error: `no proof is by the holder ${holder.did}: the holder must sign its presentation`,
    })
  })
})
