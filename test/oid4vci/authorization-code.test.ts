/**
 * The authorization code flow of the OID4VCI issuer (issue 33 §2), over the router on loopback HTTP with a SQLite file:
 * PAR → authorization (the embedded `authorize` hook, or the operator's login page returning a signed assertion) →
 * code → the token endpoint's `authorization_code` grant (`redeemAuthorizationCode`), driven by @openid4vc/openid4vci's
 * client; and the refusals a wallet or an attacker meets (PKCE, replays, redirect_uri, expiry, unknown configuration,
 * forged/expired/replayed/foreign login assertions, hook refusal). The token endpoint itself is the offer-token
 * helper's: here a test-side endpoint parses the request with the adapter, calls `redeemAuthorizationCode` and stores
 * the access token as that endpoint will.
 */
import { createHash, randomBytes } from 'node:crypto'
import * as jose from 'jose'
import { Openid4vciClient } from '@openid4vc/openid4vci'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { oid4vci, OAuthError, type AuthorizeAnswer, type AuthorizeRequest, type Oid4vciRuntime } from '../../src/oid4vc.js'
import { redeemAuthorizationCode } from '../../src/oid4vci/authorization-code.js'
import { openAccessToken, sealAccessToken } from '../../src/oid4vci/access-tokens.js'
import type { AccessGrant } from '../../src/oid4vci/grants.js'
import { snapshot, startHarness, TENANT_A, type Harness } from '../helpers/harness.js'
import { newP256, oid4vcCallbacks, thumbprint } from '../helpers/oid4vci-callbacks.js'

const ORIGIN = 'https://issuer.test'
const PUBLIC_URL = `${ORIGIN}/identity`
const CI = `${PUBLIC_URL}/oid4vci/acme`
const REDIRECT_URI = 'https://wallet.example/callback'
const CLIENT_ID = 'test-wallet'
const TENANT = 'tenant-a'
const LOGIN_URL = 'https://login.example/login'

/** A PKCE pair (S256). */
function pkce() {
  const verifier = randomBytes(32).toString('base64url')
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') }
}

/** The service under test, its HTTP base, and the test-side token endpoint. */
interface Issuer {
  h: Harness
  base: string
  runtime: Oid4vciRuntime
  /** Sets the service clock ahead (one-time values expire by it). */
  shift(ms: number): void
  /** A DID-auth JWT of the configurations' issuing DID (to make offers). */
  didAuth: string
}

async function startIssuer(options: Parameters<typeof oid4vci>[0]): Promise<Issuer> {
  let offset = 0
  const module = oid4vci(options)
  const h = await startHarness({
    storage: 'sqlite',
    service: { publicUrl: PUBLIC_URL, oid4vci: module, now: () => Date.now() + offset },
  })
  const made = await h.request('POST', '/wallet', { json: { walletConfig: { didMethod: 'jwk', keyType: 'P-256' } } })
  const did: string = made.body.wallet.did
  const jwt = (await h.request('POST', '/did-auth-jwt', { json: { iss: did } })).body.jwt
  for (const id of ['Identity', 'Other']) {
    const created = await h.request('POST', '/oid4vci/configurations', {
      json: { id, issuer: 'acme', format: 'dc+sd-jwt', vct: `https://credentials.example.com/${id}`, issuingDid: did },
      didAuth: jwt,
    })
    expect(created.status).toBe(200)
  }
  return {
    h,
    base: h.url.replace(/\/identity$/, ''),
    runtime: module.start(async () => undefined),
    shift: (ms) => (offset += ms),
    didAuth: jwt,
  }
}

/** The loopback URL of a public one. */
const local = (issuer: Issuer, url: string) => issuer.base + url.slice(ORIGIN.length)

