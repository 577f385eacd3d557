/**
 * The Credential Endpoint and the Notification Endpoint of the OID4VCI issuer (issue 33 §2), over the router on
 * loopback HTTP on a SQLite file. Access tokens and nonces are made directly in the one-time store (the token and
 * nonce endpoints are another helper's); the wallet side signs key proofs and DPoP proofs with jose. Issued
 * credentials verify with independent libraries (@sd-jwt/sd-jwt-vc, did-jwt-vc) and with Verify Claims; refusals
 * write no credential record and no audit record.
 */
import { createHash, randomBytes } from 'node:crypto'
import { digest, ES256 } from '@sd-jwt/crypto-nodejs'
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc'
import { verifyCredential } from 'did-jwt-vc'
import { Resolver } from 'did-resolver'
import { calculateJwkThumbprint, CompactSign, exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose'
import { mintCNonce } from '../../src/oid4vci/nonces.js'
import { openAccessToken, sealAccessToken } from '../../src/oid4vci/access-tokens.js'
import { sealNotificationId } from '../../src/oid4vci/notification-ids.js'
import { OneTimeStore } from '../../src/one-time/index.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { oid4vci } from '../../src/oid4vc.js'
import type { AccessGrant } from '../../src/oid4vci/grants.js'
import { didJwkDocument } from '../../src/did/methods/jwk/document.js'
import { startHarness, TENANT_A, TENANT_B, type Harness } from '../helpers/harness.js'

const PUBLIC_URL = 'https://vault.example.com/id'
const CI = `${PUBLIC_URL}/oid4vci/acme`
const CI_B = `${PUBLIC_URL}/oid4vci/bravo`
const VCT = 'https://credentials.example.com/identity'

interface Key {
  jwk: JWK
  privateKey: CryptoKey
}

async function newKey(): Promise<Key> {
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true })
  const { kty, crv, x, y } = await exportJWK(publicKey)
  return { jwk: { kty, crv, x, y }, privateKey }
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
const now = () => Math.floor(Date.now() / 1000)

async function sign(key: Key, header: Record<string, unknown>, payload: Record<string, unknown>): Promise<string> {
  return new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
    .setProtectedHeader({ alg: 'ES256', ...header })
    .sign(key.privateKey)
}

/** A key proof (OID4VCI 1.0 Appendix F.1) by `key`, its `jwk` in the header unless `header` says otherwise. */
function keyProof(key: Key, nonce: string, overrides: { header?: Record<string, unknown>; payload?: Record<string, unknown> } = {}) {
  return sign(key, { typ: 'openid4vci-proof+jwt', jwk: key.jwk, ...overrides.header }, { aud: CI, iat: now(), nonce, ...overrides.payload })
}

/** A DPoP proof (RFC 9449) for the credential endpoint. */
function dpopProof(key: Key, token: string, url = `${CI}/credential`) {
  const ath = createHash('sha256').update(token).digest('base64url')
  return sign(key, { typ: 'dpop+jwt', jwk: key.jwk }, { htm: 'POST', htu: url, iat: now(), jti: randomBytes(12).toString('hex'), ath })
}

const didJwkOf = (jwk: JWK) => `did:jwk:${b64({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y })}`

