/**
 * Offers, the token endpoint (pre-authorized code) and the nonce endpoint over loopback HTTP on a SQLite file: the
 * `@openid4vc/openid4vci` client resolves an offer and gets a token (PIN, DPoP); replays, wrong PINs, another tenant's
 * code, `dpopRequired`; the offer id, the PIN and the code are not in the database's bytes.
 */
import { randomUUID } from 'node:crypto'
import * as jose from 'jose'
import { Openid4vciClient } from '@openid4vc/openid4vci'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { IdentityService } from '../../src/index.js'
import { oid4vci } from '../../src/oid4vc.js'
import { newP256, oid4vcCallbacks } from '../helpers/oid4vci-callbacks.js'
import { TENANT_A, TENANT_B } from '../helpers/harness.js'
import { ISSUER_PUBLIC_URL, loopbackIssuer, type LoopbackIssuer } from '../helpers/oid4vci-loopback.js'
import type { StorageAdapter } from '../../src/storage/port.js'
import type { OfferRecord } from '../../src/oid4vci/records.js'
import { consumeCNonces, liveCNonces } from '../../src/oid4vci/nonces.js'
import { openAccessToken } from '../../src/oid4vci/access-tokens.js'
import { OFFER_RETENTION_MS, offerRecordIdOf, SEALED_GRANT_MAX_CHARS, sweepOffers } from '../../src/oid4vci/offers.js'

const PUBLIC_URL = ISSUER_PUBLIC_URL
const TOKEN = `${PUBLIC_URL}/oid4vci/acme/token`
const PRE_AUTH = 'urn:ietf:params:oauth:grant-type:pre-authorized_code'

let rig: LoopbackIssuer
let service: IdentityService
let storage: StorageAdapter
const secrets: string[] = []

/** Requests to https://issuer.test go to the loopback server. */
const loopback: typeof fetch = (input, init) => rig.loopback(input, init)

async function issuerOf(token: string, slug: string, dpopRequired = false) {
  const api = service.as({ authorization: `Bearer ${token}` })
  const { wallet } = await api.generateWallet({ walletConfig: { didMethod: 'jwk', keyType: 'P-256' } })
  const { jwt } = await api.generateToken({ iss: wallet.did })
  const withDid = service.as({ authorization: `Bearer ${token}`, didAuth: jwt })
  for (const [id, required] of [
    ['Identity', dpopRequired],
    ['Strict', true],
  ] as const)
    await withDid.createCredentialConfiguration({
      id,
      issuer: slug,
      format: 'dc+sd-jwt',
      vct: 'https://credentials.example.com/identity',
      issuingDid: wallet.did,
      dpopRequired: required,
    })
  return withDid
}

let acme: Awaited<ReturnType<typeof issuerOf>>
let other: Awaited<ReturnType<typeof issuerOf>>

beforeAll(async () => {
  rig = await loopbackIssuer('didvault-offers-', { oid4vci: oid4vci({ txCodeAttempts: 3 }) })
  ;({ service, storage } = rig)
  acme = await issuerOf(TENANT_A, 'acme')
  other = await issuerOf(TENANT_B, 'other')
}, 60_000)

afterAll(() => rig?.close())

async function offer(input: Record<string, unknown> = {}, api = acme) {
  const made = await api.createCredentialOffer({ configurations: [{ id: 'Identity', claims: { given_name: 'Erika' } }], ...input })
  const document = (await (await loopback(made.credentialOfferUri)).json()) as Record<string, any>
  const code: string = document.grants[PRE_AUTH]['pre-authorized_code']
  secrets.push(made.offerId, code, ...(made.txCode ? [made.txCode] : []))
  return { made, document, code }
}

