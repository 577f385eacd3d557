/**
 * Credential configurations of the OID4VCI issuer and its metadata (issue 33 §1), over the router on loopback HTTP:
 * create / replace / list / delete on a SQLite file and PostgreSQL; every documented refusal with nothing written; the
 * Credential Issuer and Authorization Server metadata at the appended and inserted well-known paths, with ETag/304,
 * naming no secret, and accepted by `@openid4vc/openid4vci`'s client; the typed client's methods.
 */
import type { AddressInfo } from 'node:net'
import type { Server } from 'node:http'
import { createHash, randomBytes } from 'node:crypto'
import express from 'express'
import { Openid4vciClient } from '@openid4vc/openid4vci'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { IdentityService, createMemoryStorage, randomMasterKey, staticTenants } from '../../src/index.js'
import { createRouter, createWellKnownRouter } from '../../src/http/router.js'
import { createClient } from '../../src/client/index.js'
import { expectError, snapshot, startHarness, TENANT_A, TENANT_B, type Harness, type HarnessStorage } from '../helpers/harness.js'

const PUBLIC_URL = 'https://vault.example.com/id'

/** A wallet of the tenant (did:jwk, `keyType`) and a DID-auth token for it. */
async function walletOf(h: Harness, keyType = 'P-256', token = TENANT_A): Promise<{ did: string; jwt: string }> {
  const made = await h.request('POST', '/wallet', { json: { walletConfig: { didMethod: 'jwk', keyType } }, token })
  expect(made.status).toBe(200)
  const did: string = made.body.wallet.did
  const minted = await h.request('POST', '/did-auth-jwt', { json: { iss: did }, token })
  expect(minted.status).toBe(200)
  return { did, jwt: minted.body.jwt }
}

const sdJwtConfiguration = (issuingDid: string, overrides: Record<string, unknown> = {}) => ({
  id: 'Identity',
  issuer: 'acme',
  format: 'dc+sd-jwt',
  vct: 'https://credentials.example.com/identity',
  issuingDid,
  display: [{ name: 'Identity', locale: 'en' }],
  claims: [{ path: ['given_name'], display: [{ name: 'Given name', locale: 'en' }] }],
  batchSize: 5,
  ...overrides,
})

const STORAGES: HarnessStorage[] = ['sqlite', 'postgres']

describe.each(STORAGES)('credential configurations (%s)', (storage) => {
  let h: Harness
  let issuer: { did: string; jwt: string }
  beforeAll(async () => {
    h = await startHarness({ storage, service: { publicUrl: PUBLIC_URL } })
    issuer = await walletOf(h)
  }, 120_000)
  afterAll(() => h?.close())

  it('create, list, replace and delete; the metadata follows each change', async () => {
    const created = await h.request('POST', '/oid4vci/configurations', { json: sdJwtConfiguration(issuer.did), didAuth: issuer.jwt })
    expect(created.status).toBe(200)
    expect(created.body.configuration).toMatchObject({
      id: 'Identity',
      issuer: 'acme',
      format: 'dc+sd-jwt',
      issuingDid: issuer.did,
      credentialSigningAlg: 'ES256',
      batchSize: 5,
      credentialIssuer: `${PUBLIC_URL}/oid4vci/acme`,
    })

    const listed = await h.request('GET', '/oid4vci/configurations')
    expect(listed.status).toBe(200)
    expect(listed.body.issuer).toBe('acme')
    expect(listed.body.configurations.map((c: { id: string }) => c.id)).toEqual(['Identity'])

    const meta = await h.request('GET', '/oid4vci/acme/.well-known/openid-credential-issuer', { token: null })
    expect(meta.status).toBe(200)
    expect(meta.body.credential_issuer).toBe(`${PUBLIC_URL}/oid4vci/acme`)
    expect(meta.body.batch_credential_issuance).toEqual({ batch_size: 5 })
    expect(meta.body.credential_configurations_supported.Identity).toMatchObject({
      format: 'dc+sd-jwt',
      vct: 'https://credentials.example.com/identity',
      cryptographic_binding_methods_supported: ['jwk'],
      credential_signing_alg_values_supported: ['ES256'],
      proof_types_supported: { jwt: { proof_signing_alg_values_supported: ['ES256', 'ES256K', 'EdDSA'] } },
      credential_metadata: { display: [{ name: 'Identity', locale: 'en' }] },
    })

    // A replacement drops what it leaves out (batchSize back to 1: no batch issuance advertised).
    const { id: _id, batchSize: _b, ...rest } = sdJwtConfiguration(issuer.did, { deferred: true, proofTypes: { jwt: { algs: ['ES256'] } } })
    const replaced = await h.request('PUT', '/oid4vci/configurations/Identity', { json: rest, didAuth: issuer.jwt })
    expect(replaced.status).toBe(200)
    expect(replaced.body.configuration).toMatchObject({ batchSize: 1, deferred: true, proofTypes: { jwt: { algs: ['ES256'] } } })
    const after = await h.request('GET', '/oid4vci/acme/.well-known/openid-credential-issuer', { token: null })
    expect(after.body.batch_credential_issuance).toBeUndefined()
    expect(after.body.deferred_credential_endpoint).toBe(`${PUBLIC_URL}/oid4vci/acme/deferred-credential`)
    expect(after.headers.get('etag')).not.toBe(meta.headers.get('etag'))

    const deleted = await h.request('DELETE', '/oid4vci/configurations/Identity', { didAuth: issuer.jwt })
    expect(deleted.status).toBe(200)
    expect(deleted.body).toEqual({ deleted: 'Identity' })
    const empty = await h.request('GET', '/oid4vci/acme/.well-known/openid-credential-issuer', { token: null })
    expect(empty.body.credential_configurations_supported).toEqual({})
    // The slug stays the tenant's.
    expect((await h.request('GET', '/oid4vci/configurations')).body).toEqual({ issuer: 'acme', configurations: [] })
  })
})

