/**
 * A verifier's binding of a presentation (issue 29, 1) and `expiresIn` in milliseconds (issue
 * 29, 2), against independent implementations, through the router (real Express on loopback):
 *
 * - Veramo 7 (`@veramo/credential-w3c` with `@veramo/credential-jwt`): its VP-JWT made with a
 *   challenge and domain is checked here against the verifier's binding by either name; a VP-JWT
 *   didvault signs with a `challenge` verifies in Veramo's `verifyPresentation` with that
 *   challenge and fails with another.
 * - did-jwt-vc: a VP-JWT with `nonce`/`aud` claims, checked here by `challenge`/`domain`.
 * - The transmute Recovery2020 suite (jsonld-signatures 5, `AuthenticationProofPurpose`): a JSON-LD
 *   presentation didvault signs with `nonce`/`aud` carries them as `challenge`/`domain`, and one
 *   the suite signs is checked here by `nonce`/`aud`.
 *
 * Every refusal is a 422 naming the fields, nothing written (a digest of every collection).
 */
import { createRequire } from 'node:module'
import { bytesToHex } from '@noble/hashes/utils.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { decodeJWT } from 'did-jwt'
import { createVerifiablePresentationJwt } from 'did-jwt-vc'
import { didJwtSigner } from '../../src/proofs/jwt-signer.js'
import { CREDENTIALS_V1_URL, SECP256K1_RECOVERY_2020_V0_URL, type JsonLdDocument } from '../../src/proofs/jsonld/index.js'
import { generatePrivateKey, LocalSigner } from '../../src/keys/secp256k1.js'
import { transmuteDocumentLoader } from '../helpers/transmute.js'
import { veramoAgent, type VeramoIdentity } from '../helpers/veramo.js'
import { expectError, snapshot, startHarness, walletWithToken, type Harness } from '../helpers/harness.js'

const require = createRequire(import.meta.url)
const { EcdsaSecp256k1RecoveryMethod2020, EcdsaSecp256k1RecoverySignature2020 } = require('@transmute/lds-ecdsa-secp256k1-recovery2020')
const jsigs = require('jsonld-signatures')

const A = 'challenge-A'
const B = 'challenge-B'
const D = 'https://verifier.example'

let h: Harness
let holder: { did: string; jwt: string }
let jwtVc: string
let jsonldVc: JsonLdDocument
let veramo: ReturnType<typeof veramoAgent>
let veramoHolder: VeramoIdentity
let veramoVc: string
beforeAll(async () => {
  h = await startHarness()
  holder = await walletWithToken(h)
  const issue = async (format: string) =>
    (
      await h.request('POST', '/claims/sign', {
        json: { iss: holder.did, sub: holder.did, format, claims: [{ id: `urn:example:binding-${format}`, payload: { member: true } }] },
        didAuth: holder.jwt,
      })
    ).body.vcs[0]
  jwtVc = (await issue('JWT')).jwt
  jsonldVc = (await issue('JSON-LD')).jsonld
  veramo = veramoAgent('dev', 1337, h.service.resolver)
  veramoHolder = await veramo.create()
  veramoVc = await veramoHolder.issue({ credentialSubject: { id: veramoHolder.did, member: true } })
})
afterAll(() => h?.close())

const sign = (json: unknown) => h.request('POST', '/presentations/sign', { json, didAuth: holder.jwt })
const verify = (json: unknown) => h.request('POST', '/presentations/verify', { json, didAuth: holder.jwt })
const verdict = async (json: unknown) => {
  const res = await verify(json)
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body
}
const checkOf = (body: { checks: Array<{ check: string }> }, check: string) => body.checks.find((c) => c.check === check)

/** Each body is a 422 naming every one of `fields`, and nothing is written. */
async function refused(call: (json: unknown) => ReturnType<typeof sign>, bodies: Array<[unknown, string[]]>) {
  const before = await snapshot(h)
  for (const [body, fields] of bodies) {
    const res = await call(body)
    expectError(res, 422, 'VALIDATION_ERROR')
    for (const field of fields) expect(res.body.errorMessage).toContain(`${field}: `)
  }
  expect(await snapshot(h)).toEqual(before)
}

