/**
 * Presentation requests of the OID4VP verifier (issue 34 §1), over the router on loopback HTTP and a SQLite file: one
 * per client identifier prefix, the Request Object verified with jose against the verifier's key with the claims a
 * wallet relies on; every refusal with nothing written; no private key bytes in the database.
 */
import { X509Certificate, createHash, createPublicKey } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { compactVerify, importJWK, type JWK } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectError, snapshot, TENANT_B, type Harness } from '../helpers/harness.js'
import {
  fetchRequestObject,
  headerOf,
  payloadOf,
  PUBLIC_URL,
  QUERY,
  requestIdOf,
  selfSignedChain,
  vpHarness,
  vpWallet,
} from './vp-fixtures.js'

/** The public JWK a did:jwk names. */
const jwkOfDidJwk = (did: string) => JSON.parse(Buffer.from(did.slice('did:jwk:'.length), 'base64url').toString('utf8')) as JWK

describe('createPresentationRequest per client identifier prefix', () => {
  let h: Harness
  let verifier: { did: string; jwt: string }
  const x509 = selfSignedChain()
  beforeAll(async () => {
    h = await vpHarness({ x509 })
    verifier = await vpWallet(h)
  }, 120_000)
  afterAll(() => h?.close())

  it('decentralized_identifier: the request object is signed by the DID’s key and says what the wallet needs', async () => {
    const res = await h.request('POST', '/oid4vp/requests', {
      json: { dcqlQuery: QUERY, clientId: { prefix: 'decentralized_identifier', did: verifier.did } },
      didAuth: verifier.jwt,
    })
    expect(res.status).toBe(200)
    const id = requestIdOf(res.body.requestUri)
    expect(res.body.id).toBe(id)
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(res.body.requestUri).toBe(`${PUBLIC_URL}/oid4vp/request-objects/${id}`)
    const clientId = `decentralized_identifier:${verifier.did}`
    const params = new URLSearchParams({ client_id: clientId, request_uri: res.body.requestUri, request_uri_method: 'post' })
    expect(res.body.authorizationRequest).toEqual({
      uri: `openid4vp://?${params.toString()}`,
      https: `${PUBLIC_URL}/oid4vp/authorize?${params.toString()}`,
    })
    expect(res.body.qr).toMatch(/^<svg/)
    expect(Date.parse(res.body.expiresAt) - Date.now()).toBeGreaterThan(250_000)
    // The https link sends a browser to the wallet's scheme with the same parameters; no other request URI is passed on.
    const link = await h.request('GET', `/oid4vp/authorize?${params.toString()}`, { token: null, redirect: 'manual' })
    expect(link.status).toBe(302)
    expect(link.headers.get('location')).toBe(res.body.authorizationRequest.uri)
    const elsewhere = new URLSearchParams({ client_id: clientId, request_uri: 'https://attacker.example/oid4vp/request-objects/x' })
    const refused = await h.request('GET', `/oid4vp/authorize?${elsewhere.toString()}`, { token: null, redirect: 'manual' })
    expect(refused.status).toBe(400)
    expect(refused.headers.get('location')).toBeNull()
    expect(refused.body).toMatchObject({ error: 'invalid_request' })

    const jwt = await fetchRequestObject(h, id)
    const header = headerOf(jwt)
    expect(header).toMatchObject({ typ: 'oauth-authz-req+jwt', alg: 'ES256', kid: `${verifier.did}#0` })
    const key = await importJWK(jwkOfDidJwk(verifier.did), 'ES256')
    await compactVerify(jwt, key) // throws unless signed by the DID's key
    const payload = payloadOf(jwt)
    expect(payload).toMatchObject({
      response_type: 'vp_token',
      client_id: clientId,
      response_uri: `${PUBLIC_URL}/oid4vp/responses/${id}`,
      response_mode: 'direct_post',
      aud: 'https://self-issued.me/v2',
      dcql_query: { credentials: [{ id: 'pid', format: 'dc+sd-jwt', claims: QUERY.credentials[0].claims }] },
      client_metadata: { vp_formats_supported: { 'dc+sd-jwt': { 'sd-jwt_alg_values': expect.any(Array) } } },
    })
    expect(payload.nonce).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(payload.state).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(payload.nonce).not.toBe(payload.state)
    // exp is the request's expiry (whole seconds, never later)
    expect(Date.parse(res.body.expiresAt) / 1000 - (payload.exp as number)).toBeGreaterThanOrEqual(0)
    expect(Date.parse(res.body.expiresAt) / 1000 - (payload.exp as number)).toBeLessThan(1)
    expect(payload.iat as number).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000))
    expect(payload).not.toHaveProperty('wallet_nonce')
  })

  it('did:key works the same', async () => {
    const keyVerifier = await vpWallet(h, 'key')
    const res = await h.request('POST', '/oid4vp/requests', {
      json: { dcqlQuery: QUERY, clientId: { prefix: 'decentralized_identifier', did: keyVerifier.did } },
      didAuth: keyVerifier.jwt,
    })
    expect(res.status).toBe(200)
    const header = headerOf(await fetchRequestObject(h, res.body.id))
    expect(header.kid).toMatch(new RegExp(`^${keyVerifier.did}#`))
  })

  it('redirect_uri: unsigned, client_id the response URI', async () => {
    const res = await h.request('POST', '/oid4vp/requests', { json: { dcqlQuery: QUERY, clientId: { prefix: 'redirect_uri' } } })
    expect(res.status).toBe(200)
    const jwt = await fetchRequestObject(h, res.body.id)
    expect(jwt.endsWith('.')).toBe(true)
    expect(headerOf(jwt)).toEqual({ alg: 'none', typ: 'oauth-authz-req+jwt' })
    const payload = payloadOf(jwt)
    expect(payload.client_id).toBe(`redirect_uri:${PUBLIC_URL}/oid4vp/responses/${res.body.id}`)
    expect(payload.response_uri).toBe(`${PUBLIC_URL}/oid4vp/responses/${res.body.id}`)
  })

  it('x509_san_dns and x509_hash: signed by the certificate key, x5c the chain', async () => {
    const leaf = new X509Certificate(x509.chain[0])
    for (const [prefix, clientId] of [
      ['x509_san_dns', 'x509_san_dns:verifier.example.com'],
      ['x509_hash', `x509_hash:${createHash('sha256').update(leaf.raw).digest('base64url')}`],
    ] as const) {
      const res = await h.request('POST', '/oid4vp/requests', { json: { dcqlQuery: QUERY, clientId: { prefix } } })
      expect(res.status).toBe(200)
      const jwt = await fetchRequestObject(h, res.body.id)
      expect(headerOf(jwt)).toMatchObject({ alg: 'ES256', typ: 'oauth-authz-req+jwt', x5c: [leaf.raw.toString('base64')] })
      await compactVerify(jwt, createPublicKey(leaf.publicKey.export({ format: 'pem', type: 'spki' })))
      expect(payloadOf(jwt).client_id).toBe(clientId)
    }
  })

  it('direct_post.jwt: an ephemeral P-256 key in client_metadata; its private part sealed, not in the SQLite file', async () => {
    const res = await h.request('POST', '/oid4vp/requests', {
      json: { dcqlQuery: QUERY, clientId: { prefix: 'redirect_uri' }, responseMode: 'direct_post.jwt', enc: ['A256GCM'] },
    })
    expect(res.status).toBe(200)
    const payload = payloadOf(await fetchRequestObject(h, res.body.id))
    expect(payload.response_mode).toBe('direct_post.jwt')
    const metadata = payload.client_metadata as {
      jwks: { keys: Array<Record<string, unknown>> }
      encrypted_response_enc_values_supported: string[]
    }
    expect(metadata.encrypted_response_enc_values_supported).toEqual(['A256GCM'])
    const [key] = metadata.jwks.keys
    expect(key).toMatchObject({ kty: 'EC', crv: 'P-256', use: 'enc', alg: 'ECDH-ES', kid: expect.any(String) })
    expect(key).not.toHaveProperty('d')
    const records = await h.storage.collection<{ id: string } & Record<string, any>>('oid4vp_requests').find({ and: [] }, { limit: 100 })
    const record = records.items.find((r) => r.encryption?.publicJwk?.kid === key.kid)!
    expect(record.encryption.sealedPrivateJwk).toEqual(expect.any(String))
    expect(JSON.stringify(record)).not.toMatch(/"d":/)
    // No request id anywhere in the database; the private scalar nowhere in the file.
    const file = readFileSync(h.dbPath!)
    expect(file.includes(Buffer.from(res.body.id))).toBe(false)
    expect(file.includes(Buffer.from('"d":"'))).toBe(false)
  })

  it('transaction_data: base64url JSON, in the request object', async () => {
    const entry = { type: 'payment', credential_ids: ['pid'], amount: '10 EUR' }
    const res = await h.request('POST', '/oid4vp/requests', {
      json: { dcqlQuery: QUERY, clientId: { prefix: 'redirect_uri' }, transactionData: [entry] },
    })
    expect(res.status).toBe(200)
    const [encoded] = payloadOf(await fetchRequestObject(h, res.body.id)).transaction_data as string[]
    expect(JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'))).toEqual(entry)
  })
})