describe('refusals, with nothing written', () => {
  let h: Harness
  let issuer: { did: string; jwt: string }
  let other: { did: string; jwt: string }
  let tenantB: { did: string; jwt: string }
  beforeAll(async () => {
    h = await startHarness({ storage: 'sqlite', service: { publicUrl: PUBLIC_URL } })
    issuer = await walletOf(h)
    other = await walletOf(h, 'Ed25519')
    tenantB = await walletOf(h, 'P-256', TENANT_B)
    const first = await h.request('POST', '/oid4vci/configurations', { json: sdJwtConfiguration(issuer.did), didAuth: issuer.jwt })
    expect(first.status).toBe(200)
  })
  afterAll(() => h?.close())

  /** Sends the request and expects the error, with no record written. */
  async function refused(
    status: number,
    errorType: string,
    request: { method?: string; path?: string; json?: unknown; didAuth?: string; token?: string; body?: string },
    mentions?: string,
  ) {
    const before = await snapshot(h)
    const { method = 'POST', path = '/oid4vci/configurations', ...init } = request
    const res = await h.request(method, path, init)
    expectError(res, status, errorType)
    if (mentions) expect(res.body.errorMessage).toContain(mentions)
    expect(await snapshot(h)).toEqual(before)
  }

  it('a slug another tenant holds: 422 CONFLICT', () =>
    refused(422, 'CONFLICT', { json: sdJwtConfiguration(tenantB.did), didAuth: tenantB.jwt, token: TENANT_B }, 'acme'))

  it('another slug than the tenant’s: 422 CONFLICT', () =>
    refused(422, 'CONFLICT', { json: sdJwtConfiguration(issuer.did, { id: 'Other', issuer: 'acme-2' }), didAuth: issuer.jwt }, 'acme'))

  it('a slug naming a management route (deferred, offers, configurations): 422, nothing written', async () => {
    for (const slug of ['deferred', 'offers', 'configurations'])
      await refused(
        422,
        'VALIDATION_ERROR',
        { json: sdJwtConfiguration(tenantB.did, { issuer: slug }), didAuth: tenantB.jwt, token: TENANT_B },
        'reserved',
      )
  })

  it('a configuration id the tenant has: 422 CONFLICT', () =>
    refused(422, 'CONFLICT', { json: sdJwtConfiguration(issuer.did), didAuth: issuer.jwt }, 'Identity'))

  it('an issuing DID the caller does not control: 403', () =>
    refused(403, 'FORBIDDEN', { json: sdJwtConfiguration(issuer.did, { id: 'X' }), didAuth: other.jwt }))

  it('replacing or deleting takes control of the DID the configuration signs with now: 403', async () => {
    await refused(403, 'FORBIDDEN', {
      method: 'PUT',
      path: '/oid4vci/configurations/Identity',
      json: (({ id: _i, ...rest }) => rest)(sdJwtConfiguration(other.did)),
      didAuth: other.jwt,
    })
    await refused(403, 'FORBIDDEN', { method: 'DELETE', path: '/oid4vci/configurations/Identity', didAuth: other.jwt })
  })

  it('another tenant’s DID: 422 NOT_FOUND, as if it did not exist', () =>
    refused(422, 'NOT_FOUND', { json: sdJwtConfiguration(tenantB.did, { id: 'X' }), didAuth: issuer.jwt }))

  it('an unknown configuration: 422 NOT_FOUND', () =>
    refused(422, 'NOT_FOUND', { method: 'DELETE', path: '/oid4vci/configurations/Nope', didAuth: issuer.jwt }))

  it('an unknown format, mso_mdoc included: 422 naming format', async () => {
    await refused(
      422,
      'VALIDATION_ERROR',
      { json: sdJwtConfiguration(issuer.did, { id: 'X', format: 'mso_mdoc' }), didAuth: issuer.jwt },
      'format',
    )
    await refused(
      422,
      'VALIDATION_ERROR',
      { json: sdJwtConfiguration(issuer.did, { id: 'X', format: 'SD-JWT' }), didAuth: issuer.jwt },
      'format',
    )
  })

  it('inputs that do not fit the format or the key: 422 naming the field', async () => {
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ vct: undefined }, 'vct'],
      [{ types: ['Identity'] }, 'types'],
      [{ format: 'jwt_vc_json', vct: undefined }, 'types'],
      [{ credentialSigningAlg: 'EdDSA' }, 'credentialSigningAlg'],
      [{ batchSize: 11 }, 'batchSize'],
      [{ issuer: 'Not A Slug' }, 'issuer'],
      [{ proofTypes: { jwt: { algs: ['RS256'] } } }, 'proofTypes'],
      [{ extra: true }, 'extra'],
    ]
    for (const [change, field] of bad)
      await refused(422, 'VALIDATION_ERROR', { json: sdJwtConfiguration(issuer.did, { id: 'X', ...change }), didAuth: issuer.jwt }, field)
  })

  it('huge input: 422 over the claims bound, 413 over the body limit', async () => {
    const claims = Array.from({ length: 201 }, (_, i) => ({ path: [`c${i}`] }))
    await refused(422, 'VALIDATION_ERROR', { json: sdJwtConfiguration(issuer.did, { id: 'X', claims }), didAuth: issuer.jwt }, 'claims')
    const huge = JSON.stringify(sdJwtConfiguration(issuer.did, { id: 'X', vct: 'x'.repeat(2 * 1024 * 1024) }))
    const before = await snapshot(h)
    const res = await h.request('POST', '/oid4vci/configurations', {
      body: huge,
      headers: { 'content-type': 'application/json' },
      didAuth: issuer.jwt,
    })
    expect(res.status).toBe(413)
    expect(await snapshot(h)).toEqual(before)
  })

  it('no DID-auth token: 403 UNAUTHENTICATED; another tenant’s listing does not show this one’s', async () => {
    await refused(403, 'UNAUTHENTICATED', { json: sdJwtConfiguration(issuer.did, { id: 'X' }) })
    const theirs = await h.request('GET', '/oid4vci/configurations', { token: TENANT_B })
    expect(theirs.body).toEqual({ configurations: [] })
  })

  it('an unknown slug: 404 at both metadata paths', async () => {
    expect((await h.request('GET', '/oid4vci/nobody/.well-known/openid-credential-issuer', { token: null })).status).toBe(404)
    expect((await h.request('GET', '/oid4vci/nobody/.well-known/oauth-authorization-server', { token: null })).status).toBe(404)
    expect((await h.request('GET', '/.well-known/openid-credential-issuer/oid4vci/nobody', { token: null })).status).toBe(404)
  })
})