async function token(slug: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await loopback(`${PUBLIC_URL}/oid4vci/${slug}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams({ grant_type: PRE_AUTH, ...fields }).toString(),
  })
  return { status: res.status, body: (await res.json()) as Record<string, any>, headers: res.headers }
}

describe('offers', () => {
  it('answers the offer URI, its QR code and the PIN once; the offer by reference names the PIN’s shape, no-store', async () => {
    const { made, document } = await offer({ txCode: { length: 8, inputMode: 'text', description: 'from the letter' } })
    expect(made.offerUri).toBe(`openid-credential-offer://?credential_offer_uri=${encodeURIComponent(made.credentialOfferUri)}`)
    expect(made.credentialOfferUri).toBe(`${PUBLIC_URL}/oid4vci/acme/offers/${made.offerId}`)
    expect(made.qr).toMatch(/^<svg/)
    expect(made.txCode).toMatch(/^[A-Z2-9]{8}$/)
    expect(document).toMatchObject({
      credential_issuer: `${PUBLIC_URL}/oid4vci/acme`,
      credential_configuration_ids: ['Identity'],
      grants: { [PRE_AUTH]: { tx_code: { length: 8, input_mode: 'text', description: 'from the letter' } } },
    })
    const res = await loopback(made.credentialOfferUri)
    expect(res.headers.get('cache-control')).toBe('no-store')
  })

  it('refuses an unknown configuration (another tenant’s included) and a bad PIN spec', async () => {
    await expect(acme.createCredentialOffer({ configurations: [{ id: 'Nope', claims: {} }] })).rejects.toMatchObject({
      errorType: 'NOT_FOUND',
    })
    await expect(other.createCredentialOffer({ configurations: [{ id: 'Nope', claims: {} }] })).rejects.toMatchObject({
      errorType: 'NOT_FOUND',
    })
    await expect(
      acme.createCredentialOffer({ configurations: [{ id: 'Identity', claims: {} }], txCode: { length: 3 } }),
    ).rejects.toMatchObject({
      errorType: 'VALIDATION_ERROR',
    })
  })

  it('a same-tenant user who does not control the issuing DID cannot offer its credentials: 403, nothing written', async () => {
    // Tenant A's Base Auth Token, and a DID-auth token of another wallet of tenant A: not the configuration's issuing DID.
    const api = service.as({ authorization: `Bearer ${TENANT_A}` })
    const { wallet } = await api.generateWallet({ walletConfig: { didMethod: 'jwk', keyType: 'P-256' } })
    const { jwt } = await api.generateToken({ iss: wallet.did })
    const outsider = service.as({ authorization: `Bearer ${TENANT_A}`, didAuth: jwt })
    const offers = storage.collection('oid4vci_offers')
    const before = (await offers.find({ and: [] }, { limit: 1_000 })).items.length
    await expect(
      outsider.createCredentialOffer({ configurations: [{ id: 'Identity', claims: { given_name: 'Mallory' } }] }),
    ).rejects.toMatchObject({ statusCode: 403, errorType: 'FORBIDDEN' })
    expect((await offers.find({ and: [] }, { limit: 1_000 })).items.length).toBe(before)
  })

  it('the authorization_code grant needs a way to authenticate users: 422 naming it without authorize or loginUrl, nothing written', async () => {
    const offers = storage.collection('oid4vci_offers')
    const before = (await offers.find({ and: [] }, { limit: 1_000 })).items.length
    await expect(
      acme.createCredentialOffer({ configurations: [{ id: 'Identity', claims: {} }], grants: ['authorization_code'] }),
    ).rejects.toMatchObject({ statusCode: 422, errorMessage: expect.stringMatching(/authorize hook or loginUrl/) })
    expect((await offers.find({ and: [] }, { limit: 1_000 })).items.length).toBe(before)
  })

  it('another issuer’s slug or an unknown offer: 404 OAuth body', async () => {
    const { made } = await offer()
    const res = await loopback(`${PUBLIC_URL}/oid4vci/other/offers/${made.offerId}`)
    expect(res.status).toBe(404)
    expect(await res.json()).toMatchObject({ error: 'invalid_request' })
  })
})

