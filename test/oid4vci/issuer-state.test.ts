/**
 * Offers with the authorization code grant (issue 33 §2, helper "offers"): `createCredentialOffer({ grants })` puts an
 * `issuer_state` in the offer; a PAR carrying it is bound to the offer — the `authorize` hook sees the offer's
 * configurations and claims, the offer's claims are issued when the hook gives none, and the offer is redeemed once
 * (its pre-authorized code is dead afterwards, and the other way round). Unknown, expired, replayed and another
 * tenant's `issuer_state` → 400 `invalid_request`, nothing written. Driven by @openid4vc/openid4vci's client over the
 * router on loopback HTTP (SQLite), real token and credential endpoints.
 */
import { createHash, randomBytes } from 'node:crypto'
import { Openid4vciClient } from '@openid4vc/openid4vci'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { oid4vci, type AuthorizeAnswer, type AuthorizeRequest } from '../../src/oid4vc.js'
import { snapshot, startHarness, TENANT_A, TENANT_B, type Harness } from '../helpers/harness.js'
import { newP256, oid4vcCallbacks } from '../helpers/oid4vci-callbacks.js'

const ORIGIN = 'https://issuer.test'
const PUBLIC_URL = `${ORIGIN}/identity`
const CI = `${PUBLIC_URL}/oid4vci/acme`
const REDIRECT_URI = 'https://wallet.example/callback'
const CLIENT_ID = 'test-wallet'
const PRE_AUTHORIZED = 'urn:ietf:params:oauth:grant-type:pre-authorized_code'

let h: Harness
let base: string
let offset = 0
const didAuth: Record<string, string> = {}
const asked: AuthorizeRequest[] = []
let answer: AuthorizeAnswer = { subject: 'user-1' }

/** The loopback URL of a public one. */
const local = (url: string) => base + url.slice(ORIGIN.length)
const loopback: typeof fetch = (input, init) => fetch(local(String(input instanceof Request ? input.url : input)), init)

/** A tenant's issuer `slug` with SD-JWT VC configurations Identity and Other; the DID-auth JWT of its issuing DID. */
async function issuerOf(token: string, slug: string): Promise<string> {
  // h.request answers with the body as parsed JSON.
  const made = await h.request('POST', '/wallet', { token, json: { walletConfig: { didMethod: 'jwk', keyType: 'P-256' } } })
  const jwt = (await h.request('POST', '/did-auth-jwt', { token, json: { iss: made.body.wallet.did } })).body.jwt
  for (const id of ['Identity', 'Other']) {
    const created = await h.request('POST', '/oid4vci/configurations', {
      token,
      json: { id, issuer: slug, format: 'dc+sd-jwt', vct: `https://credentials.example.com/${id}`, issuingDid: made.body.wallet.did },
      didAuth: jwt,
    })
    expect(created.status).toBe(200)
  }
  return jwt
}

beforeAll(async () => {
  h = await startHarness({
    storage: 'sqlite',
    service: {
      publicUrl: PUBLIC_URL,
      now: () => Date.now() + offset,
      oid4vci: oid4vci({
        authorize: async (request) => {
          asked.push(request)
          return answer
        },
      }),
    },
  })
  base = h.url.replace(/\/identity$/, '')
  didAuth.acme = await issuerOf(TENANT_A, 'acme')
  didAuth.bravo = await issuerOf(TENANT_B, 'bravo')
}, 120_000)
afterAll(() => h?.close())

/** An offer of acme's Identity with these grants; the offer response and the offer document wallets fetch. */
async function offer(grants: string[], claims: Record<string, unknown> = { given_name: 'Erika' }, slug = 'acme') {
  const made = await h.request('POST', '/oid4vci/offers', {
    ...(slug === 'bravo' && { token: TENANT_B }),
    json: { configurations: [{ id: 'Identity', claims }], grants },
    didAuth: didAuth[slug],
  })
  expect(made.status, JSON.stringify(made.body)).toBe(200)
  const document = (await (await loopback(made.body.credentialOfferUri)).json()) as Record<string, any>
  return { made: made.body as Record<string, any>, document, issuerState: document.grants.authorization_code?.issuer_state as string }
}

/** POSTs a form to a public URL of the issuer; the JSON answer. */
async function postForm(url: string, form: Record<string, string>) {
  const res = await loopback(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  })
  return { status: res.status, body: (await res.json()) as Record<string, any> }
}

/** A raw PAR for Identity with `issuer_state`. */
function par(issuerState: string, slug = 'acme', fields: Record<string, string> = {}) {
  const challenge = createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url')
  return postForm(`${PUBLIC_URL}/oid4vci/${slug}/par`, {
    client_id: CLIENT_ID,
    response_type: 'code',
    redirect_uri: REDIRECT_URI,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    scope: 'Identity',
    issuer_state: issuerState,
    ...fields,
  })
}

