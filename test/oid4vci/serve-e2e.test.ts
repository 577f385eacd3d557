/**
 * `didvault serve` as an OID4VCI issuer end to end (issue 33, "Tests with real wallets"): a real process from the
 * sources, on a SQLite file and on PostgreSQL, behind a TLS terminator with a throw-away CA (its https origin is the
 * process's publicUrl), with two tenants (API keys) and the operator's login page (`oid4vci.loginUrl` +
 * `loginAssertionKeys`) played by a loopback server of the test; the three wallet clients run as children trusting
 * that CA. One process per storage, shared by every case:
 * - each client's metadata step (Credential Issuer and authorization server metadata, appended and inserted paths);
 * - the flows — an offer made through didvault/client (for the authorization code flow, one with an `issuer_state` sent
 *   through PAR + PKCE, the login page and its signed assertion), redeemed by the wallet, the credential (SD-JWT VC
 *   verified with @sd-jwt/sd-jwt-vc, VC-JWT with jose) bound to the wallet's key, the records and the `credential.issue`
 *   audit records counted through the client; pre-authorized ± tx_code ± DPoP, a batch of 3, VC-JWT, authorization code;
 * - the refusals the specifications name, sent by hand: each an OAuth error body and status, nothing written.
 */
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ES256, digest } from '@sd-jwt/crypto-nodejs'
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc'
import * as jose from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newP256, thumbprint, type KeyPair } from '../helpers/oid4vci-callbacks.js'
import { startLoginPage, type LoginPage } from '../helpers/oid4vci-login-page.js'
import {
  FLOWS_READY,
  SERVED_CLAIMS,
  SERVED_VCT,
  startServedIssuer,
  type ServedIssuer,
  type ServedStorage,
} from '../helpers/oid4vci-serve.js'
import { runWalletMetadata } from '../helpers/oid4vci-wallet-metadata.js'
import { runWallet, type WalletName, type WalletOptions } from '../helpers/oid4vci-wallets.js'
import { startTestPostgres, type TestPostgres } from '../helpers/postgres.js'
import { makeTestCa, type TestCa } from '../helpers/tls.js'

const WALLET_NAMES: WalletName[] = ['openid4vc', 'digitalbazaar', 'sphereon']
const STORAGES: ServedStorage[] = ['sqlite', 'postgres']

const PRE_AUTHORIZED = 'urn:ietf:params:oauth:grant-type:pre-authorized_code'

/** The public JWK a did:jwk names. */
const jwkOfDidJwk = (did: string) => JSON.parse(Buffer.from(did.slice('did:jwk:'.length).split('#')[0], 'base64url').toString('utf8'))

/** The tenant's credential records of the issuing DID and its `credential.issue` audit records, counted through the client. */
async function written(issuer: ServedIssuer): Promise<{ vcs: number; audits: number }> {
  const [{ vcs }, { records }] = await Promise.all([
    issuer.client.getClaims({ issuer: issuer.issuingDid }),
    issuer.client.getAuditRecords({ action: 'credential.issue' }),
  ])
  return { vcs: vcs.length, audits: records.length }
}

let ca: TestCa
let dir: string
beforeAll(() => {
  ca = makeTestCa()
  dir = mkdtempSync(join(tmpdir(), 'didvault-oid4vci-serve-'))
})
afterAll(() => {
  ca?.remove()
  rmSync(dir, { recursive: true, force: true })
})