describe('token endpoint', () => {
  it('@openid4vc/openid4vci’s client resolves the offer and gets a DPoP-bound token with the PIN', async () => {
    const { made } = await offer({ txCode: true })
    const dpopKey = newP256()
    const client = new Openid4vciClient({ callbacks: oid4vcCallbacks([dpopKey], loopback) })
    const credentialOffer = await client.resolveCredentialOffer(made.offerUri)
    const issuerMetadata = await client.resolveIssuerMetadata(credentialOffer.credential_issuer)
    const { accessTokenResponse } = await client.retrievePreAuthorizedCodeAccessTokenFromOffer({
      credentialOffer,
      issuerMetadata,
      txCode: made.txCode,
      dpop: { signer: { method: 'jwk', alg: 'ES256', publicJwk: dpopKey.publicJwk } },
    })
    expect(accessTokenResponse.token_type).toBe('DPoP')
    expect(accessTokenResponse.authorization_details).toEqual([
      { type: 'openid_credential', credential_configuration_id: 'Identity', credential_identifiers: ['Identity'] },
    ])
    secrets.push(accessTokenResponse.access_token)
    const grant = openAccessToken(service.oneTime, 'tenant-a', 'acme', accessTokenResponse.access_token)
    expect(grant).toMatchObject({ issuer: 'acme', configurationIds: ['Identity'], claims: { Identity: { given_name: 'Erika' } } })
    expect(typeof grant?.jkt).toBe('string')
  })

  it('a Bearer token says lowercase bearer; the code is single use (a replay: invalid_grant, nothing written)', async () => {
    const { made, code } = await offer()
    const first = await token('acme', { 'pre-authorized_code': code })
    expect(first.status).toBe(200)
    expect(first.body.token_type).toBe('bearer')
    expect(first.headers.get('cache-control')).toBe('no-store')
    const offers = storage.collection<OfferRecord>('oid4vci_offers')
    const id = offerRecordIdOf(service.oneTime, 'tenant-a', made.offerId)
    const redeemed = await offers.get(id)
    expect(redeemed).toMatchObject({ state: 'redeemed', redemptions: 1 })
    const again = await token('acme', { 'pre-authorized_code': code })
    expect(again.status).toBe(400)
    expect(again.body.error).toBe('invalid_grant')
    // Concurrent redemptions of one offer: one token at most, and the record as the first claim left it.
    const racing = await offer()
    const answers = await Promise.all(Array.from({ length: 8 }, () => token('acme', { 'pre-authorized_code': racing.code })))
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1)
    expect(answers.filter((a) => a.body.error === 'invalid_grant')).toHaveLength(7)
    expect(await offers.get(id)).toEqual(redeemed)
    expect(await offers.get(offerRecordIdOf(service.oneTime, 'tenant-a', racing.made.offerId))).toMatchObject({ redemptions: 1 })
  })

  it('wrong PINs burn the code at txCodeAttempts: the right one is refused then; user_pin is read; a missing PIN is invalid_request', async () => {
    const { made, code } = await offer({ txCode: true })
    expect((await token('acme', { 'pre-authorized_code': code })).body.error).toBe('invalid_request')
    for (let i = 0; i < 3; i++)
      expect((await token('acme', { 'pre-authorized_code': code, user_pin: '000000x' })).body.error).toBe('invalid_grant')
    const late = await token('acme', { 'pre-authorized_code': code, tx_code: made.txCode! })
    expect(late.body.error).toBe('invalid_grant')
    // The offer is burned: its record says so, and the right PIN's refusal claimed nothing.
    const offers = storage.collection<OfferRecord>('oid4vci_offers')
    expect(await offers.get(offerRecordIdOf(service.oneTime, 'tenant-a', made.offerId))).toMatchObject({
      state: 'burned',
      redemptions: 1,
      txCodeFailures: 3,
    })
    const fresh = await offer({ txCode: true })
    expect((await token('acme', { 'pre-authorized_code': fresh.code, user_pin: fresh.made.txCode! })).status).toBe(200)
  })

  it('the code is the offer sealed, not stored: fetching the offer writes nothing; a forged or altered code is invalid_grant', async () => {
    const rows = async () => (await storage.collection('one_time').find({ and: [] }, { limit: 1000 })).items.length
    const made = await acme.createCredentialOffer({ configurations: [{ id: 'Identity', claims: { given_name: 'Erika' } }] })
    secrets.push(made.offerId)
    const before = await rows()
    const fetchCode = async () =>
      ((await (await loopback(made.credentialOfferUri)).json()) as Record<string, any>).grants[PRE_AUTH]['pre-authorized_code'] as string
    const [code, second] = [await fetchCode(), await fetchCode()]
    secrets.push(code, second)
    expect(await rows()).toBe(before)
    expect(second).not.toBe(code)
    const altered = `${code.slice(0, -2)}${code.endsWith('AA') ? 'BB' : 'AA'}`
    for (const forged of [altered, 's1.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'x'.repeat(43), made.offerId]) {
      const res = await token('acme', { 'pre-authorized_code': forged })
      expect([res.status, res.body.error]).toEqual([400, 'invalid_grant'])
    }
    // Any code of the offer redeems it, once.
    expect((await token('acme', { 'pre-authorized_code': second })).status).toBe(200)
    expect((await token('acme', { 'pre-authorized_code': code })).body.error).toBe('invalid_grant')
  })

  it('an expired offer is refused: invalid_grant, and its offer 404', async () => {
    // An offer with a PIN: its code carries only the offer's id, so the token request reads the offer (a code carrying
    // its grant expires by its own sealed expiry, the offer's: offers never change but by their claim).
    const { made, code } = await offer({ expiresInSeconds: 30, txCode: true })
    // Its expiry passed: moved into the past in the database (the code's own expiry is later; the offer decides).
    const offers = storage.collection<OfferRecord>('oid4vci_offers')
    const mine = (await offers.find({ and: [] }, { limit: 1_000 })).items.filter((o) => o.expiresAt - o.createdAt === 30_000)
    expect(mine).toHaveLength(1)
    await offers.update(mine[0].id, { expiresAt: Date.now() - 1 })
    expect((await token('acme', { 'pre-authorized_code': code, tx_code: made.txCode! })).body.error).toBe('invalid_grant')
    expect((await loopback(made.credentialOfferUri)).status).toBe(404)
    // A day after its expiry the record is swept; live offers and those expired since are kept.
    const count = async () => (await offers.find({ and: [] }, { limit: 1_000 })).items.length
    const before = await count()
    expect(await sweepOffers({ storage }, Date.now() + OFFER_RETENTION_MS - 60_000)).toBe(0)
    expect(await sweepOffers({ storage }, Date.now() + OFFER_RETENTION_MS)).toBe(1)
    expect(await offers.get(mine[0].id)).toBeUndefined()
    expect(await count()).toBe(before - 1)
  })

  it('a code carrying its grant redeems without a read of the offer; once the offer is swept it is invalid_grant, nothing written', async () => {
    const offers = storage.collection<OfferRecord>('oid4vci_offers')
    const { code } = await offer({ expiresInSeconds: 31 })
    const mine = (await offers.find({ and: [] }, { limit: 1_000 })).items.filter((o) => o.expiresAt - o.createdAt === 31_000)
    expect(mine).toHaveLength(1)
    // The record gone (as the sweep deletes it a day after its expiry): the code opens, the claim finds nothing.
    await offers.delete(mine[0].id)
    const before = (await offers.find({ and: [] }, { limit: 1_000 })).items.length
    expect((await token('acme', { 'pre-authorized_code': code })).body.error).toBe('invalid_grant')
    expect((await offers.find({ and: [] }, { limit: 1_000 })).items.length).toBe(before)
    // An offer whose grant is large keeps it in its record alone; its code still redeems (reading the offer).
    const large = await offer({ configurations: [{ id: 'Identity', claims: { given_name: 'E'.repeat(SEALED_GRANT_MAX_CHARS) } }] })
    const small = await offer()
    expect(large.code.length).toBeLessThan(small.code.length)
    expect((await token('acme', { 'pre-authorized_code': large.code })).status).toBe(200)
    expect((await token('acme', { 'pre-authorized_code': large.code })).body.error).toBe('invalid_grant')
  })

  it('a code of tenant A at tenant B’s issuer: invalid_grant, and the code still works at its own', async () => {
    const { code } = await offer()
    expect((await token('other', { 'pre-authorized_code': code })).body.error).toBe('invalid_grant')
    expect((await token('acme', { 'pre-authorized_code': code })).status).toBe(200)
  })

  it('a configuration requiring DPoP refuses a Bearer request (invalid_dpop_proof) and keeps the code', async () => {
    const made = await acme.createCredentialOffer({ configurations: [{ id: 'Strict', claims: {} }] })
    const document = (await (await loopback(made.credentialOfferUri)).json()) as Record<string, any>
    const code: string = document.grants[PRE_AUTH]['pre-authorized_code']
    const res = await token('acme', { 'pre-authorized_code': code })
    expect(res.status).toBe(400)
    expect(res.body.error).toBe('invalid_dpop_proof')
    // Nothing written: the offer is not claimed, and the code still redeems it.
    const record = await storage.collection<OfferRecord>('oid4vci_offers').get(offerRecordIdOf(service.oneTime, 'tenant-a', made.offerId))
    expect(record).toMatchObject({ state: 'offered' })
    expect(record).not.toHaveProperty('redemptions')
  })

  it('a DPoP proof for another URL or method, and a replayed proof, are refused', async () => {
    const key = newP256()
    const signing = await jose.importJWK(key.privateJwk, 'ES256')
    const proofFor = (htu: string, htm: string) =>
      new jose.SignJWT({ htu, htm, jti: randomUUID(), iat: Math.floor(Date.now() / 1000) })
        .setProtectedHeader({ typ: 'dpop+jwt', alg: 'ES256', jwk: key.publicJwk })
        .sign(signing)
    const a = await offer()
    const wrongUrl = await token(
      'acme',
      { 'pre-authorized_code': a.code },
      { DPoP: await proofFor(`${PUBLIC_URL}/oid4vci/other/token`, 'POST') },
    )
    expect(wrongUrl.body.error).toBe('invalid_dpop_proof')
    const wrongMethod = await token('acme', { 'pre-authorized_code': a.code }, { DPoP: await proofFor(TOKEN, 'GET') })
    expect(wrongMethod.body.error).toBe('invalid_dpop_proof')
    const proof = await proofFor(TOKEN, 'POST')
    expect((await token('acme', { 'pre-authorized_code': a.code }, { DPoP: proof })).body.token_type).toBe('DPoP')
    const b = await offer()
    expect((await token('acme', { 'pre-authorized_code': b.code }, { DPoP: proof })).body.error).toBe('invalid_dpop_proof')
  })
})