describe('the credential and notification endpoints', () => {
  let h: Harness
  let issuerDid: string
  let issuerJwk: JWK
  let tenantBDid: string

  /** An access token of tenant `tenantId` granting `grant`, sealed as the token endpoint seals them. */
  async function accessToken(grant: Partial<AccessGrant> = {}, tenantId = 'tenant-a', ttlMs = 60_000): Promise<string> {
    const data: AccessGrant = {
      issuer: 'acme',
      configurationIds: ['Identity', 'Employee', 'Badge', 'Loose'],
      claims: {
        Identity: { given_name: 'Erika', family_name: 'Mustermann', address: { locality: 'Berlin' } },
        Employee: { employer: 'ACME', role: 'engineer' },
        Badge: { name: 'Gold', level: 3 },
        Loose: { given_name: 'Erika' },
      },
      offerId: 'offer-1',
      ...grant,
    }
    return Promise.resolve(sealAccessToken(h.service.oneTime, tenantId, data, ttlMs))
  }

  /** The grant of a sealed access token of tenant A's issuer acme. */
  function grantOf(token: string): Promise<AccessGrant> {
    return Promise.resolve(openAccessToken(h.service.oneTime, 'tenant-a', 'acme', token)!)
  }

  /** A c_nonce of the tenant, as its nonce endpoint makes them (stateless until used). */
  function nonce(tenantId = 'tenant-a'): Promise<string> {
    return Promise.resolve(mintCNonce(h.service.oneTime, tenantId, Date.now() + 60_000, randomBytes(32).toString('base64url')))
  }

  async function post(path: string, token: string, body: unknown, headers: Record<string, string> = {}, scheme = 'Bearer') {
    return h.request('POST', path, { token: null, json: body, headers: { authorization: `${scheme} ${token}`, ...headers } })
  }

  /** The tenant's audit records of an action, once every committed one is chained. */
  async function auditOf(action: 'credential.issue' | 'credential.notification', tenant = TENANT_A, target?: string) {
    await h.service.chainAuditRecords()
    return (await h.service.as({ authorization: `Bearer ${tenant}` }).getAuditRecords({ action, ...(target && { target }), limit: 1000 }))
      .records
  }

  /** The credential records of every tenant and the tenant's `credential.issue` audit records. */
  async function counts(tenant = TENANT_A) {
    const credentials = await h.storage.collection('credentials').count({ and: [] })
    return { credentials, issued: (await auditOf('credential.issue', tenant)).length }
  }

  async function configure(json: Record<string, unknown>, didAuth: string, token = TENANT_A) {
    const res = await h.request('POST', '/oid4vci/configurations', { json, didAuth, token })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
  }

  beforeAll(async () => {
    h = await startHarness({ storage: 'sqlite', service: { publicUrl: PUBLIC_URL, oid4vci: oid4vci() } })
    const made = await h.request('POST', '/wallet', { json: { walletConfig: { didMethod: 'jwk', keyType: 'P-256' } } })
    issuerDid = made.body.wallet.did
    issuerJwk = JSON.parse(Buffer.from(issuerDid.slice('did:jwk:'.length), 'base64url').toString())
    const jwt = (await h.request('POST', '/did-auth-jwt', { json: { iss: issuerDid } })).body.jwt
    await configure(
      {
        id: 'Identity',
        issuer: 'acme',
        format: 'dc+sd-jwt',
        vct: VCT,
        issuingDid: issuerDid,
        batchSize: 3,
        status: true,
        claims: [{ path: ['given_name'] }, { path: ['address', 'locality'] }],
      },
      jwt,
    )
    await configure({ id: 'Employee', issuer: 'acme', format: 'jwt_vc_json', types: ['EmployeeCredential'], issuingDid: issuerDid }, jwt)
    await configure({ id: 'Badge', issuer: 'acme', format: 'ldp_vc', types: ['BadgeCredential'], issuingDid: issuerDid }, jwt)
    await configure({ id: 'Other', issuer: 'acme', format: 'dc+sd-jwt', vct: `${VCT}/other`, issuingDid: issuerDid }, jwt)
    await configure({ id: 'Loose', issuer: 'acme', format: 'dc+sd-jwt', vct: VCT, issuingDid: issuerDid, acceptUntypedProofs: true }, jwt)
    const b = await h.request('POST', '/wallet', { json: { walletConfig: { didMethod: 'jwk', keyType: 'P-256' } }, token: TENANT_B })
    tenantBDid = b.body.wallet.did
    const bJwt = (await h.request('POST', '/did-auth-jwt', { json: { iss: tenantBDid }, token: TENANT_B })).body.jwt
    await configure({ id: 'Identity', issuer: 'bravo', format: 'dc+sd-jwt', vct: VCT, issuingDid: tenantBDid }, bJwt, TENANT_B)
  }, 120_000)
  afterAll(() => h?.close())

  it('issues an SD-JWT VC bound to the proof key, verifiable with @sd-jwt/sd-jwt-vc, stored with status and audited', async () => {
    const holder = await newKey()
    const token = await accessToken()
    const res = await post('/oid4vci/acme/credential', token, {
      credential_configuration_id: 'Identity',
      proofs: { jwt: [await keyProof(holder, await nonce())] },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.headers.get('cache-control')).toBe('no-store')
    expect(res.body.credentials).toHaveLength(1)
    expect(typeof res.body.notification_id).toBe('string')
    const credential: string = res.body.credentials[0].credential

    // The status list is fetched from the service (publicUrl stands for the harness's loopback URL).
    const sdjwt = new SDJwtVcInstance({
      hasher: digest,
      verifier: await ES256.getVerifier(issuerJwk),
      statusListFetcher: async (uri) => (await fetch(uri.replace(PUBLIC_URL, h.url))).text(),
    })
    const verified = await sdjwt.verify(credential)
    const payload = verified.payload as Record<string, any>
    expect(payload).toMatchObject({
      iss: issuerDid,
      vct: VCT,
      given_name: 'Erika',
      family_name: 'Mustermann',
      address: { locality: 'Berlin' },
    })
    expect(payload.cnf.jwk).toMatchObject({ kty: 'EC', crv: 'P-256', x: holder.jwk.x, y: holder.jwk.y })
    expect(payload.status?.status_list).toMatchObject({ uri: expect.stringContaining(PUBLIC_URL), idx: expect.any(Number) })
    // Disclosable per the configuration's claims metadata: given_name and address.locality; family_name always visible.
    const issuerSigned = JSON.parse(Buffer.from(credential.split('~')[0].split('.')[1], 'base64url').toString())
    expect(issuerSigned.family_name).toBe('Mustermann')
    expect(issuerSigned.given_name).toBeUndefined()
    expect(issuerSigned.address.locality).toBeUndefined()

    // Stored as the issuing DID's credential, readable by it through Fetch.
    const issuerJwt = (await h.request('POST', '/did-auth-jwt', { json: { iss: issuerDid } })).body.jwt
    const fetched = await h.request('GET', `/claims?issuer=${encodeURIComponent(issuerDid)}`, { didAuth: issuerJwt })
    const stored = fetched.body.vcs.find((vc: { sdjwt?: string }) => vc.sdjwt === credential)
    expect(stored).toMatchObject({ storedBy: [issuerDid], issuer: issuerDid, format: 'SD-JWT' })

    const thumbprint = await calculateJwkThumbprint(holder.jwk)
    expect(await auditOf('credential.issue', TENANT_A, stored._id)).toEqual([
      expect.objectContaining({
        actor: expect.objectContaining({ dids: [issuerDid] }),
        target: { type: 'credential', id: stored._id, offer: 'offer-1', holderKey: thumbprint },
      }),
    ])
  })

  it('issues a VC-JWT to the holder DID (did:jwk of the proof key), verifiable with did-jwt-vc', async () => {
    const holder = await newKey()
    const res = await post('/oid4vci/acme/credential', await accessToken(), {
      credential_configuration_id: 'Employee',
      proof: { proof_type: 'jwt', jwt: await keyProof(holder, await nonce()) },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const jwt: string = res.body.credentials[0].credential
    const resolver = new Resolver({
      jwk: async (did) => {
        const jwk = JSON.parse(Buffer.from(did.slice('did:jwk:'.length).split('#')[0], 'base64url').toString())
        return { didResolutionMetadata: {}, didDocument: didJwkDocument(did.split('#')[0], jwk), didDocumentMetadata: {} }
      },
    })
    const verified = await verifyCredential(jwt, resolver)
    expect(verified.issuer).toBe(issuerDid)
    expect(verified.verifiableCredential.credentialSubject).toMatchObject({ id: didJwkOf(holder.jwk), employer: 'ACME' })
    expect(verified.verifiableCredential.type).toContain('EmployeeCredential')
  })

  it('issues an ldp_vc that Verify Claims verifies; a stray proofs.proof_type and issuer_state are ignored', async () => {
    const holder = await newKey()
    const res = await post('/oid4vci/acme/credential', await accessToken(), {
      credential_configuration_id: 'Badge',
      issuer_state: 'state-1',
      proofs: { proof_type: 'jwt', jwt: [await keyProof(holder, await nonce())] },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const jsonld = res.body.credentials[0].credential
    expect(jsonld.credentialSubject).toMatchObject({ id: didJwkOf(holder.jwk), name: 'Gold', level: 3 })
    const didAuth = (await h.request('POST', '/did-auth-jwt', { json: { iss: issuerDid } })).body.jwt
    const checked = await h.request('POST', '/claims/verify', { json: { vcs: [{ jsonld }] }, didAuth })
    expect(checked.status, JSON.stringify(checked.body)).toBe(200)
    expect(checked.body.vcs[0]).toMatchObject({ verified: true, issuer: issuerDid })
  })

  it('a batch of 3 proofs by distinct keys gets 3 credentials, each bound to its key', async () => {
    const keys = await Promise.all([newKey(), newKey(), newKey()])
    const n = await nonce()
    const before = await counts()
    const res = await post('/oid4vci/acme/credential', await accessToken(), {
      credential_configuration_id: 'Identity',
      proofs: { jwt: await Promise.all(keys.map((k) => keyProof(k, n))) },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const bound = res.body.credentials.map(
      ({ credential }: { credential: string }) =>
        JSON.parse(Buffer.from(credential.split('~')[0].split('.')[1], 'base64url').toString()).cnf.jwk.x,
    )
    expect(bound).toEqual(keys.map((k) => k.jwk.x))
    expect((await counts()).credentials).toBe(before.credentials + 3)
  })

  it('the notification endpoint records the event and answers 204; an unknown id is invalid_notification_id', async () => {
    const token = await accessToken({ offerId: 'offer-notify' })
    const proof = await keyProof(await newKey(), await nonce())
    const oneTimeRows = await h.storage.collection('one_time').count()
    const res = await post('/oid4vci/acme/credential', token, { credential_configuration_id: 'Identity', proofs: { jwt: [proof] } })
    // The notification_id is sealed, not stored: the one row written is the used c_nonce.
    expect(await h.storage.collection('one_time').count()).toBe(oneTimeRows + 1)
    const notificationId = res.body.notification_id
    const ok = await post('/oid4vci/acme/notification', token, { notification_id: notificationId, event: 'credential_accepted' })
    expect(ok.status).toBe(204)
    expect(ok.body).toBe('')
    expect(await auditOf('credential.notification')).toEqual([
      expect.objectContaining({
        target: expect.objectContaining({ type: 'credential', event: 'credential_accepted', offer: 'offer-notify' }),
      }),
    ])
    const unknown = await post('/oid4vci/acme/notification', token, { notification_id: 'nope', event: 'credential_deleted' })
    expect([unknown.status, unknown.body.error]).toEqual([400, 'invalid_notification_id'])
    // Another offer's token does not reach this issuance's notifications.
    const other = await post('/oid4vci/acme/notification', await accessToken({ offerId: 'offer-2' }), {
      notification_id: notificationId,
      event: 'credential_deleted',
    })
    expect([other.status, other.body.error]).toEqual([400, 'invalid_notification_id'])
    // Forged, altered, another tenant's or another issuer's id: invalid_notification_id, nothing audited.
    const [version, iv, body] = String(notificationId).split('.')
    const flip = (text: string, at: number) => `${text.slice(0, at)}${text[at] === 'A' ? 'B' : 'A'}${text.slice(at + 1)}`
    const data = { issuer: 'acme', configurationId: 'Identity', credentials: ['urn:uuid:x'], offerId: 'offer-notify' }
    const forged = [
      `${version}.${iv}.${flip(body, 12)}`,
      `${version}.${flip(iv, 2)}.${body}`,
      sealNotificationId(new OneTimeStore(h.storage, () => 'y'.repeat(43)), 'tenant-a', data),
      sealNotificationId(h.service.oneTime, 'tenant-b', data),
      sealNotificationId(h.service.oneTime, 'tenant-a', { ...data, issuer: 'bravo' }),
      await accessToken({ offerId: 'offer-notify' }),
    ]
    for (const id of forged) {
      const refusedId = await post('/oid4vci/acme/notification', token, { notification_id: id, event: 'credential_deleted' })
      expect([refusedId.status, refusedId.body.error]).toEqual([400, 'invalid_notification_id'])
    }
    expect(await auditOf('credential.notification')).toHaveLength(1)
    const bad = await post('/oid4vci/acme/notification', token, { notification_id: notificationId, event: 'credential_lost' })
    expect([bad.status, bad.body.error]).toEqual([400, 'invalid_notification_request'])
  })

  it('acceptUntypedProofs: an untyped did:jwk proof without iat (digitalbazaar) is accepted there only, exp required', async () => {
    const holder = await newKey()
    const untyped = async (payload: Record<string, unknown> = {}) =>
      sign(holder, { kid: `${didJwkOf(holder.jwk)}#0` }, { aud: CI, nonce: await nonce(), exp: now() + 120, nbf: now(), ...payload })
    const ok = await post('/oid4vci/acme/credential', await accessToken(), {
      credential_configuration_id: 'Loose',
      proofs: { jwt: [await untyped()] },
    })
    expect(ok.status, JSON.stringify(ok.body)).toBe(200)
    const payload = JSON.parse(Buffer.from(ok.body.credentials[0].credential.split('.')[1], 'base64url').toString())
    expect(payload.cnf.jwk.x).toBe(holder.jwk.x)
    const strict = await post('/oid4vci/acme/credential', await accessToken(), {
      credential_configuration_id: 'Identity',
      proofs: { jwt: [await untyped()] },
    })
    expect([strict.status, strict.body.error]).toEqual([400, 'invalid_proof'])
    const noExp = await post('/oid4vci/acme/credential', await accessToken(), {
      credential_configuration_id: 'Loose',
      proofs: { jwt: [await untyped({ exp: undefined })] },
    })
    expect([noExp.status, noExp.body.error]).toEqual([400, 'invalid_proof'])
  })

  describe('refusals, with no credential record and no audit record written', () => {
    /** Sends the request and expects the OAuth error, nothing issued. */
    async function refused(send: () => Promise<{ status: number; body: any; headers: Headers }>, status: number, error: string) {
      const before = await counts()
      const res = await send()
      expect([res.status, res.body?.error], JSON.stringify(res.body)).toEqual([status, error])
      expect(await counts()).toEqual(before)
      return res
    }
    const request = async (token: string, jwts: string[], configuration = 'Identity', path = '/oid4vci/acme/credential') =>
      post(path, token, { credential_configuration_id: configuration, proofs: { jwt: jwts } })

    it('a replayed nonce: invalid_nonce with a fresh c_nonce', async () => {
      const n = await nonce()
      const first = await request(await accessToken(), [await keyProof(await newKey(), n)])
      expect(first.status).toBe(200)
      const res = await refused(async () => request(await accessToken(), [await keyProof(await newKey(), n)]), 400, 'invalid_nonce')
      expect(typeof res.body.c_nonce).toBe('string')
      // The fresh nonce works.
      expect((await request(await accessToken(), [await keyProof(await newKey(), res.body.c_nonce)])).status).toBe(200)
    })

    it('one nonce in two requests at once: one is issued, the other gets invalid_nonce with a fresh c_nonce and writes nothing', async () => {
      const before = await counts()
      const n = await nonce()
      const [a, b] = await Promise.all([0, 1].map(async () => request(await accessToken(), [await keyProof(await newKey(), n)])))
      expect([a.status, b.status].sort()).toEqual([200, 400])
      const refusal = a.status === 400 ? a : b
      expect(refusal.body.error).toBe('invalid_nonce')
      expect(typeof refusal.body.c_nonce).toBe('string')
      expect(await counts()).toEqual({ credentials: before.credentials + 1, issued: before.issued + 1 })
    })

    it('a token of the authorization code flow: a proof whose iss is another client is refused; its own client or no iss is issued', async () => {
      const token = () => accessToken({ clientId: 'wallet-app', subject: 'user-1' })
      const other = { payload: { iss: 'someone-else' } }
      const res = await refused(
        async () => request(await token(), [await keyProof(await newKey(), await nonce(), other)]),
        400,
        'invalid_proof',
      )
      expect(res.body.error_description).toContain('iss')
      expect(
        (await request(await token(), [await keyProof(await newKey(), await nonce(), { payload: { iss: 'wallet-app' } })])).status,
      ).toBe(200)
      expect((await request(await token(), [await keyProof(await newKey(), await nonce())])).status).toBe(200)
    })

    it('an unknown nonce, or another tenant’s: invalid_nonce', async () => {
      await refused(async () => request(await accessToken(), [await keyProof(await newKey(), 'never-issued')]), 400, 'invalid_nonce')
      await refused(
        async () => request(await accessToken(), [await keyProof(await newKey(), await nonce('tenant-b'))]),
        400,
        'invalid_nonce',
      )
    })

    it('a proof signed by another key than its header names: invalid_proof with a fresh c_nonce', async () => {
      const [signer, named] = [await newKey(), await newKey()]
      const res = await refused(
        async () => request(await accessToken(), [await keyProof(signer, await nonce(), { header: { jwk: named.jwk } })]),
        400,
        'invalid_proof',
      )
      expect(typeof res.body.c_nonce).toBe('string')
    })

    it('a wrong aud, a stale iat, no typ: invalid_proof', async () => {
      const key = await newKey()
      await refused(
        async () => request(await accessToken(), [await keyProof(key, await nonce(), { payload: { aud: CI_B } })]),
        400,
        'invalid_proof',
      )
      await refused(
        async () => request(await accessToken(), [await keyProof(key, await nonce(), { payload: { iat: now() - 3600 } })]),
        400,
        'invalid_proof',
      )
      await refused(
        async () => request(await accessToken(), [await keyProof(key, await nonce(), { header: { typ: undefined } })]),
        400,
        'invalid_proof',
      )
    })

    it('a configuration the token does not grant: invalid_credential_request; an unknown one: unknown_credential_configuration', async () => {
      const key = await newKey()
      await refused(
        async () => request(await accessToken(), [await keyProof(key, await nonce())], 'Other'),
        400,
        'invalid_credential_request',
      )
      await refused(
        async () => request(await accessToken(), [await keyProof(key, await nonce())], 'Nope'),
        400,
        'unknown_credential_configuration',
      )
    })

    it('a batch over the batch size, or with the same key twice: invalid_proof', async () => {
      const n = await nonce()
      const keys = await Promise.all([newKey(), newKey(), newKey(), newKey()])
      await refused(async () => request(await accessToken(), await Promise.all(keys.map((k) => keyProof(k, n)))), 400, 'invalid_proof')
      await refused(
        async () => request(await accessToken(), [await keyProof(keys[0], n), await keyProof(keys[0], n)]),
        400,
        'invalid_proof',
      )
      // Employee's batch size is 1.
      await refused(
        async () => request(await accessToken(), [await keyProof(keys[0], n), await keyProof(keys[1], n)], 'Employee'),
        400,
        'invalid_proof',
      )
    })

    it('a DPoP-bound token presented as Bearer, or without its DPoP proof: invalid_token; with it: issued', async () => {
      const dpopKey = await newKey()
      const token = await accessToken({ jkt: await calculateJwkThumbprint(dpopKey.jwk) })
      const body = async () => ({
        credential_configuration_id: 'Identity',
        proofs: { jwt: [await keyProof(await newKey(), await nonce())] },
      })
      await refused(async () => post('/oid4vci/acme/credential', token, await body()), 401, 'invalid_token')
      await refused(async () => post('/oid4vci/acme/credential', token, await body(), {}, 'DPoP'), 401, 'invalid_dpop_proof')
      const ok = await post('/oid4vci/acme/credential', token, await body(), { dpop: await dpopProof(dpopKey, token) }, 'DPoP')
      expect(ok.status, JSON.stringify(ok.body)).toBe(200)
    })

    it('an expired or unknown access token: invalid_token', async () => {
      const token = await accessToken({}, 'tenant-a', 1)
      await new Promise((resolve) => setTimeout(resolve, 20))
      await refused(async () => request(token, [await keyProof(await newKey(), await nonce())]), 401, 'invalid_token')
      await refused(async () => request('not-a-token', [await keyProof(await newKey(), await nonce())]), 401, 'invalid_token')
    })

    it('a forged, altered, other-issuer or other-tenant sealed token: invalid_token, nothing written', async () => {
      const before = await counts(TENANT_A)
      const good = await accessToken()
      const [version, iv, body] = good.split('.')
      const flip = (text: string, at: number) => `${text.slice(0, at)}${text[at] === 'A' ? 'B' : 'A'}${text.slice(at + 1)}`
      const forged = [
        // Altered ciphertext, altered iv, another version, a token of nothing.
        `${version}.${iv}.${flip(body, 10)}`,
        `${version}.${flip(iv, 3)}.${body}`,
        `s9.${iv}.${body}`,
        `${version}.${iv}.`,
        // Sealed under another key (another service's), for another issuer of the tenant, for another tenant.
        sealAccessToken(
          new OneTimeStore(h.storage, () => 'x'.repeat(43)),
          'tenant-a',
          { ...(await grantOf(good)), issuer: 'acme' },
          60_000,
        ),
        await accessToken({ issuer: 'bravo' }),
        await accessToken({}, 'tenant-b'),
      ]
      for (const token of forged)
        await refused(async () => request(token, [await keyProof(await newKey(), await nonce())]), 401, 'invalid_token')
      expect(await counts(TENANT_A)).toEqual(before)
      // The token is the grant, sealed: no one-time record is written for it, and its claims are not readable in it.
      expect(Buffer.from(body, 'base64url').toString('latin1')).not.toContain('Mustermann')
      const oneTime = await h.storage.collection('one_time').count()
      await accessToken()
      expect(await h.storage.collection('one_time').count()).toBe(oneTime)
    })

    it('a token of tenant A at tenant B’s issuer: invalid_token, nothing issued at either', async () => {
      const beforeB = await counts(TENANT_B)
      await refused(
        async () =>
          request(
            await accessToken(),
            [await keyProof(await newKey(), await nonce('tenant-b'), { payload: { aud: CI_B } })],
            'Identity',
            '/oid4vci/bravo/credential',
          ),
        401,
        'invalid_token',
      )
      expect(await counts(TENANT_B)).toEqual(beforeB)
    })
  })
})