describe.each(STORAGES)('didvault serve as an OID4VCI issuer (%s)', (storage) => {
  let postgres: TestPostgres | undefined
  let issuer: ServedIssuer
  let loginPage: LoginPage
  /** An offer of the shortest lifetime allowed (30 s), made first; its expiry is checked last. */
  let expiring: { credentialOfferUri: string; expiresAt: string; code: string }
  beforeAll(async () => {
    if (storage === 'postgres') postgres = await startTestPostgres('oid4vci-serve')
    loginPage = await startLoginPage(() => SERVED_CLAIMS)
    issuer = await startServedIssuer({
      storage,
      ca,
      dir,
      postgres,
      otherTenant: true,
      oid4vci: { loginUrl: loginPage.url, loginAssertionKeys: [loginPage.publicJwk] },
    })
    if (FLOWS_READY) {
      const offer = await issuer.client.createCredentialOffer({
        configurations: [{ id: issuer.configurationId, claims: SERVED_CLAIMS }],
        expiresInSeconds: 30,
      })
      const local = issuer.localUrl + offer.credentialOfferUri.slice(issuer.publicUrl.length)
      const document = (await (await fetch(local)).json()) as { grants: Record<string, Record<string, string>> }
      expiring = { ...offer, code: document.grants[PRE_AUTHORIZED]['pre-authorized_code'] }
    }
  }, 180_000)
  afterAll(async () => {
    await issuer?.stop()
    await loginPage?.close()
    await postgres?.stop()
  })

  it.each(WALLET_NAMES)('%s: the metadata step over https finds the issuer, its endpoints and the configuration', async (wallet) => {
    const before = issuer.terminator.connections()
    const logFrom = issuer.process.stdout().length
    const found = await runWalletMetadata(wallet, issuer.credentialIssuer, ca.caFile)
    expect(found).toMatchObject({
      credentialIssuer: issuer.credentialIssuer,
      credentialEndpoint: `${issuer.credentialIssuer}/credential`,
      tokenEndpoint: `${issuer.credentialIssuer}/token`,
      nonceEndpoint: `${issuer.credentialIssuer}/nonce`,
      configurationIds: [issuer.configurationId],
    })
    // Over the terminator (https, the test CA trusted); the process answered 200 at each path this client asks for.
    expect(issuer.terminator.connections()).toBeGreaterThan(before)
    for (const url of found.fetched) expect(url.startsWith(`${issuer.publicUrl}/`)).toBe(true)
    const answered = issuer.process
      .stdout()
      .slice(logFrom)
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { path?: string; status?: number })
      .filter((record) => record.status === 200)
      .map((record) => record.path)
    const path = `/oid4vci/${issuer.slug}`
    const expected = {
      openid4vc: [`/.well-known/openid-credential-issuer${path}`, `/.well-known/oauth-authorization-server${path}`],
      digitalbazaar: [
        `${path}/.well-known/openid-credential-issuer`,
        `/.well-known/openid-credential-issuer${path}`,
        `/.well-known/oauth-authorization-server${path}`,
      ],
      sphereon: [`${path}/.well-known/openid-credential-issuer`, `${path}/.well-known/oauth-authorization-server`],
    }[wallet]
    expect(answered).toEqual(expect.arrayContaining(expected))
  })

  /** A flow a wallet runs against the served process. */
  interface FlowCase {
    wallet: WalletName
    flow: string
    txCode?: boolean
    dpop?: boolean
    batch?: number
    /** Through the operator’s login page (an offer with the authorization_code grant: its issuer_state in the PAR). */
    authorizationCode?: boolean
    /** A configuration made for the case (id `Identity-<suffix>`) beside the served one. */
    configuration?: { suffix: string; fields: (served: Record<string, unknown>) => Record<string, unknown> }
  }
  const sdJwtLike = (fields: Record<string, unknown>) => (served: Record<string, unknown>) => ({ ...served, ...fields })
  const flows: FlowCase[] = [
    { wallet: 'openid4vc', flow: 'pre-authorized' },
    { wallet: 'openid4vc', flow: 'pre-authorized with tx_code', txCode: true },
    { wallet: 'openid4vc', flow: 'pre-authorized with DPoP', dpop: true },
    { wallet: 'sphereon', flow: 'pre-authorized' },
    { wallet: 'sphereon', flow: 'pre-authorized with tx_code', txCode: true },
    { wallet: 'sphereon', flow: 'pre-authorized with DPoP', dpop: true },
    // digitalbazaar's wallet signs key proofs without `typ` and `iat` (test/helpers/oid4vci-wallets.md): it is served
    // by a configuration that accepts such proofs, off by default.
    {
      wallet: 'digitalbazaar',
      flow: 'pre-authorized (a configuration with acceptUntypedProofs)',
      configuration: { suffix: 'untyped-proofs', fields: sdJwtLike({ acceptUntypedProofs: true }) },
    },
    {
      wallet: 'openid4vc',
      flow: 'pre-authorized, a batch of 3 (batchSize 3)',
      batch: 3,
      configuration: { suffix: 'batch', fields: sdJwtLike({ batchSize: 3 }) },
    },
    {
      wallet: 'openid4vc',
      flow: 'pre-authorized, VC-JWT (jwt_vc_json)',
      configuration: {
        suffix: 'vc-jwt',
        fields: ({ issuer: slug, issuingDid }) => ({ issuer: slug, issuingDid, format: 'jwt_vc_json', types: ['IdentityCredential'] }),
      },
    },
    { wallet: 'openid4vc', flow: 'authorization code (PAR, PKCE, DPoP) through the login page', authorizationCode: true, dpop: true },
    { wallet: 'sphereon', flow: 'authorization code (PAR, PKCE) through the login page', authorizationCode: true },
  ]
  for (const c of flows) {
    it.skipIf(!FLOWS_READY)(
      `${c.wallet}: ${c.flow} — credential verified and bound, stored and audited`,
      async () => {
        const operations = issuer.client as unknown as Record<string, (input: unknown) => Promise<any>>
        const configurationId = c.configuration ? `${issuer.configurationId}-${c.configuration.suffix}` : issuer.configurationId
        let format = 'dc+sd-jwt'
        if (c.configuration) {
          const [served] = (await issuer.client.getCredentialConfigurations()).configurations.filter((x) => x.id === issuer.configurationId)
          const { createdAt: _c, updatedAt: _u, credentialIssuer: _i, ...given } = served as Record<string, unknown>
          const fields: Record<string, unknown> = { ...c.configuration.fields(given), id: configurationId }
          format = fields.format as string
          await operations.createCredentialConfiguration(fields)
        }
        const before = await written(issuer)
        const visits = loginPage.visits.length
        let offerUri: string
        let txCode: string | undefined
        if (c.authorizationCode) {
          // An offer with the authorization_code grant: the wallet's PAR carries its issuer_state (bound to the offer).
          const offer = await operations.createCredentialOffer({
            configurations: [{ id: configurationId, claims: SERVED_CLAIMS }],
            grants: ['authorization_code'],
          })
          offerUri = offer.offerUri
        } else {
          const offer = await operations.createCredentialOffer({
            configurations: [{ id: configurationId, claims: SERVED_CLAIMS }],
            ...(c.txCode && { txCode: true }),
          })
          expect(offer.offerUri).toMatch(/^openid-credential-offer:\/\//)
          offerUri = offer.offerUri
          txCode = offer.txCode
        }
        const options: WalletOptions = { ...(txCode && { txCode }), ...(c.dpop && { dpop: true }), ...(c.batch && { batch: c.batch }) }
        const result = await runWallet(c.wallet, offerUri, { ...options, caFile: ca.caFile })

        // The login page was visited once, for this issuer, when (and only when) the flow went through it.
        expect(loginPage.visits.slice(visits)).toEqual(c.authorizationCode ? [issuer.credentialIssuer] : [])
        if (c.dpop) expect((result.tokenResponse as { token_type: string }).token_type).toBe('DPoP')
        const count = c.batch ?? 1
        expect(result.credentials).toHaveLength(count)
        const issuerJwk = jwkOfDidJwk(issuer.issuingDid)
        const thumbprints: string[] = []
        for (const [index, credential] of result.credentials.entries()) {
          const holderThumbprint = await thumbprint(result.holderJwks[index])
          thumbprints.push(holderThumbprint)
          if (format === 'jwt_vc_json') {
            const { payload } = await jose.jwtVerify(credential as string, await jose.importJWK(issuerJwk, 'ES256'))
            const vc = payload.vc as { type: string[]; credentialSubject: Record<string, unknown> }
            expect(vc.type).toEqual(expect.arrayContaining(['VerifiableCredential', 'IdentityCredential']))
            expect(vc.credentialSubject).toMatchObject(SERVED_CLAIMS)
            expect(payload.iss).toBe(issuer.issuingDid)
            // Bound to the holder: the subject is the did:jwk of the key the proof was signed with.
            const subject = (payload.sub ?? vc.credentialSubject.id) as string
            expect(await thumbprint(jwkOfDidJwk(subject))).toBe(holderThumbprint)
          } else {
            const verifier = new SDJwtVcInstance({ hasher: digest, verifier: await ES256.getVerifier(issuerJwk) })
            const { payload } = await verifier.verify(credential as string)
            expect(payload).toMatchObject({ vct: SERVED_VCT, ...SERVED_CLAIMS })
            expect([issuer.issuingDid, issuer.credentialIssuer]).toContain(payload.iss)
            const cnf = payload.cnf as { jwk: Parameters<typeof thumbprint>[0] }
            expect(await thumbprint(cnf.jwk)).toBe(holderThumbprint)
          }
        }
        if (count > 1) expect(new Set(thumbprints).size).toBe(count)

        // Stored as credential records of the tenant, issued by the issuing DID; audited naming each holder key.
        const after = await written(issuer)
        expect(after.vcs - before.vcs).toBe(count)
        expect(after.audits - before.audits).toBe(count)
        const audit = await operations.getAuditRecords({ action: 'credential.issue' })
        for (const t of thumbprints) expect(JSON.stringify(audit.records)).toContain(t)
        // Every credential names the offer it came from: the wallet redeemed the offer (for the authorization code
        // flow: it sent the offer's issuer_state in its PAR).
        for (const t of thumbprints) {
          const record = (audit.records as Array<{ target: { holderKey?: string; offer?: string } }>).find((r) => r.target.holderKey === t)
          expect(record?.target.offer, `${c.wallet} redeemed the offer`).toEqual(expect.any(String))
        }
      },
      120_000,
    )
  }

  describe.skipIf(!FLOWS_READY)('refusals over the served process: the OAuth error body and status, nothing written', () => {
    /** The process's loopback URL of a public one (the process knows its public URL; requests name it in DPoP and aud). */
    const local = (url: string) => issuer.localUrl + url.slice(issuer.publicUrl.length)
    const answer = async (res: Response) => ({ status: res.status, body: (await res.json()) as Record<string, any>, headers: res.headers })
    const postForm = async (url: string, form: Record<string, string>, headers: Record<string, string> = {}) =>
      answer(
        await fetch(local(url), {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
          body: new URLSearchParams(form).toString(),
        }),
      )
    const postJson = async (url: string, body: unknown, headers: Record<string, string> = {}) =>
      answer(
        await fetch(local(url), {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify(body),
        }),
      )

    /** An offer of the served configuration and its pre-authorized code (fetched by reference, as a wallet does). */
    async function offerOf(extra: Record<string, unknown> = {}) {
      const offer = await issuer.client.createCredentialOffer({
        configurations: [{ id: issuer.configurationId, claims: SERVED_CLAIMS }],
        ...extra,
      })
      const document = (await (await fetch(local(offer.credentialOfferUri))).json()) as { grants: Record<string, Record<string, string>> }
      return { ...offer, code: document.grants[PRE_AUTHORIZED]['pre-authorized_code'] }
    }
    const tokenAt = (credentialIssuer: string, code: string, extra: Record<string, string> = {}, headers: Record<string, string> = {}) =>
      postForm(`${credentialIssuer}/token`, { grant_type: PRE_AUTHORIZED, 'pre-authorized_code': code, ...extra }, headers)
    const token = (code: string, extra?: Record<string, string>, headers?: Record<string, string>) =>
      tokenAt(issuer.credentialIssuer, code, extra, headers)
    const nonce = async () => (await postJson(`${issuer.credentialIssuer}/nonce`, {})).body.c_nonce as string
    /** A 1.0 key proof: header names `holder`'s key; signed by `signer` (default the holder); `aud` default the issuer. */
    async function proof(holder: KeyPair, c_nonce: string, { signer = holder, aud = issuer.credentialIssuer } = {}) {
      return new jose.SignJWT({ nonce: c_nonce })
        .setProtectedHeader({ typ: 'openid4vci-proof+jwt', alg: 'ES256', jwk: holder.publicJwk })
        .setAudience(aud)
        .setIssuedAt()
        .sign(await jose.importJWK(signer.privateJwk, 'ES256'))
    }
    const credential = (accessToken: string, jwts: string[]) =>
      postJson(
        `${issuer.credentialIssuer}/credential`,
        { credential_configuration_id: issuer.configurationId, proofs: { jwt: jwts } },
        { authorization: `Bearer ${accessToken}` },
      )
    async function dpopProof(key: KeyPair, htm: string, htu: string) {
      return new jose.SignJWT({ htm, htu, jti: randomUUID() })
        .setProtectedHeader({ typ: 'dpop+jwt', alg: 'ES256', jwk: key.publicJwk })
        .setIssuedAt()
        .sign(await jose.importJWK(key.privateJwk, 'ES256'))
    }
    /** Asserts an OAuth error body (and nothing of didvault's own error body). */
    function refused(res: { status: number; body: Record<string, any> }, status: number, error: string) {
      expect(res.status).toBe(status)
      expect(res.body.error).toBe(error)
      expect(typeof res.body.error_description).toBe('string')
      expect(res.body).not.toHaveProperty('code')
    }

    it('a replayed pre-authorized code: invalid_grant', async () => {
      const { code } = await offerOf()
      const before = await written(issuer)
      expect((await token(code)).status).toBe(200)
      refused(await token(code), 400, 'invalid_grant')
      expect(await written(issuer)).toEqual(before)
    })

    it('a replayed nonce: invalid_nonce with a fresh c_nonce; the first use issued once', async () => {
      const access = (await token((await offerOf()).code)).body.access_token as string
      const c_nonce = await nonce()
      const before = await written(issuer)
      expect((await credential(access, [await proof(newP256(), c_nonce)])).status).toBe(200)
      const issued = await written(issuer)
      expect(issued).toEqual({ vcs: before.vcs + 1, audits: before.audits + 1 })
      const replay = await credential(access, [await proof(newP256(), c_nonce)])
      refused(replay, 400, 'invalid_nonce')
      expect(replay.body.c_nonce).toEqual(expect.any(String))
      expect(replay.body.c_nonce).not.toBe(c_nonce)
      expect(await written(issuer)).toEqual(issued)
    })

    it('a proof signed by another key than the one it names, and a proof for another aud: invalid_proof, the nonce kept', async () => {
      const access = (await token((await offerOf()).code)).body.access_token as string
      const holder = newP256()
      const c_nonce = await nonce()
      const before = await written(issuer)
      for (const jwt of [
        await proof(holder, c_nonce, { signer: newP256() }),
        await proof(holder, c_nonce, { aud: issuer.other!.credentialIssuer }),
      ]) {
        const res = await credential(access, [jwt])
        refused(res, 400, 'invalid_proof')
        expect(res.body.c_nonce).toEqual(expect.any(String))
      }
      expect(await written(issuer)).toEqual(before)
      // The refusals took nothing: the same nonce and token then issue, to the right key.
      expect((await credential(access, [await proof(holder, c_nonce)])).status).toBe(200)
    })

    it('a wrong tx_code 5 times burns the code: the right one is then refused', async () => {
      const offer = await offerOf({ txCode: true })
      const wrong = offer.txCode === '000000' ? '111111' : '000000'
      const before = await written(issuer)
      for (let attempt = 0; attempt < 5; attempt++) refused(await token(offer.code, { tx_code: wrong }), 400, 'invalid_grant')
      refused(await token(offer.code, { tx_code: offer.txCode! }), 400, 'invalid_grant')
      expect(await written(issuer)).toEqual(before)
    })

    it('a DPoP proof for another URL or another method: invalid_dpop_proof, the code kept', async () => {
      const { code } = await offerOf()
      const key = newP256()
      const tokenUrl = `${issuer.credentialIssuer}/token`
      const before = await written(issuer)
      for (const [htm, htu] of [
        ['POST', `${issuer.credentialIssuer}/credential`],
        ['GET', tokenUrl],
      ]) {
        const res = await token(code, {}, { dpop: await dpopProof(key, htm, htu) })
        refused(res, 400, 'invalid_dpop_proof')
      }
      expect(await written(issuer)).toEqual(before)
      const bound = await token(code, {}, { dpop: await dpopProof(key, 'POST', tokenUrl) })
      expect(bound.status).toBe(200)
      expect(bound.body.token_type).toBe('DPoP')
    })

    it('a tenant’s offer redeemed at another tenant’s issuer: invalid_grant there, still good at its own', async () => {
      const other = issuer.other!
      const { code } = await offerOf()
      const before = await written(issuer)
      refused(await tokenAt(other.credentialIssuer, code), 400, 'invalid_grant')
      expect(await written(issuer)).toEqual(before)
      expect((await tokenAt(issuer.credentialIssuer, code)).status).toBe(200)
    })

    // Last: the offer made at the start (the shortest lifetime allowed, 30 s) has expired by now (or is waited for).
    it('an expired offer: gone by reference, its code invalid_grant', async () => {
      await new Promise((done) => setTimeout(done, Math.max(0, Date.parse(expiring.expiresAt) - Date.now() + 1_000)))
      const before = await written(issuer)
      const fetched = await fetch(local(expiring.credentialOfferUri))
      expect(fetched.status).toBe(404)
      refused(await token(expiring.code), 400, 'invalid_grant')
      expect(await written(issuer)).toEqual(before)
    }, 60_000)
  })
})