describe('createPresentationRequest refusals, nothing written', () => {
  let h: Harness
  let verifier: { did: string; jwt: string }
  let other: { did: string; jwt: string }
  let tenantB: { did: string; jwt: string }
  beforeAll(async () => {
    h = await vpHarness()
    verifier = await vpWallet(h)
    other = await vpWallet(h)
    tenantB = await vpWallet(h, 'jwk', TENANT_B)
  }, 120_000)
  afterAll(() => h?.close())

  async function refused(status: number, errorType: string, init: { json: unknown; didAuth?: string; token?: string }, mentions?: string) {
    const before = await snapshot(h)
    const res = await h.request('POST', '/oid4vp/requests', init)
    expectError(res, status, errorType)
    if (mentions) expect(res.body.errorMessage).toContain(mentions)
    expect(await snapshot(h)).toEqual(before)
  }
  const did = (d: string) => ({ prefix: 'decentralized_identifier', did: d })

  it('an invalid DCQL query: 422 naming it', async () => {
    await refused(422, 'VALIDATION_ERROR', { json: { dcqlQuery: { credentials: [] }, clientId: { prefix: 'redirect_uri' } } }, 'dcqlQuery')
    const undefinedSet = { credentials: QUERY.credentials, credential_sets: [{ options: [['nope']] }] }
    await refused(422, 'VALIDATION_ERROR', { json: { dcqlQuery: undefinedSet, clientId: { prefix: 'redirect_uri' } } }, 'dcqlQuery')
    const mdoc = { credentials: [{ id: 'm', format: 'mso_mdoc', meta: { doctype_value: 'org.iso.18013.5.1.mDL' } }] }
    await refused(422, 'VALIDATION_ERROR', { json: { dcqlQuery: mdoc, clientId: { prefix: 'redirect_uri' } } }, 'mso_mdoc')
  })

  it('a huge query is bounded before the library sees it', async () => {
    const many = { credentials: Array.from({ length: 21 }, (_, i) => ({ ...QUERY.credentials[0], id: `c${i}` })) }
    await refused(422, 'VALIDATION_ERROR', { json: { dcqlQuery: many, clientId: { prefix: 'redirect_uri' } } }, 'dcqlQuery')
    const long = { credentials: [{ ...QUERY.credentials[0], meta: { vct_values: ['x'.repeat(40_000)] } }] }
    await refused(422, 'VALIDATION_ERROR', { json: { dcqlQuery: long, clientId: { prefix: 'redirect_uri' } } }, 'dcqlQuery')
  })

  it('an unknown prefix, or x509 without the module’s chain: 422', async () => {
    await refused(422, 'VALIDATION_ERROR', { json: { dcqlQuery: QUERY, clientId: { prefix: 'pre-registered' } } }, 'clientId')
    await refused(422, 'VALIDATION_ERROR', { json: { dcqlQuery: QUERY, clientId: { prefix: 'x509_san_dns' } } }, 'x509')
  })

  it('a DID the caller does not control: 403; one of another tenant or none: 422 NOT_FOUND', async () => {
    await refused(403, 'FORBIDDEN', { json: { dcqlQuery: QUERY, clientId: did(verifier.did) }, didAuth: other.jwt })
    await refused(403, 'FORBIDDEN', { json: { dcqlQuery: QUERY, clientId: did(verifier.did) } })
    await refused(422, 'NOT_FOUND', { json: { dcqlQuery: QUERY, clientId: did(tenantB.did) }, didAuth: tenantB.jwt }, tenantB.did)
  })

  it('transaction data naming no credential query, an expiry past the module’s, a non-https redirectUri: 422', async () => {
    const base = { dcqlQuery: QUERY, clientId: { prefix: 'redirect_uri' } }
    await refused(422, 'VALIDATION_ERROR', { json: { ...base, transactionData: [{ type: 't', credential_ids: ['nope'] }] } }, 'nope')
    await refused(422, 'VALIDATION_ERROR', { json: { ...base, transactionData: [{ credential_ids: ['pid'] }] } }, 'transactionData')
    await refused(422, 'VALIDATION_ERROR', { json: { ...base, expiresInSeconds: 301 } }, 'requestTtlSeconds')
    await refused(422, 'VALIDATION_ERROR', { json: { ...base, redirectUri: 'http://rp.example/done' } }, 'redirectUri')
  })

  it('without the Base Auth Token: 403 UNAUTHENTICATED', () =>
    refused(403, 'UNAUTHENTICATED', { json: { dcqlQuery: QUERY, clientId: { prefix: 'redirect_uri' } }, token: null as never }))
})

