/**
 * Deferred completion beyond the access token's lifetime (issue 33, helper "offers"): a grant covering a deferred
 * configuration gets a `refresh_token` (RFC 6749 §6) — single use, rotated, bound to the DPoP key, good for the
 * module's `deferredTtlSeconds` — and the token endpoint's `grant_type=refresh_token` answers a new access token of the
 * same grant, which collects the deferred credential after the first token expired (the service clock moved on).
 * Replayed, expired and another tenant's refresh tokens → `invalid_grant`, a proof by another key →
 * `invalid_dpop_proof`, nothing written. @openid4vc/openid4vci's client (and @openid4vc/oauth2's for the refresh) over
 * the router on loopback HTTP (SQLite).
 */
import { createHash } from 'node:crypto'
import { Openid4vciClient } from '@openid4vc/openid4vci'
import { Oauth2Client } from '@openid4vc/oauth2'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { IdentityService } from '../../src/index.js'
import { oid4vci } from '../../src/oid4vc.js'
import type { StorageAdapter } from '../../src/storage/port.js'
import { newP256, oid4vcCallbacks, thumbprint, type KeyPair } from '../helpers/oid4vci-callbacks.js'
import { TENANT_A, TENANT_B } from '../helpers/harness.js'
import { ISSUER_PUBLIC_URL, loopbackIssuer, type LoopbackIssuer } from '../helpers/oid4vci-loopback.js'

const PUBLIC_URL = ISSUER_PUBLIC_URL
const ACCESS_TTL = 60
const DEFERRED_TTL = 3_600

let rig: LoopbackIssuer
let service: IdentityService
let storage: StorageAdapter
let offset = 0
const secrets: string[] = []

/** Requests to https://issuer.test go to the loopback server. */
const loopback: typeof fetch = (input, init) => rig.loopback(input, init)

/** A tenant's issuer: a deferred configuration Licence and an immediate one Badge; the backend's API with DID control. */
async function issuerOf(token: string, slug: string) {
  const api = service.as({ authorization: `Bearer ${token}` })
  const { wallet } = await api.generateWallet({ walletConfig: { didMethod: 'jwk', keyType: 'P-256' } })
  const withDid = service.as({ authorization: `Bearer ${token}`, didAuth: (await api.generateToken({ iss: wallet.did })).jwt })
  for (const [id, deferred] of [
    ['Licence', true],
    ['Badge', false],
  ] as const)
    await withDid.createCredentialConfiguration({
      id,
      issuer: slug,
      format: 'dc+sd-jwt',
      vct: `https://credentials.example.com/${id}`,
      issuingDid: wallet.did,
      deferred,
    })
  return { api, withDid, slug }
}
let acme: Awaited<ReturnType<typeof issuerOf>>

beforeAll(async () => {
  rig = await loopbackIssuer('didvault-refresh-', {
    now: () => Date.now() + offset,
    oid4vci: oid4vci({ deferredIntervalSeconds: 1, accessTokenTtlSeconds: ACCESS_TTL, deferredTtlSeconds: DEFERRED_TTL }),
  })
  ;({ service, storage } = rig)
  acme = await issuerOf(TENANT_A, 'acme')
  await issuerOf(TENANT_B, 'bravo')
}, 60_000)

afterAll(() => rig?.close())

/** Moves the service clock on by `seconds` (access tokens and refresh tokens expire by it). */
const shift = (seconds: number) => (offset += seconds * 1000)