describe('a VP-JWT’s binding: challenge is nonce, domain is aud', () => {
  it('Veramo’s VP-JWT made with challenge A and domain D: verify asking challenge B is false naming `nonce`; A, or nonce A, is true', async () => {
    const jwt = await veramoHolder.present([veramoVc], { challenge: A, domain: D })
    expect(decodeJWT(jwt).payload).toMatchObject({ iss: veramoHolder.did, nonce: A, aud: [D] })
    const replayed = await verdict({ presentation: { jwt }, challenge: B, domain: D })
    expect(replayed).toMatchObject({ verified: false, error: 'nonce: does not match the expected nonce' })
    expect(checkOf(replayed, 'nonce')).toEqual({ check: 'nonce', verified: false, error: 'does not match the expected nonce' })
    for (const binding of [
      { challenge: A, domain: D },
      { nonce: A, aud: D },
      { challenge: A, aud: D },
      { challenge: A, nonce: A, domain: D, aud: D },
    ]) {
      const ok = await verdict({ presentation: { jwt }, ...binding })
      expect(ok, JSON.stringify(binding)).toMatchObject({ verified: true, holder: veramoHolder.did, vcs: [{ verified: true }] })
      expect(ok.checks.map((c: { check: string }) => c.check)).toEqual(['signature', 'nonce', 'aud', 'nbf', 'credential'])
    }
    const elsewhere = await verdict({ presentation: { jwt }, challenge: A, domain: 'https://other.example' })
    expect(elsewhere).toMatchObject({ verified: false, error: 'aud: does not name the expected audience' })
  })

  it('did-jwt-vc’s VP-JWT with nonce and aud claims is checked by challenge and domain', async () => {
    const key = new LocalSigner(generatePrivateKey())
    const did = `did:ethr:dev:${key.address}`
    const vp = { '@context': [CREDENTIALS_V1_URL], type: ['VerifiablePresentation'], verifiableCredential: [jwtVc] }
    const jwt = await createVerifiablePresentationJwt({ vp, nonce: A, aud: D }, { did, signer: didJwtSigner(key), alg: 'ES256K' })
    expect(await verdict({ presentation: { jwt }, challenge: A, domain: D })).toMatchObject({ verified: true, holder: did })
    expect(await verdict({ presentation: { jwt }, challenge: B, domain: D })).toMatchObject({
      verified: false,
      error: 'nonce: does not match the expected nonce',
    })
    expect(await verdict({ presentation: { jwt }, challenge: A, domain: 'https://other.example' })).toMatchObject({
      verified: false,
      error: 'aud: does not name the expected audience',
    })
  })

  it('didvault signs a challenge and domain into nonce and aud: Veramo’s verifyPresentation accepts that challenge, refuses another', async () => {
    for (const binding of [
      { challenge: A, domain: D },
      { nonce: A, aud: D },
    ]) {
      const res = await sign({ holder: holder.did, format: 'JWT', ...binding, vcs: [{ jwt: jwtVc }] })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      const { jwt } = res.body.presentation
      expect(decodeJWT(jwt).payload).toMatchObject({ iss: holder.did, nonce: A, aud: D })
      expect(await veramo.verifyPresentation(jwt, { challenge: A, domain: D })).toMatchObject({ verified: true })
      const theirs = await veramo.verifyPresentation(jwt, { challenge: B, domain: D })
      expect(theirs.verified).toBe(false)
      expect(theirs.error?.message).toMatch(/nonce/)
      expect((await verdict({ presentation: { jwt }, challenge: A, domain: D })).verified).toBe(true)
    }
    // A list of audiences is the VP-JWT's aud list.
    const listed = await sign({ holder: holder.did, format: 'JWT', challenge: A, aud: [D, 'https://b.example'], vcs: [{ jwt: jwtVc }] })
    expect(decodeJWT(listed.body.presentation.jwt).payload.aud).toEqual([D, 'https://b.example'])
    expect(await verdict({ presentation: listed.body.presentation, challenge: A, domain: 'https://b.example' })).toMatchObject({
      verified: true,
    })
  })

  it('both names with different values are 422 naming both, at sign and verify; nothing written', async () => {
    const base = { holder: holder.did, format: 'JWT', vcs: [{ jwt: jwtVc }] }
    await refused(sign, [
      [{ ...base, challenge: A, nonce: B }, ['nonce', 'challenge']],
      [{ ...base, domain: D, aud: 'https://other.example' }, ['aud', 'domain']],
      [{ ...base, domain: D, aud: [D, 'https://other.example'] }, ['aud', 'domain']],
    ])
    const { jwt } = (await sign({ ...base, nonce: A, aud: D })).body.presentation
    await refused(verify, [
      [{ presentation: { jwt }, challenge: A, nonce: B }, ['nonce', 'challenge']],
      [{ presentation: { jwt }, nonce: A, domain: D, aud: 'https://other.example' }, ['aud', 'domain']],
    ])
  })
})

const transmuteLoader = (url: string) => transmuteDocumentLoader(h.service.resolver, url)
const purpose = (challenge: string, domain?: string) => new jsigs.purposes.AuthenticationProofPurpose({ challenge, domain })