describe('a service without the module or publicUrl', () => {
  it('422 naming what is missing', async () => {
    const { startHarness } = await import('../helpers/harness.js')
    const bare = await startHarness({ storage: 'sqlite', service: { publicUrl: PUBLIC_URL } })
    const noUrl = await vpHarness({}, { publicUrl: undefined })
    try {
      const json = { dcqlQuery: QUERY, clientId: { prefix: 'redirect_uri' } }
      const a = await bare.request('POST', '/oid4vp/requests', { json })
      expectError(a, 422, 'VALIDATION_ERROR')
      expect(a.body.errorMessage).toContain('oid4vp')
      const b = await noUrl.request('POST', '/oid4vp/requests', { json })
      expectError(b, 422, 'VALIDATION_ERROR')
      expect(b.body.errorMessage).toContain('publicUrl')
      // The wallet-facing endpoint: 404 with an OAuth body.
      const c = await bare.request('GET', '/oid4vp/request-objects/abc', { token: null })
      expect(c.status).toBe(404)
      expect(c.body.error).toBe('invalid_request')
    } finally {
      await bare.close()
      await noUrl.close()
    }
  })
})

describe('the operator’s certificate', () => {
  const json = (prefix: string) => ({ dcqlQuery: QUERY, clientId: { prefix } })

  it('x509_san_dns names the publicUrl host among the certificate’s DNS names; a certificate without it: 422', async () => {
    const several = await vpHarness({ x509: selfSignedChain('other.example.com,DNS:verifier.example.com') })
    const elsewhere = await vpHarness({ x509: selfSignedChain('other.example.com') })
    try {
      const made = await several.request('POST', '/oid4vp/requests', { json: json('x509_san_dns') })
      expect(made.status).toBe(200)
      expect(new URL(made.body.authorizationRequest.uri).searchParams.get('client_id')).toBe('x509_san_dns:verifier.example.com')
      const before = await snapshot(elsewhere)
      const refused = await elsewhere.request('POST', '/oid4vp/requests', { json: json('x509_san_dns') })
      expectError(refused, 422, 'VALIDATION_ERROR')
      expect(refused.body.errorMessage).toContain('verifier.example.com')
      expect(await snapshot(elsewhere)).toEqual(before)
    } finally {
      await several.close()
      await elsewhere.close()
    }
  })

  it('x509.tenants: another tenant may not ask under it (403, nothing written); its own prefixes still work', async () => {
    const h2 = await vpHarness({ x509: { ...selfSignedChain(), tenants: ['tenant-b'] } })
    try {
      const before = await snapshot(h2)
      for (const prefix of ['x509_san_dns', 'x509_hash'])
        expectError(await h2.request('POST', '/oid4vp/requests', { json: json(prefix) }), 403, 'FORBIDDEN')
      expect(await snapshot(h2)).toEqual(before)
      expect((await h2.request('POST', '/oid4vp/requests', { json: json('x509_hash'), token: TENANT_B })).status).toBe(200)
      expect((await h2.request('POST', '/oid4vp/requests', { json: json('redirect_uri') })).status).toBe(200)
    } finally {
      await h2.close()
    }
  })

  it('a DCQL query naming trusted_authorities (not checked here): 422', async () => {
    const h2 = await vpHarness({})
    try {
      const query = {
        credentials: [{ ...QUERY.credentials[0], trusted_authorities: [{ type: 'aki', values: ['s9tIpPmhxdiuNkHMEWNpYim8S8Y'] }] }],
      }
      const refused = await h2.request('POST', '/oid4vp/requests', { json: { dcqlQuery: query, clientId: { prefix: 'redirect_uri' } } })
      expectError(refused, 422, 'VALIDATION_ERROR')
      expect(refused.body.errorMessage).toContain('trusted_authorities')
    } finally {
      await h2.close()
    }
  })
})