/** POSTs a form to the issuer; the JSON answer. */
async function postForm(issuer: Issuer, path: string, form: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await fetch(`${issuer.h.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  })
  return { status: res.status, body: (await res.json()) as Record<string, any>, headers: res.headers }
}

/** GETs a public URL of the issuer without following redirects. */
async function visit(issuer: Issuer, url: string) {
  const res = await fetch(local(issuer, url), { redirect: 'manual' })
  const text = await res.text()
  return {
    status: res.status,
    location: res.headers.get('location'),
    requestId: res.headers.get('x-request-id') ?? undefined,
    body: text ? (JSON.parse(text) as Record<string, any>) : undefined,
  }
}

/** The tenant's `credential.authorize` audit records of one request, once every committed one is chained. */
async function authorizations(issuer: Issuer, requestId: string) {
  await issuer.h.service.chainAuditRecords()
  const { records } = await issuer.h.service
    .as({ authorization: `Bearer ${TENANT_A}` })
    .getAuditRecords({ action: 'credential.authorize', limit: 1000 })
  return records.filter((r) => r.requestId === requestId)
}

/** A PAR with these fields (defaults: Identity by authorization_details, PKCE, redirect_uri); the `request_uri`. */
async function par(issuer: Issuer, fields: Record<string, string> = {}) {
  const { verifier, challenge } = pkce()
  const form = {
    client_id: CLIENT_ID,
    response_type: 'code',
    redirect_uri: REDIRECT_URI,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    authorization_details: JSON.stringify([{ type: 'openid_credential', credential_configuration_id: 'Identity' }]),
    state: 'wallet-state',
    ...fields,
  }
  // An empty field is left out of the form.
  const res = await postForm(issuer, '/oid4vci/acme/par', Object.fromEntries(Object.entries(form).filter(([, value]) => value !== '')))
  return { ...res, verifier, requestUri: res.body.request_uri as string }
}

const authorizeUrl = (requestUri: string, clientId = CLIENT_ID) =>
  `${CI}/authorize?client_id=${encodeURIComponent(clientId)}&request_uri=${encodeURIComponent(requestUri)}`

/** The test-side token endpoint: the adapter parses, `redeemAuthorizationCode` grants, the token is sealed. */
async function token(
  issuer: Issuer,
  form: Record<string, string>,
  dpop?: string,
): Promise<{ status: number; body: any; grant?: AccessGrant }> {
  const request = { method: 'POST', url: `${CI}/token`, ...(dpop !== undefined && { dpop }) }
  const ctx = { storage: issuer.h.storage, oneTime: issuer.h.service.oneTime, oid4vci: issuer.runtime, config: { publicUrl: PUBLIC_URL } }
  try {
    const parsed = issuer.runtime.protocol.token.parseTokenRequest(request, form)
    const proof = dpop === undefined ? undefined : await issuer.runtime.protocol.dpop.verify(request)
    const grant = await redeemAuthorizationCode(ctx, TENANT, { issuer: 'acme', credentialIssuer: CI, request, token: parsed }, proof)
    const accessToken = sealAccessToken(issuer.h.service.oneTime, TENANT, grant, 300_000)
    return { status: 200, body: issuer.runtime.lib.tokenResponse({ accessToken, expiresInSeconds: 300, dpopJkt: grant.jkt }), grant }
  } catch (err) {
    if (err instanceof OAuthError) return { status: err.statusCode, body: err.oauthBody() }
    throw err
  }
}

/** Redeems the code of a redirect with the verifier. */
const redeem = (issuer: Issuer, code: string, verifier: string, overrides: Record<string, string> = {}) =>
  token(issuer, {
    grant_type: 'authorization_code',
    code,
    code_verifier: verifier,
    redirect_uri: REDIRECT_URI,
    client_id: CLIENT_ID,
    ...overrides,
  })

const CLAIMS = { Identity: { given_name: 'Erika', family_name: 'Mustermann' } }

describe('authorization code flow with the embedded authorize hook', () => {
  let issuer: Issuer
  const asked: AuthorizeRequest[] = []
  let answer: AuthorizeAnswer = { subject: 'user-1', claims: CLAIMS }
  beforeAll(async () => {
    issuer = await startIssuer({
      authorize: async (request) => {
        asked.push(request)
        return answer
      },
    })
  }, 120_000)
  afterAll(() => issuer?.h.close())

  it('@openid4vc/openid4vci’s client: PAR (scope, an offer’s issuer_state, DPoP) → authorize → code → DPoP-bound token with the hook’s claims', async () => {
    const dpopKey = newP256()
    const redirected: string[] = []
    const callbacks = oid4vcCallbacks([dpopKey], async (input, init) => {
      const url = String(input instanceof Request ? input.url : input)
      if (!url.startsWith(ORIGIN)) throw new Error(`unexpected request to ${url}`)
      if (url === `${CI}/token`) {
        const form = Object.fromEntries(new URLSearchParams(init?.body as string))
        const answered = await token(issuer, form, new Headers(init?.headers).get('dpop') ?? undefined)
        return Response.json(answered.body, { status: answered.status })
      }
      return fetch(local(issuer, url), init)
    })
    const client = new Openid4vciClient({ callbacks })
    const made = await issuer.h.request('POST', '/oid4vci/offers', {
      json: { configurations: [{ id: 'Identity', claims: { given_name: 'Offered' } }], grants: ['authorization_code'] },
      didAuth: issuer.didAuth,
    })
    expect(made.status).toBe(200)
    const resolved = await client.resolveCredentialOffer(made.body.offerUri)
    expect(Object.keys(resolved.grants ?? {})).toEqual(['authorization_code'])
    const issuerMetadata = await client.resolveIssuerMetadata(resolved.credential_issuer)
    const dpop = { signer: { method: 'jwk' as const, alg: 'ES256', publicJwk: dpopKey.publicJwk } }
    const authorization = await client.createAuthorizationRequestUrlFromOffer({
      credentialOffer: resolved,
      issuerMetadata,
      clientId: CLIENT_ID,
      redirectUri: REDIRECT_URI,
      scope: 'Identity',
      dpop,
    })
    expect(authorization.authorizationRequestUrl.startsWith(`${CI}/authorize?`)).toBe(true)
    const back = await visit(issuer, authorization.authorizationRequestUrl)
    expect(back.status).toBe(302)
    redirected.push(back.location!)
    const location = new URL(back.location!)
    expect(location.origin + location.pathname).toBe(REDIRECT_URI)
    expect(location.searchParams.get('iss')).toBe(CI)
    const code = location.searchParams.get('code')!
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(asked.at(-1)).toMatchObject({
      tenantId: TENANT,
      credentialIssuer: CI,
      clientId: expect.any(String),
      redirectUri: REDIRECT_URI,
      credentialConfigurationIds: ['Identity'],
      offer: { configurationIds: ['Identity'], claims: { Identity: { given_name: 'Offered' } } },
    })
    expect(JSON.stringify(asked.at(-1))).not.toContain(resolved.grants!.authorization_code!.issuer_state!)

    const tokens = await client.retrieveAuthorizationCodeAccessTokenFromOffer({
      credentialOffer: resolved,
      issuerMetadata,
      authorizationCode: code,
      pkceCodeVerifier: authorization.pkce?.codeVerifier,
      redirectUri: REDIRECT_URI,
      dpop: authorization.dpop,
    })
    expect(tokens.accessTokenResponse.token_type).toBe('DPoP')
    const grant = openAccessToken(issuer.h.service.oneTime, TENANT, 'acme', tokens.accessTokenResponse.access_token)
    expect(grant).toEqual({
      issuer: 'acme',
      configurationIds: ['Identity'],
      claims: CLAIMS,
      subject: 'user-1',
      clientId: asked.at(-1)!.clientId,
      offerId: expect.any(String),
      jkt: await thumbprint(dpopKey.publicJwk),
    })
    // Nothing the flow made is stored in clear: not the code, not the request_uri.
    const rows = JSON.stringify(await issuer.h.storage.collection('one_time').find({ and: [] }, { limit: 1000 }))
    expect(rows).not.toContain(code)
    expect(rows).not.toContain(tokens.accessTokenResponse.access_token)
  })

  it('PAR answers 201 { request_uri, expires_in }; a form with authorization_details, no DPoP → a Bearer grant', async () => {
    const pushed = await par(issuer)
    expect(pushed.status).toBe(201)
    expect(pushed.requestUri).toMatch(/^urn:ietf:params:oauth:request_uri:[A-Za-z0-9_-]{43}$/)
    expect(pushed.body.expires_in).toBe(90)
    expect(pushed.headers.get('cache-control')).toBe('no-store')
    const back = await visit(issuer, authorizeUrl(pushed.requestUri))
    const location = new URL(back.location!)
    expect(location.searchParams.get('state')).toBe('wallet-state')
    const redeemed = await redeem(issuer, location.searchParams.get('code')!, pushed.verifier)
    expect(redeemed.status).toBe(200)
    expect(redeemed.body.token_type).toBe('Bearer')
    expect(redeemed.grant).toEqual({
      issuer: 'acme',
      configurationIds: ['Identity'],
      claims: CLAIMS,
      subject: 'user-1',
      clientId: CLIENT_ID,
    })
    // The user's authorization is in the issuer tenant's audit trail, with the request's id.
    const requestId = back.requestId!
    expect(await authorizations(issuer, requestId)).toEqual([
      expect.objectContaining({ action: 'credential.authorize', target: { type: 'subject', id: 'user-1' }, outcome: 'ok', requestId }),
    ])
  })

  /** A code for a fresh PAR. */
  async function codeFor(fields: Record<string, string> = {}) {
    const pushed = await par(issuer, fields)
    const back = await visit(issuer, authorizeUrl(pushed.requestUri))
    return { code: new URL(back.location!).searchParams.get('code')!, verifier: pushed.verifier }
  }

  it('PKCE: a code_verifier that is not the challenge’s → invalid_grant, and the code is burned', async () => {
    const { code, verifier } = await codeFor()
    const wrong = await redeem(issuer, code, pkce().verifier)
    expect(wrong).toMatchObject({ status: 400, body: { error: 'invalid_grant' } })
    expect((await redeem(issuer, code, verifier)).body.error).toBe('invalid_grant')
  })

  it('a code is good once: the replay → invalid_grant', async () => {
    const { code, verifier } = await codeFor()
    expect((await redeem(issuer, code, verifier)).status).toBe(200)
    expect(await redeem(issuer, code, verifier)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } })
  })

  it('redirect_uri other than the authorization request’s → invalid_grant; another client_id → invalid_grant', async () => {
    const first = await codeFor()
    expect((await redeem(issuer, first.code, first.verifier, { redirect_uri: 'https://evil.example/cb' })).body.error).toBe('invalid_grant')
    const second = await codeFor()
    expect((await redeem(issuer, second.code, second.verifier, { client_id: 'other-wallet' })).body.error).toBe('invalid_grant')
  })

  it('a code bound to a DPoP key (dpop_jkt) is refused without a proof by that key', async () => {
    const key = newP256()
    const { code, verifier } = await codeFor({ dpop_jkt: await thumbprint(key.publicJwk) })
    expect(await redeem(issuer, code, verifier)).toMatchObject({ status: 400, body: { error: 'invalid_dpop_proof' } })
  })

  it('request_uri: used once (replay → 400, not redirected), another client_id → 400, expired → 400', async () => {
    const pushed = await par(issuer)
    expect((await visit(issuer, authorizeUrl(pushed.requestUri, 'other-wallet'))).body).toMatchObject({ error: 'invalid_request' })
    expect((await visit(issuer, authorizeUrl(pushed.requestUri))).status).toBe(302)
    const replay = await visit(issuer, authorizeUrl(pushed.requestUri))
    expect(replay).toMatchObject({ status: 400, location: null, body: { error: 'invalid_request' } })

    const late = await par(issuer)
    issuer.shift(91_000)
    try {
      expect(await visit(issuer, authorizeUrl(late.requestUri))).toMatchObject({ status: 400, body: { error: 'invalid_request' } })
    } finally {
      issuer.shift(-91_000)
    }
  })

  it('refusals of PAR write nothing: unknown configuration, unknown scope, no PKCE, plain PKCE, no redirect_uri', async () => {
    const before = await snapshot(issuer.h)
    const unknown = await par(issuer, {
      authorization_details: JSON.stringify([{ type: 'openid_credential', credential_configuration_id: 'Nope' }]),
    })
    expect(unknown).toMatchObject({ status: 400, body: { error: 'invalid_authorization_details' } })
    expect((await par(issuer, { authorization_details: '', scope: 'Nope' })).body.error).toBe('invalid_scope')
    expect((await par(issuer, { code_challenge: '' })).body.error).toBe('invalid_request')
    expect((await par(issuer, { code_challenge_method: 'plain' })).body.error).toBe('invalid_request')
    expect((await par(issuer, { redirect_uri: '' })).body.error).toBe('invalid_request')
    expect((await par(issuer, { redirect_uri: 'javascript:alert(1)' })).body.error).toBe('invalid_request')
    expect(await snapshot(issuer.h)).toEqual(before)
  })

  it('the hook refuses → 302 to redirect_uri with error=access_denied, state and iss; no code', async () => {
    answer = { refused: 'not this user' }
    try {
      const pushed = await par(issuer)
      const back = await visit(issuer, authorizeUrl(pushed.requestUri))
      expect(back.status).toBe(302)
      const location = new URL(back.location!)
      expect(location.searchParams.get('error')).toBe('access_denied')
      expect(location.searchParams.get('state')).toBe('wallet-state')
      expect(location.searchParams.get('iss')).toBe(CI)
      expect(location.searchParams.get('code')).toBeNull()
      expect(await authorizations(issuer, back.requestId!)).toEqual([
        expect.objectContaining({
          action: 'credential.authorize',
          target: { type: 'client', id: CLIENT_ID },
          outcome: 'refused',
          error: 'ACCESS_DENIED',
        }),
      ])
      // Claims for no configuration asked for grant nothing either.
      answer = { subject: 'user-1', claims: { Other: { x: 1 } } }
      const other = await visit(issuer, authorizeUrl((await par(issuer)).requestUri))
      expect(new URL(other.location!).searchParams.get('error')).toBe('access_denied')
    } finally {
      answer = { subject: 'user-1', claims: CLAIMS }
    }
  })
})

describe('authorization code flow with the operator’s login page (serve: loginUrl + signed assertion)', () => {
  let issuer: Issuer
  let loginKey: jose.CryptoKey
  let otherKey: jose.CryptoKey
  beforeAll(async () => {
    const pair = await jose.generateKeyPair('ES256', { extractable: true })
    loginKey = pair.privateKey
    otherKey = (await jose.generateKeyPair('ES256')).privateKey
    const publicJwk = { ...(await jose.exportJWK(pair.publicKey)), kid: 'login-1' }
    issuer = await startIssuer({ loginUrl: LOGIN_URL, loginAssertionKeys: [publicJwk] })
  }, 120_000)
  afterAll(() => issuer?.h.close())

  /** The login page: signs an assertion for the request handle it was given. */
  function assertion(fields: Record<string, unknown>, options: { key?: jose.CryptoKey; exp?: number; aud?: string } = {}) {
    const now = Math.floor(Date.now() / 1000)
    return new jose.SignJWT({ sub: 'user-7', claims: CLAIMS, jti: randomBytes(8).toString('hex'), ...fields })
      .setProtectedHeader({ alg: 'ES256', kid: 'login-1' })
      .setAudience(options.aud ?? CI)
      .setIssuedAt(now)
      .setExpirationTime(options.exp ?? now + 120)
      .sign(options.key ?? loginKey)
  }

  /** PAR + authorize: the login page's URL and the handle in it. */
  async function toLogin() {
    const pushed = await par(issuer)
    const back = await visit(issuer, authorizeUrl(pushed.requestUri))
    expect(back.status).toBe(302)
    const login = new URL(back.location!)
    return { login, handle: login.searchParams.get('request')!, verifier: pushed.verifier }
  }

  const returnWith = (jwt: string) => visit(issuer, `${CI}/authorize/return?assertion=${encodeURIComponent(jwt)}`)

  it('authorize → login page (request, issuer, ids) → signed assertion → code → token with the assertion’s claims', async () => {
    const { login, handle, verifier } = await toLogin()
    expect(login.origin + login.pathname).toBe(LOGIN_URL)
    expect(login.searchParams.get('issuer')).toBe(CI)
    expect(login.searchParams.get('credential_configuration_ids')).toBe('Identity')
    const back = await returnWith(await assertion({ request: handle }))
    expect(back.status).toBe(302)
    const location = new URL(back.location!)
    expect(location.searchParams.get('iss')).toBe(CI)
    expect(location.searchParams.get('state')).toBe('wallet-state')
    const redeemed = await redeem(issuer, location.searchParams.get('code')!, verifier)
    expect(redeemed.grant).toEqual({
      issuer: 'acme',
      configurationIds: ['Identity'],
      claims: CLAIMS,
      subject: 'user-7',
      clientId: CLIENT_ID,
    })
  })

  it('a request bound to an offer (issuer_state): an assertion without claims grants the offer’s; with none, access_denied', async () => {
    const made = await issuer.h.request('POST', '/oid4vci/offers', {
      json: { configurations: [{ id: 'Identity', claims: { given_name: 'Offered' } }], grants: ['authorization_code'] },
      didAuth: issuer.didAuth,
    })
    const document = (await (await fetch(local(issuer, made.body.credentialOfferUri))).json()) as Record<string, any>
    const pushed = await par(issuer, { issuer_state: document.grants.authorization_code.issuer_state })
    expect(pushed.status).toBe(201)
    const login = new URL((await visit(issuer, authorizeUrl(pushed.requestUri))).location!)
    const back = await returnWith(await assertion({ request: login.searchParams.get('request'), claims: undefined }))
    const redeemed = await redeem(issuer, new URL(back.location!).searchParams.get('code')!, pushed.verifier)
    expect(redeemed.grant).toMatchObject({
      configurationIds: ['Identity'],
      claims: { Identity: { given_name: 'Offered' } },
      subject: 'user-7',
    })
    expect(redeemed.grant?.offerId).toEqual(expect.any(String))

    // Not bound to an offer: no claims is no grant.
    const { handle } = await toLogin()
    const denied = new URL((await returnWith(await assertion({ request: handle, claims: undefined }))).location!)
    expect(denied.searchParams.get('error')).toBe('access_denied')
    expect(denied.searchParams.get('code')).toBeNull()
  })

  it('a refusal in the assertion → access_denied at the wallet', async () => {
    const { handle } = await toLogin()
    const back = await returnWith(await assertion({ request: handle, refused: 'wrong password' }))
    expect(new URL(back.location!).searchParams.get('error')).toBe('access_denied')
  })

  it('forged (another key), expired, too long-lived, for another issuer: 400, not redirected, nothing written; the handle still works', async () => {
    const { handle, verifier } = await toLogin()
    const now = Math.floor(Date.now() / 1000)
    const before = await snapshot(issuer.h)
    for (const jwt of [
      await assertion({ request: handle }, { key: otherKey }),
      await assertion({ request: handle }, { exp: now - 5 }),
      await assertion({ request: handle }, { exp: now + 3600 }),
      await assertion({ request: handle }, { aud: `${PUBLIC_URL}/oid4vci/other` }),
      'not.a.jwt',
    ]) {
      const refused = await returnWith(jwt)
      expect(refused.status, jwt).toBe(400)
      expect(refused.location).toBeNull()
      expect(refused.body?.error).toBe('invalid_request')
    }
    expect(await snapshot(issuer.h)).toEqual(before)
    const ok = await returnWith(await assertion({ request: handle }))
    expect((await redeem(issuer, new URL(ok.location!).searchParams.get('code')!, verifier)).status).toBe(200)
  })

  it('an assertion is good once: replayed (same jti), and a new jti for a used handle → 400', async () => {
    const { handle } = await toLogin()
    const jwt = await assertion({ request: handle, jti: 'jti-once' })
    expect((await returnWith(jwt)).status).toBe(302)
    expect(await returnWith(jwt)).toMatchObject({ status: 400, body: { error: 'invalid_request' } })
    expect((await returnWith(await assertion({ request: handle }))).status).toBe(400)
    // The same jti on another request is a replay too.
    const next = await toLogin()
    expect((await returnWith(await assertion({ request: next.handle, jti: 'jti-once' }))).status).toBe(400)
  })
})