/** The pre-authorized code grant of an offer document, raw. */
const preAuthorized = (document: Record<string, any>) =>
  postForm(`${CI}/token`, { grant_type: PRE_AUTHORIZED, 'pre-authorized_code': document.grants[PRE_AUTHORIZED]['pre-authorized_code'] })

/** Follows the authorization endpoint's redirect to the wallet's `redirect_uri`; its `code`. */
async function codeOf(authorizationRequestUrl: string): Promise<string> {
  const res = await fetch(local(authorizationRequestUrl), { redirect: 'manual' })
  const location = new URL(res.headers.get('location')!)
  expect(location.origin + location.pathname).toBe(REDIRECT_URI)
  return location.searchParams.get('code')!
}

/** The disclosed claims of a compact SD-JWT VC. */
function disclosed(sdJwt: string): Record<string, unknown> {
  const parts = sdJwt.split('~').slice(1).filter(Boolean)
  return Object.fromEntries(
    parts.map((d) => JSON.parse(Buffer.from(d, 'base64url').toString()) as unknown[]).map((d) => [d[1] as string, d[2]]),
  )
}

/** The wallet side of the authorization code flow from an offer URI, by the @openid4vc client with DPoP: the credential. */
async function walletRedeems(offerUri: string) {
  const holder = newP256()
  const dpopKey = newP256()
  const client = new Openid4vciClient({ callbacks: oid4vcCallbacks([holder, dpopKey], loopback) })
  const credentialOffer = await client.resolveCredentialOffer(offerUri)
  const issuerMetadata = await client.resolveIssuerMetadata(credentialOffer.credential_issuer)
  const authorization = await client.createAuthorizationRequestUrlFromOffer({
    credentialOffer,
    issuerMetadata,
    clientId: CLIENT_ID,
    redirectUri: REDIRECT_URI,
    scope: 'Identity',
    dpop: { signer: { method: 'jwk', alg: 'ES256', publicJwk: dpopKey.publicJwk } },
  })
  const code = await codeOf(authorization.authorizationRequestUrl)
  const token = await client.retrieveAuthorizationCodeAccessTokenFromOffer({
    credentialOffer,
    issuerMetadata,
    authorizationCode: code,
    pkceCodeVerifier: authorization.pkce?.codeVerifier,
    redirectUri: REDIRECT_URI,
    dpop: authorization.dpop,
  })
  const { c_nonce: nonce } = await client.requestNonce({ issuerMetadata })
  const { jwt } = await client.createCredentialRequestJwtProof({
    issuerMetadata,
    credentialConfigurationId: 'Identity',
    signer: { method: 'jwk', alg: 'ES256', publicJwk: holder.publicJwk },
    nonce,
  })
  const retrieved = await client.retrieveCredentials({
    issuerMetadata,
    accessToken: token.accessTokenResponse.access_token,
    credentialConfigurationId: 'Identity',
    proofs: { jwt: [jwt] },
    dpop: token.dpop,
  })
  const credential = (retrieved.credentialResponse.credentials![0] as { credential: string }).credential
  return { credential, holder, credentialOffer }
}

/** What a refusal must leave as it was: every collection but the audit trail. */
const unchanged = async (act: () => Promise<unknown>) => {
  const before = await snapshot(h)
  await act()
  expect(await snapshot(h)).toEqual(before)
}