describe('without publicUrl', () => {
  let h: Harness
  beforeAll(async () => {
    h = await startHarness({ storage: 'sqlite' })
  })
  afterAll(() => h?.close())

  it('the operations answer 422 naming publicUrl, nothing written; metadata 404', async () => {
    const issuer = await walletOf(h)
    const before = await snapshot(h)
    const res = await h.request('POST', '/oid4vci/configurations', { json: sdJwtConfiguration(issuer.did), didAuth: issuer.jwt })
    expectError(res, 422, 'VALIDATION_ERROR')
    expect(res.body.errorMessage).toContain('publicUrl')
    expect(await snapshot(h)).toEqual(before)
    expectError(await h.request('GET', '/oid4vci/configurations'), 422, 'VALIDATION_ERROR')
    expect((await h.request('GET', '/oid4vci/acme/.well-known/openid-credential-issuer', { token: null })).status).toBe(404)
  })
})

/** The issuer's public origin in this suite: requests to it go to the loopback server (the library takes only https URLs). */
const ORIGIN = 'https://issuer.test'

describe('metadata served to wallets (router at the host root, publicUrl an origin without path)', () => {
  let server: Server
  let base: string
  let service: IdentityService
  let issuer: { did: string; jwt: string }
  const masterKey = randomMasterKey()
  beforeAll(async () => {
    const app = express()
    server = await new Promise((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s))
    })
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    service = await IdentityService.create({
      storage: createMemoryStorage(),
      masterKey,
      tenants: staticTenants({ [TENANT_A]: 'tenant-a' }),
      publicUrl: ORIGIN,
    })
    app.use(createWellKnownRouter(service))
    app.use('/', createRouter(service))
    const api = service.as({ authorization: `Bearer ${TENANT_A}` })
    const { wallet } = await api.generateWallet({ walletConfig: { didMethod: 'jwk', keyType: 'Ed25519' } })
    const { jwt } = await api.generateToken({ iss: wallet.did })
    issuer = { did: wallet.did, jwt }
    const withDid = service.as({ authorization: `Bearer ${TENANT_A}`, didAuth: jwt })
    await withDid.createCredentialConfiguration(sdJwtConfiguration(wallet.did, { id: 'Identity', issuer: 'acme' }) as never)
    await withDid.createCredentialConfiguration({
      id: 'Diploma',
      issuer: 'acme',
      format: 'jwt_vc_json',
      types: ['UniversityDegreeCredential'],
      issuingDid: wallet.did,
      status: true,
    })
    await withDid.createCredentialConfiguration({
      id: 'DiplomaLd',
      issuer: 'acme',
      format: 'ldp_vc',
      types: ['UniversityDegreeCredential'],
      issuingDid: wallet.did,
    })
  })
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()))
    await service.close()
  })

  it('the inserted and the appended path answer the same document, with ETag and Cache-Control; 304 on If-None-Match', async () => {
    const inserted = await fetch(`${base}/.well-known/openid-credential-issuer/oid4vci/acme`)
    const appended = await fetch(`${base}/oid4vci/acme/.well-known/openid-credential-issuer`)
    expect(inserted.status).toBe(200)
    expect(inserted.headers.get('content-type')).toMatch(/^application\/json/)
    expect(inserted.headers.get('cache-control')).toBe('public, max-age=60')
    const etag = inserted.headers.get('etag')!
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/)
    expect(appended.headers.get('etag')).toBe(etag)
    const document = (await inserted.json()) as Record<string, any>
    expect(await appended.json()).toEqual(document)
    expect(document.credential_configurations_supported.Diploma).toMatchObject({
      format: 'jwt_vc_json',
      credential_definition: { type: ['VerifiableCredential', 'UniversityDegreeCredential'] },
      credential_signing_alg_values_supported: ['EdDSA'],
    })
    expect(document.credential_configurations_supported.DiplomaLd).toMatchObject({
      format: 'ldp_vc',
      credential_signing_alg_values_supported: ['eddsa-rdfc-2022'],
      credential_definition: { '@context': ['https://www.w3.org/2018/credentials/v1'] },
    })
    const again = await fetch(`${base}/.well-known/openid-credential-issuer/oid4vci/acme`, { headers: { 'if-none-match': etag } })
    expect(again.status).toBe(304)

    const as = await fetch(`${base}/.well-known/oauth-authorization-server/oid4vci/acme`)
    expect(as.status).toBe(200)
    expect(await as.json()).toMatchObject({
      issuer: `${ORIGIN}/oid4vci/acme`,
      token_endpoint: `${ORIGIN}/oid4vci/acme/token`,
      pushed_authorization_request_endpoint: `${ORIGIN}/oid4vci/acme/par`,
      code_challenge_methods_supported: ['S256'],
      'pre-authorized_grant_anonymous_access_supported': true,
    })
  })

  it('names no secret: no token, key or DID-auth token in either document', async () => {
    const texts = await Promise.all(
      ['openid-credential-issuer', 'oauth-authorization-server'].map(async (name) =>
        (await fetch(`${base}/oid4vci/acme/.well-known/${name}`)).text(),
      ),
    )
    for (const text of texts) {
      expect(text).not.toContain(TENANT_A)
      expect(text).not.toContain(issuer.jwt)
      expect(text).not.toContain(Buffer.from(masterKey).toString('hex'))
      expect(text).not.toMatch(/"d"\s*:|private/i)
    }
  })

  it('@openid4vc/openid4vci’s client resolves and parses the metadata (1.0), the authorization server’s too', async () => {
    const requested: string[] = []
    const client = new Openid4vciClient({
      callbacks: {
        // The requests the library makes of https://issuer.test go to the loopback server; it asks nothing of other hosts.
        fetch: (input, init) => {
          const url = String(input instanceof Request ? input.url : input)
          requested.push(url)
          if (!url.startsWith(ORIGIN)) throw new Error(`unexpected request to ${url}`)
          return fetch(base + url.slice(ORIGIN.length), init)
        },
        hash: (data, alg) => createHash(alg.replace('-', '').toLowerCase()).update(data).digest(),
        generateRandom: (bytes) => randomBytes(bytes),
        signJwt: () => Promise.reject(new Error('not signing here')),
        clientAuthentication: () => undefined,
      },
    })
    const resolved = await client.resolveIssuerMetadata(`${ORIGIN}/oid4vci/acme`)
    // The inserted path first (1.0), found there.
    expect(requested[0]).toBe(`${ORIGIN}/.well-known/openid-credential-issuer/oid4vci/acme`)
    expect(resolved.originalDraftVersion).toBe('V1')
    expect(resolved.credentialIssuer.credential_issuer).toBe(`${ORIGIN}/oid4vci/acme`)
    expect(Object.keys(resolved.credentialIssuer.credential_configurations_supported).sort()).toEqual(['Diploma', 'DiplomaLd', 'Identity'])
    expect(Object.keys(resolved.knownCredentialConfigurations).sort()).toEqual(['Diploma', 'DiplomaLd', 'Identity'])
    expect(resolved.authorizationServers[0]).toMatchObject({
      issuer: `${ORIGIN}/oid4vci/acme`,
      token_endpoint: `${ORIGIN}/oid4vci/acme/token`,
    })
    expect(requested).toContain(`${ORIGIN}/.well-known/oauth-authorization-server/oid4vci/acme`)
  })
})