describe('nonce endpoint', () => {
  it('answers a fresh c_nonce, no-store, writing nothing: the tenant’s, live, used once', async () => {
    const rows = async () => (await storage.collection('one_time').find({ and: [] }, { limit: 1000 })).items.length
    const before = await rows()
    const res = await loopback(`${PUBLIC_URL}/oid4vci/acme/nonce`, { method: 'POST' })
    expect(res.status).toBe(200)
    expect(res.headers.get('cache-control')).toBe('no-store')
    const { c_nonce } = (await res.json()) as { c_nonce: string }
    secrets.push(c_nonce)
    expect(await rows()).toBe(before)
    const ctx = { oneTime: service.oneTime, now: () => Date.now() }
    expect(liveCNonces(ctx, 'tenant-a', [c_nonce])).toBe(true)
    // Another tenant's, altered or expired: refused by a computation.
    expect(liveCNonces(ctx, 'tenant-b', [c_nonce])).toBe(false)
    expect(liveCNonces(ctx, 'tenant-a', [`${c_nonce.slice(0, -1)}${c_nonce.endsWith('A') ? 'B' : 'A'}`])).toBe(false)
    expect(liveCNonces({ ...ctx, now: () => Date.now() + 301_000 }, 'tenant-a', [c_nonce])).toBe(false)
    // Used once, across processes (a remembered keyed hash), then never again.
    expect(await consumeCNonces(ctx, 'tenant-a', [c_nonce, c_nonce])).toBe(true)
    expect(await consumeCNonces(ctx, 'tenant-a', [c_nonce])).toBe(false)
    expect(await rows()).toBe(before + 1)
    // With a used one, a fresh nonce is refused too and not used: all of them, or none.
    const fresh = ((await (await loopback(`${PUBLIC_URL}/oid4vci/acme/nonce`, { method: 'POST' })).json()) as { c_nonce: string }).c_nonce
    secrets.push(fresh)
    expect(await consumeCNonces(ctx, 'tenant-a', [fresh, c_nonce])).toBe(false)
    expect(await rows()).toBe(before + 1)
    expect(await consumeCNonces(ctx, 'tenant-a', [fresh])).toBe(true)
    expect(await rows()).toBe(before + 2)
    expect((await loopback(`${PUBLIC_URL}/oid4vci/nobody/nonce`, { method: 'POST' })).status).toBe(404)
  })
})

describe('storage', () => {
  it('the offer ids, PINs, codes, tokens and nonces are not in the SQLite bytes', () => {
    expect(secrets.length).toBeGreaterThan(10)
    const bytes = rig.databaseBytes()
    expect(bytes.length).toBeGreaterThan(0)
    for (const secret of secrets) expect(bytes.includes(secret), secret).toBe(false)
  })
})