describe('offers with the authorization_code grant (issuer_state)', () => {
  it('the offer document carries the grants asked for: issuer_state only, or both; a PIN needs the pre-authorized grant', async () => {
    const auth = await offer(['authorization_code'])
    expect(Object.keys(auth.document.grants)).toEqual(['authorization_code'])
    expect(auth.issuerState).toMatch(/^[A-Za-z0-9_-]{43}$/)
    const both = await offer(['pre-authorized_code', 'authorization_code'])
    expect(Object.keys(both.document.grants).sort()).toEqual(['authorization_code', PRE_AUTHORIZED].sort())
    expect(both.issuerState).not.toBe(both.document.grants[PRE_AUTHORIZED]['pre-authorized_code'])
    expect(Object.keys((await offer(['pre-authorized_code'])).document.grants)).toEqual([PRE_AUTHORIZED])

    await unchanged(async () => {
      const pin = await h.request('POST', '/oid4vci/offers', {
        json: { configurations: [{ id: 'Identity', claims: {} }], grants: ['authorization_code'], txCode: true },
        didAuth: didAuth.acme,
      })
      expect(pin.status).toBe(422)
      expect(pin.body.errorMessage).toMatch(/txCode/)
      const twice = await h.request('POST', '/oid4vci/offers', {
        json: { configurations: [{ id: 'Identity', claims: {} }], grants: ['authorization_code', 'authorization_code'] },
        didAuth: didAuth.acme,
      })
      expect(twice.status).toBe(422)
      const unknown = await h.request('POST', '/oid4vci/offers', {
        json: { configurations: [{ id: 'Identity', claims: {} }], grants: ['implicit'] },
        didAuth: didAuth.acme,
      })
      expect(unknown.status).toBe(422)
    })
    // Neither value is in the database.
    const rows = JSON.stringify(await h.storage.collection('one_time').find({ and: [] }, { limit: 5000 }))
    const offers = JSON.stringify(await h.storage.collection('oid4vci_offers').find({ and: [] }, { limit: 5000 }))
    for (const secret of [auth.issuerState, both.issuerState, both.document.grants[PRE_AUTHORIZED]['pre-authorized_code']]) {
      expect(rows + offers).not.toContain(secret)
    }
  })

  it('@openid4vc’s client: PAR with the offer’s issuer_state → the hook sees the offer → the offer’s claims are issued', async () => {
    answer = { subject: 'user-1' }
    const { made } = await offer(['authorization_code'], { given_name: 'Erika', family_name: 'Mustermann' })
    const { credential, holder } = await walletRedeems(made.offerUri)
    expect(asked.at(-1)).toMatchObject({
      credentialConfigurationIds: ['Identity'],
      offer: { configurationIds: ['Identity'], claims: { Identity: { given_name: 'Erika', family_name: 'Mustermann' } } },
    })
    expect(disclosed(credential)).toMatchObject({ given_name: 'Erika', family_name: 'Mustermann' })
    const payload = JSON.parse(Buffer.from(credential.split('.')[1], 'base64url').toString()) as Record<string, any>
    expect(payload.cnf.jwk.x).toBe(holder.publicJwk.x)
    // The issuance is audited with the offer it came from.
    await h.service.chainAuditRecords()
    const { records } = await h.service
      .as({ authorization: `Bearer ${TENANT_A}` })
      .getAuditRecords({ action: 'credential.issue', limit: 1000 })
    expect(records.some((r) => typeof r.target.offer === 'string')).toBe(true)
  }, 60_000)

  it('the hook’s own claims win over the offer’s, per configuration', async () => {
    answer = { subject: 'user-2', claims: { Identity: { given_name: 'Verified' } } }
    const { made } = await offer(['authorization_code'], { given_name: 'Offered' })
    const { credential } = await walletRedeems(made.offerUri)
    expect(disclosed(credential)).toMatchObject({ given_name: 'Verified' })
    answer = { subject: 'user-1' }
  }, 60_000)

  it('a PAR with the issuer_state redeems the offer: its pre-authorized code → invalid_grant, a second PAR → invalid_request', async () => {
    const { document, issuerState } = await offer(['pre-authorized_code', 'authorization_code'])
    const first = await par(issuerState)
    expect(first.status).toBe(201)
    const code = await preAuthorized(document)
    expect(code).toMatchObject({ status: 400, body: { error: 'invalid_grant' } })
    await unchanged(async () => {
      expect(await par(issuerState)).toMatchObject({ status: 400, body: { error: 'invalid_request' } })
    })
  })

  it('the pre-authorized code first: the issuer_state is dead (invalid_request, nothing written)', async () => {
    const { document, issuerState } = await offer(['pre-authorized_code', 'authorization_code'])
    expect((await preAuthorized(document)).status).toBe(200)
    await unchanged(async () => {
      expect(await par(issuerState)).toMatchObject({ status: 400, body: { error: 'invalid_request' } })
    })
  })

  it('unknown, another tenant’s and expired issuer_state → 400 invalid_request, nothing written; the offer stays good', async () => {
    const bravo = await offer(['authorization_code'], { given_name: 'B' }, 'bravo')
    const acme = await offer(['authorization_code'])
    await unchanged(async () => {
      expect(await par('not-an-issuer-state')).toMatchObject({ status: 400, body: { error: 'invalid_request' } })
      expect(await par(bravo.issuerState)).toMatchObject({ status: 400, body: { error: 'invalid_request' } })
      // A configuration the offer does not name.
      expect(await par(acme.issuerState, 'acme', { scope: 'Other' })).toMatchObject({ status: 400, body: { error: 'invalid_request' } })
    })
    // Both offers are still redeemable at their own issuer.
    expect((await par(bravo.issuerState, 'bravo')).status).toBe(201)
    expect((await par(acme.issuerState)).status).toBe(201)

    const late = await offer(['authorization_code'])
    offset += 601_000
    try {
      await unchanged(async () => {
        expect(await par(late.issuerState)).toMatchObject({ status: 400, body: { error: 'invalid_request' } })
      })
    } finally {
      offset -= 601_000
    }
  })

  it('the issuer_state is never shown to the hook and not kept with the pushed request', async () => {
    const { issuerState } = await offer(['authorization_code'])
    expect((await par(issuerState)).status).toBe(201)
    const rows = JSON.stringify(await h.storage.collection('one_time').find({ and: [] }, { limit: 5000 }))
    expect(rows).not.toContain(issuerState)
    expect(JSON.stringify(asked)).not.toContain(issuerState)
  })
})