describe('the typed client (didvault/client)', () => {
  it('has the four configuration operations as methods, not the wallet-facing metadata', () => {
    const client = createClient({ baseUrl: 'http://127.0.0.1:1' }).as({ authorization: 'Bearer x' })
    for (const name of [
      'createCredentialConfiguration',
      'updateCredentialConfiguration',
      'getCredentialConfigurations',
      'deleteCredentialConfiguration',
    ] as const)
      expect(typeof client[name]).toBe('function')
  })
})

describe('configurations an operator declares (applied at start)', () => {
  let h: Harness
  beforeAll(async () => {
    h = await startHarness({ storage: 'sqlite', service: { publicUrl: PUBLIC_URL } })
  })
  afterAll(() => h?.close())

  it('created, then replaced on the next start; audited as the config system; a DID of no wallet of the tenant is 422', async () => {
    const issuer = await walletOf(h)
    const { id: _i, issuer: _s, ...fields } = sdJwtConfiguration(issuer.did)
    const declared = [{ id: 'Identity', ...fields } as Parameters<IdentityService['applyDeclaredConfigurations']>[2][number]]
    expect(await h.service.applyDeclaredConfigurations('tenant-a', 'declared', declared)).toEqual({ created: ['Identity'], updated: [] })
    const again = await h.service.applyDeclaredConfigurations('tenant-a', 'declared', [{ ...declared[0], batchSize: 2 }])
    expect(again).toEqual({ created: [], updated: ['Identity'] })
    const listed = await h.request('GET', '/oid4vci/configurations')
    expect(listed.body.issuer).toBe('declared')
    expect(listed.body.configurations).toEqual([expect.objectContaining({ id: 'Identity', batchSize: 2 })])
    const audit = await h.request('GET', '/audit?action=credentialConfiguration.update')
    expect(audit.body.records).toEqual([expect.objectContaining({ actor: expect.objectContaining({ system: 'config' }) })])

    const before = await snapshot(h)
    const outsider = await walletOf(h, 'P-256', TENANT_B)
    const afterWallet = await snapshot(h)
    await expect(
      h.service.applyDeclaredConfigurations('tenant-a', 'declared', [{ ...declared[0], id: 'Other', issuingDid: outsider.did }]),
    ).rejects.toMatchObject({ errorType: 'NOT_FOUND' })
    await expect(
      h.service.applyDeclaredConfigurations('tenant-b', 'declared', [{ ...declared[0], issuingDid: outsider.did }]),
    ).rejects.toMatchObject({
      errorType: 'CONFLICT',
    })
    expect(await snapshot(h)).toEqual(afterWallet)
    expect(before).not.toEqual(afterWallet)
  })
})