/** POSTs a form to the issuer's token endpoint; the JSON answer. */
async function tokenRequest(slug: string, form: Record<string, string>) {
  const res = await loopback(`${PUBLIC_URL}/oid4vci/${slug}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  })
  return { status: res.status, body: (await res.json()) as Record<string, any> }
}

/** A digest of every collection but the audit trail's (what a refusal must leave as it was). */
async function state(): Promise<string> {
  const hash = createHash('sha256')
  for (const name of ['one_time', 'oid4vci_offers', 'oid4vci_deferred', 'credentials']) {
    hash.update(JSON.stringify((await storage.collection(name).find({ and: [] }, { limit: 10_000 })).items))
  }
  return hash.digest('hex')
}

/**
 * The wallet up to a deferred answer, by the @openid4vc client: an offer of `configurationId`, a token (DPoP-bound
 * unless `bearer`), a key proof, 202. With the client's refresh (@openid4vc/oauth2) and deferred poll.
 */
async function deferredWallet(issuer = acme, options: { bearer?: boolean; configurationId?: string } = {}) {
  const configurationId = options.configurationId ?? 'Licence'
  const made = await issuer.withDid.createCredentialOffer({ configurations: [{ id: configurationId, claims: { given_name: 'Erika' } }] })
  const holder = newP256()
  const dpopKey = newP256()
  const intruder = newP256()
  const callbacks = oid4vcCallbacks([holder, dpopKey, intruder], loopback)
  const client = new Openid4vciClient({ callbacks })
  const credentialOffer = await client.resolveCredentialOffer(made.offerUri)
  const issuerMetadata = await client.resolveIssuerMetadata(credentialOffer.credential_issuer)
  const signer = (key: KeyPair) => ({ signer: { method: 'jwk' as const, alg: 'ES256', publicJwk: key.publicJwk } })
  const token = await client.retrievePreAuthorizedCodeAccessTokenFromOffer({
    credentialOffer,
    issuerMetadata,
    ...(!options.bearer && { dpop: signer(dpopKey) }),
  })
  const { c_nonce: nonce } = await client.requestNonce({ issuerMetadata })
  const { jwt } = await client.createCredentialRequestJwtProof({
    issuerMetadata,
    credentialConfigurationId: configurationId,
    signer: { method: 'jwk', alg: 'ES256', publicJwk: holder.publicJwk },
    nonce,
  })
  const retrieved = await client.retrieveCredentials({
    issuerMetadata,
    accessToken: token.accessTokenResponse.access_token,
    credentialConfigurationId: configurationId,
    proofs: { jwt: [jwt] },
    dpop: token.dpop,
  })
  const transactionId = retrieved.credentialResponse.transaction_id
  const refreshToken = token.accessTokenResponse.refresh_token
  secrets.push(made.offerId, token.accessTokenResponse.access_token, ...(refreshToken ? [refreshToken] : []))
  const oauth2 = new Oauth2Client({ callbacks })
  const authorizationServerMetadata = issuerMetadata.authorizationServers[0]
  return {
    token,
    transactionId,
    holder,
    refreshToken,
    /** The refresh grant by @openid4vc/oauth2's client, with a DPoP proof by `key` (default the token's, none for bearer). */
    refresh: async (value: string, key: KeyPair | undefined = options.bearer ? undefined : dpopKey) => {
      const answer = await oauth2.retrieveRefreshTokenAccessToken({
        authorizationServerMetadata,
        refreshToken: value,
        ...(key && { dpop: signer(key) }),
      })
      secrets.push(answer.accessTokenResponse.access_token, answer.accessTokenResponse.refresh_token ?? '')
      return answer
    },
    /** One poll of the deferred credential endpoint with `accessToken` (DPoP by the token's key). */
    poll: (accessToken: string, dpop?: { signer: { method: 'jwk'; alg: string; publicJwk: KeyPair['publicJwk'] }; nonce?: string }) =>
      client.retrieveDeferredCredentials({ issuerMetadata, accessToken, transactionId: transactionId!, dpop }),
    dpopKey,
    intruder,
    signer,
  }
}

/** The pending issuance of `holder`, completed by the backend. */
async function complete(holder: KeyPair, issuer = acme) {
  const jkt = await thumbprint(holder.publicJwk)
  const mine = (await issuer.api.getDeferredCredentials({})).deferred.find((d) => d.holderKeys.includes(jkt))!
  await issuer.withDid.completeDeferredCredential({ reference: mine.reference })
}

describe('refresh tokens for deferred issuance', () => {
  it('the authorization server metadata lists refresh_token (the issuer has a deferred configuration)', async () => {
    const res = await loopback(`${PUBLIC_URL}/oid4vci/acme/.well-known/oauth-authorization-server`)
    expect(((await res.json()) as { grant_types_supported: string[] }).grant_types_supported).toContain('refresh_token')
  })

  it('a grant of no deferred configuration gets no refresh token', async () => {
    const made = await acme.withDid.createCredentialOffer({ configurations: [{ id: 'Badge', claims: { given_name: 'Erika' } }] })
    const document = (await (await loopback(made.credentialOfferUri)).json()) as Record<string, any>
    const code = document.grants['urn:ietf:params:oauth:grant-type:pre-authorized_code']['pre-authorized_code']
    const answered = await tokenRequest('acme', {
      grant_type: 'urn:ietf:params:oauth:grant-type:pre-authorized_code',
      'pre-authorized_code': code,
    })
    expect(answered.status).toBe(200)
    expect(answered.body.refresh_token).toBeUndefined()
  })

  it('collects after the first access token expired: the refreshed token (rotated refresh token) fetches the credential', async () => {
    const wallet = await deferredWallet()
    expect(wallet.transactionId).toBeDefined()
    expect(wallet.refreshToken).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(wallet.token.accessTokenResponse.token_type).toBe('DPoP')
    await complete(wallet.holder)
    shift(ACCESS_TTL + 60)
    // The first access token is dead.
    await expect(wallet.poll(wallet.token.accessTokenResponse.access_token, wallet.signer(wallet.dpopKey))).rejects.toThrow(/invalid_token/)

    const refreshed = await wallet.refresh(wallet.refreshToken!)
    const renewed = refreshed.accessTokenResponse
    expect(renewed).toMatchObject({ token_type: 'DPoP', expires_in: ACCESS_TTL })
    expect(renewed.refresh_token).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(renewed.refresh_token).not.toBe(wallet.refreshToken)
    expect(renewed.access_token).not.toBe(wallet.token.accessTokenResponse.access_token)

    const ready = await wallet.poll(renewed.access_token, { ...wallet.signer(wallet.dpopKey), ...refreshed.dpop })
    expect(ready.response.status).toBe(200)
    const credential = (ready.deferredCredentialResponse.credentials![0] as { credential: string }).credential
    const payload = JSON.parse(Buffer.from(credential.split('.')[1], 'base64url').toString()) as Record<string, any>
    expect(payload.cnf.jwk.x).toBe(wallet.holder.publicJwk.x)

    // The used refresh token is dead: a replay → invalid_grant, nothing written; the rotated one still works.
    const before = await state()
    await expect(wallet.refresh(wallet.refreshToken!)).rejects.toThrow(/invalid_grant/)
    expect(await state()).toBe(before)
    expect((await wallet.refresh(renewed.refresh_token!)).accessTokenResponse.token_type).toBe('DPoP')
  }, 60_000)

  it('bound to the DPoP key: a proof by another key, or none → invalid_dpop_proof, nothing written; the token stays good', async () => {
    const wallet = await deferredWallet()
    const before = await state()
    await expect(wallet.refresh(wallet.refreshToken!, wallet.intruder)).rejects.toThrow(/invalid_dpop_proof/)
    const bare = await tokenRequest('acme', { grant_type: 'refresh_token', refresh_token: wallet.refreshToken! })
    expect(bare).toMatchObject({ status: 400, body: { error: 'invalid_dpop_proof' } })
    expect(await state()).toBe(before)
    expect((await wallet.refresh(wallet.refreshToken!)).accessTokenResponse.token_type).toBe('DPoP')
  }, 60_000)

  it('a Bearer grant gets a Bearer refresh: raw HTTP, the new token is Bearer, and a DPoP proof on it is refused', async () => {
    const wallet = await deferredWallet(acme, { bearer: true })
    expect(wallet.token.accessTokenResponse.token_type.toLowerCase()).toBe('bearer')
    const before = await state()
    await expect(wallet.refresh(wallet.refreshToken!, wallet.dpopKey)).rejects.toThrow(/invalid_dpop_proof/)
    expect(await state()).toBe(before)
    const raw = await tokenRequest('acme', { grant_type: 'refresh_token', refresh_token: wallet.refreshToken! })
    expect(raw.status).toBe(200)
    expect(raw.body).toMatchObject({ token_type: 'bearer', expires_in: ACCESS_TTL, refresh_token: expect.any(String) })
    secrets.push(raw.body.access_token, raw.body.refresh_token)
    await complete(wallet.holder)
    const res = await loopback(`${PUBLIC_URL}/oid4vci/acme/deferred-credential`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${raw.body.access_token}` },
      body: JSON.stringify({ transaction_id: wallet.transactionId }),
    })
    expect(res.status).toBe(200)
    expect(((await res.json()) as { credentials: unknown[] }).credentials).toHaveLength(1)
  }, 60_000)

  it('another tenant’s refresh token, an unknown one, a missing one: invalid_grant / invalid_request, nothing written', async () => {
    const wallet = await deferredWallet(acme, { bearer: true })
    const before = await state()
    expect(await tokenRequest('bravo', { grant_type: 'refresh_token', refresh_token: wallet.refreshToken! })).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant' },
    })
    expect(await tokenRequest('acme', { grant_type: 'refresh_token', refresh_token: 'not-a-refresh-token' })).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant' },
    })
    expect(await tokenRequest('acme', { grant_type: 'refresh_token' })).toMatchObject({ status: 400, body: { error: 'invalid_request' } })
    expect(await state()).toBe(before)
    expect((await tokenRequest('acme', { grant_type: 'refresh_token', refresh_token: wallet.refreshToken! })).status).toBe(200)
  }, 60_000)

  it('expires with the deferred transaction’s lifetime (deferredTtlSeconds): invalid_grant, nothing written', async () => {
    const wallet = await deferredWallet(acme, { bearer: true })
    shift(DEFERRED_TTL + 1)
    const before = await state()
    expect(await tokenRequest('acme', { grant_type: 'refresh_token', refresh_token: wallet.refreshToken! })).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant' },
    })
    expect(await state()).toBe(before)
  }, 60_000)

  it('refresh tokens (and access tokens, offer ids) are not in the database’s bytes', () => {
    expect(secrets.filter(Boolean).length).toBeGreaterThan(10)
    const bytes = rig.databaseBytes()
    for (const secret of secrets.filter(Boolean)) expect(bytes.includes(secret), secret).toBe(false)
  })
})
