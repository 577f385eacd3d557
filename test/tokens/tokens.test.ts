import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { verifyJWT } from 'did-jwt'
import { expectError, snapshot, startHarness, TENANT_B, walletWithToken, type Harness } from '../helpers/harness.js'
import { verifyJsonLd } from '../../src/proofs/jsonld/index.js'
import { signingKeysResolver } from '../../src/proofs/signing-keys.js'

let h: Harness
let did: string
beforeAll(async () => {
  h = await startHarness({ storage: 'sqlite' })
  did = (await walletWithToken(h)).did
})
afterAll(() => h.close())

describe('POST /did-auth-jwt (Generate Token)', () => {
  it('returns the token VC as JSON-LD (Koblitz 2016 proof) and JWT, plus the verification of the JWT', async () => {
    const t0 = Date.now()
    const res = await h.request('POST', '/did-auth-jwt', { json: { iss: did } })
    expect(res.status).toBe(200)
    const { jsonld, jwt, verifications } = res.body
    expect(jsonld['@context'][0]).toBe('https://www.w3.org/2018/credentials/v1')
    expect(jsonld.type).toEqual(['VerifiableCredential', 'DIDAuthCredential'])
    expect(jsonld.issuer).toBe(did)
    expect(jsonld.credentialSubject).toEqual({ id: did })
    const lifetime = Date.parse(jsonld.expirationDate) - Date.parse(jsonld.issuanceDate)
    expect(lifetime).toBeGreaterThanOrEqual(15 * 60_000 - 1_000)
    expect(lifetime).toBeLessThanOrEqual(15 * 60_000 + 1_000)
    expect(jsonld.proof).toMatchObject({ type: 'EcdsaKoblitzSignature2016', creator: `${did}#controller`, domain: 'didvault' })
    expect(jsonld.proof.signatureValue).toMatch(/^[0-9a-f]{128}$/)
    expect(jsonld.proof.nonce).toEqual(expect.any(String))
    expect(Date.parse(jsonld.proof.created)).toBeGreaterThanOrEqual(t0 - 1_000)

    const ld = await verifyJsonLd(jsonld, { resolveSigningKeys: signingKeysResolver(h.service.resolver) })
    expect(ld.verified).toBe(true)
    const forged = { ...jsonld, credentialSubject: { id: 'did:ethr:dev:0x0000000000000000000000000000000000000001' } }
    expect((await verifyJsonLd(forged, { resolveSigningKeys: signingKeysResolver(h.service.resolver) })).verified).toBe(false)

    const checked = await verifyJWT(jwt, { resolver: h.service.resolver, audience: 'didvault' })
    expect(checked.issuer).toBe(did)
    expect(verifications.header).toEqual({ typ: 'JWT', alg: 'ES256K-R' })
    expect(verifications.document).toMatchObject({
      iss: did,
      vc: { type: ['VerifiableCredential', 'DIDAuthCredential'], credentialSubject: { id: did } },
    })
    expect(verifications.document.exp - verifications.document.iat).toBe(15 * 60)
    expect(verifications.tbs).toBe(jwt.split('.').slice(0, 2).join('.'))
    expect(verifications.signature).toBe(jwt.split('.')[2])
    expect(verifications.issuer).toBe(did)
  })

  it('honours exp, expiresIn and expirationDate', async () => {
    const now = Date.now()
    const exp = (await h.request('POST', '/did-auth-jwt', { json: { iss: did, exp: now + 3_600_000 } })).body
    expect(exp.verifications.document.exp).toBe(Math.floor((now + 3_600_000) / 1000))
    const inMs = (await h.request('POST', '/did-auth-jwt', { json: { iss: did, expiresIn: 120_000 } })).body
    expect(inMs.verifications.document.exp - inMs.verifications.document.iat).toBe(120)
    const date = new Date(now + 7_200_000).toISOString()
    const byDate = (await h.request('POST', '/did-auth-jwt', { json: { iss: did, expirationDate: date } })).body
    expect(byDate.verifications.document.exp).toBe(Math.floor(Date.parse(date) / 1000))
  })

  it('the token is accepted as x-did-auth', async () => {
    const jwt = (await h.request('POST', '/did-auth-jwt', { json: { iss: did } })).body.jwt
    const res = await h.request('POST', '/wallet/rename', { json: { wallets: [{ did, alias: 'via-token' }] }, didAuth: jwt })
    expect(res.status).toBe(200)
    expect(res.body.errors).toEqual([])
  })

  it.each([
    ['missing iss', {}],
    ['iss not a DID', { iss: 'alice' }],
    ['two expirations', { iss: 'DID', exp: Date.now() + 60_000, expiresIn: 60_000 }],
    ['expiration in the past', { iss: 'DID', exp: Date.now() - 60_000 }],
    ['expiration beyond 24 hours', { iss: 'DID', expiresIn: 25 * 3_600_000 }],
    ['mistyped exp', { iss: 'DID', exp: 'tomorrow' }],
    ['bad expirationDate', { iss: 'DID', expirationDate: 'next week' }],
    ['extra field', { iss: 'DID', sub: 'x' }],
  ])('422: %s, nothing written', async (_c, json) => {
    const body = JSON.parse(JSON.stringify(json).replace('"DID"', JSON.stringify(did)))
    const before = await snapshot(h)
    expectError(await h.request('POST', '/did-auth-jwt', { json: body }), 422, 'VALIDATION_ERROR')
    expect(await snapshot(h)).toEqual(before)
  })

  it("iss must be a wallet of the caller's tenant (422 NOT_FOUND); a Base Auth Token is required (403)", async () => {
    expectError(await h.request('POST', '/did-auth-jwt', { json: { iss: did }, token: TENANT_B }), 422, 'NOT_FOUND')
    expectError(
      await h.request('POST', '/did-auth-jwt', { json: { iss: 'did:ethr:dev:0x0000000000000000000000000000000000000001' } }),
      422,
      'NOT_FOUND',
    )
    expectError(await h.request('POST', '/did-auth-jwt', { json: { iss: did }, token: null }), 403, 'UNAUTHENTICATED')
  })
})