/** Whether the transmute suite verifies `vp` for `challenge` and `domain`. */
async function transmuteVerifies(vp: JsonLdDocument, challenge: string, domain: string): Promise<boolean> {
  // jsonld-signatures 5 reads the proof's terms from the proof's own context (see interop.test.ts).
  const hinted = { ...vp, proof: { '@context': vp['@context'], ...(vp.proof as object) } }
  const result = await jsigs.verify(structuredClone(hinted), {
    suite: new EcdsaSecp256k1RecoverySignature2020(),
    purpose: purpose(challenge, domain),
    documentLoader: transmuteLoader,
    compactProof: false,
  })
  return result.verified
}

describe('a JSON-LD presentation’s binding: nonce is challenge, a single aud is domain', () => {
  it('didvault signs nonce and aud as the proof’s challenge and domain: the transmute suite accepts that challenge, refuses another', async () => {
    const res = await sign({ holder: holder.did, format: 'JSON-LD', nonce: A, aud: 'verifier.example', vcs: [{ jsonld: jsonldVc }] })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const vp = res.body.presentation.jsonld as JsonLdDocument
    expect(vp.proof).toMatchObject({ proofPurpose: 'authentication', challenge: A, domain: 'verifier.example' })
    expect(await transmuteVerifies(vp, A, 'verifier.example')).toBe(true)
    expect(await transmuteVerifies(vp, B, 'verifier.example')).toBe(false)
    expect(await transmuteVerifies(vp, A, 'other.example')).toBe(false)
  })

  it('the transmute suite’s presentation (challenge, domain) is checked here by nonce and aud: another is false naming the check', async () => {
    let privateKey = generatePrivateKey()
    // The 2020 suite fails on keys whose first byte is zero (see transmute-interop.test.ts).
    while (privateKey[0] === 0) privateKey = generatePrivateKey()
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
      purpose: purpose(A, 'verifier.example'),
      documentLoader: transmuteLoader,
      compactProof: false,
    })
    const ok = await verdict({ presentation: { jsonld: vp }, nonce: A, aud: 'verifier.example' })
    expect(ok).toMatchObject({ verified: true, holder: did })
    expect(ok.checks.map((c: { check: string }) => c.check)).toEqual(['proof', 'proofPurpose', 'challenge', 'domain', 'credential'])
    expect(await verdict({ presentation: { jsonld: vp }, nonce: B })).toMatchObject({
      verified: false,
      error: 'challenge: does not match the expected challenge',
    })
    expect(await verdict({ presentation: { jsonld: vp }, nonce: A, aud: 'other.example' })).toMatchObject({
      verified: false,
      error: 'domain: does not match the expected domain',
    })
    await refused(verify, [
      [{ presentation: { jsonld: vp }, challenge: A, nonce: B }, ['challenge', 'nonce']],
      [{ presentation: { jsonld: vp }, challenge: A, aud: ['verifier.example'] }, ['aud']],
    ])
  })

  it('an aud list, or both names differing, is 422 naming the fields; nonce stands for the required challenge', async () => {
    const base = { holder: holder.did, format: 'JSON-LD', vcs: [{ jsonld: jsonldVc }] }
    await refused(sign, [
      [{ ...base, nonce: A, aud: ['verifier.example', 'b.example'] }, ['aud']],
      [{ ...base, nonce: A, aud: ['verifier.example'] }, ['aud']],
      [{ ...base, challenge: A, nonce: B }, ['challenge', 'nonce']],
      [{ ...base, challenge: A, domain: 'verifier.example', aud: 'other.example' }, ['domain', 'aud']],
      [{ ...base, domain: 'verifier.example' }, ['challenge']],
    ])
    const listRefused = await sign({ ...base, nonce: A, aud: ['verifier.example', 'b.example'] })
    expect(listRefused.body.errorMessage).toContain('names one domain')
    expect((await sign({ ...base, nonce: A, challenge: A })).status).toBe(200)
  })
})

describe('expiresIn is milliseconds on /presentations/sign', () => {
  it('expiresIn 60000: the VP-JWT’s exp is 60 s after its iat and nbf; the JSON-LD proof expires 60 s after it was created', async () => {
    const res = await sign({ holder: holder.did, format: 'JWT', nonce: A, expiresIn: 60_000, vcs: [{ jwt: jwtVc }] })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const { payload } = decodeJWT(res.body.presentation.jwt)
    expect(payload.exp! - payload.nbf!).toBe(60)
    expect(payload.exp! - payload.iat!).toBe(60)
    expect(await verdict({ presentation: res.body.presentation, nonce: A })).toMatchObject({ verified: true })

    const ld = await sign({ holder: holder.did, format: 'JSON-LD', challenge: A, expiresIn: 60_000, vcs: [{ jsonld: jsonldVc }] })
    expect(ld.status, JSON.stringify(ld.body)).toBe(200)
    const { proof } = ld.body.presentation.jsonld
    expect(Date.parse(proof.expires) - Date.parse(proof.created)).toBe(60_000)
  })
})
