/**
 * The `request_uri` endpoint of the OID4VP verifier (issue 34 §2), over loopback HTTP on a SQLite file: GET serves the
 * Request Object signed at creation; POST (`request_uri_method=post`) signs it again with the wallet's `wallet_nonce`,
 * once per request; `wallet_metadata` the request cannot meet, unknown, expired and answered requests are refused
 * with OAuth bodies.
 */
import { compactVerify, importJWK, type JWK } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { snapshot, type Harness } from '../helpers/harness.js'
import { fetchRequestObject, headerOf, payloadOf, QUERY, vpHarness, vpWallet } from './vp-fixtures.js'

const form = (fields: Record<string, string>) => ({
  body: new URLSearchParams(fields).toString(),
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  token: null,
})

describe('the request_uri endpoint', () => {
  let h: Harness
  let verifier: { did: string; jwt: string }
  let clock = Date.now()
  beforeAll(async () => {
    h = await vpHarness({}, { now: () => clock })
    verifier = await vpWallet(h)
  }, 120_000)
  afterAll(() => h?.close())

  async function request(json: Record<string, unknown> = {}): Promise<string> {
    const res = await h.request('POST', '/oid4vp/requests', {
      json: { dcqlQuery: QUERY, clientId: { prefix: 'decentralized_identifier', did: verifier.did }, ...json },
      didAuth: verifier.jwt,
    })
    expect(res.status).toBe(200)
    return res.body.id
  }

  it('GET: the same request object each time, never cached as fresh', async () => {
    const id = await request()
    const first = await h.request('GET', `/oid4vp/request-objects/${id}`, { token: null })
    expect(first.status).toBe(200)
    expect(first.headers.get('cache-control')).toContain('max-age=0')
    expect(await fetchRequestObject(h, id)).toBe(first.body)
  })

  it('POST with wallet_nonce: re-signed with it, once; later POSTs 400 invalid_request', async () => {
    const id = await request()
    const original = await fetchRequestObject(h, id)
    const res = await h.request('POST', `/oid4vp/request-objects/${id}`, form({ wallet_nonce: 'wn-123', wallet_metadata: '{}' }))
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^application\/oauth-authz-req\+jwt/)
    const jwt = res.body as string
    const key = await importJWK(JSON.parse(Buffer.from(verifier.did.slice(8), 'base64url').toString()) as JWK, 'ES256')
    await compactVerify(jwt, key)
    expect(headerOf(jwt).typ).toBe('oauth-authz-req+jwt')
    const { iat: _a, exp: _b, wallet_nonce, ...rest } = payloadOf(jwt)
    const { iat: _c, exp: _d, ...before } = payloadOf(original)
    expect(wallet_nonce).toBe('wn-123')
    expect(rest).toEqual(before)

    const again = await h.request('POST', `/oid4vp/request-objects/${id}`, form({ wallet_nonce: 'wn-456' }))
    expect(again.status).toBe(400)
    expect(again.body.error).toBe('invalid_request')
    // GET still serves the one signed at creation.
    expect(await fetchRequestObject(h, id)).toBe(original)
  })

  it('wallet_metadata without our algorithm: 400 naming it, and the one POST is not spent', async () => {
    const id = await request()
    const before = await snapshot(h)
    const meta = JSON.stringify({ request_object_signing_alg_values_supported: ['EdDSA'] })
    const res = await h.request('POST', `/oid4vp/request-objects/${id}`, form({ wallet_nonce: 'n', wallet_metadata: meta }))
    expect(res.status).toBe(400)
    expect(res.body.error).toBe('invalid_request')
    expect(res.body.error_description).toContain('request_object_signing_alg_values_supported')
    expect(await snapshot(h)).toEqual(before)
    const bad = await h.request('POST', `/oid4vp/request-objects/${id}`, form({ wallet_metadata: '[1' }))
    expect(bad.status).toBe(400)
    const ok = await h.request(
      'POST',
      `/oid4vp/request-objects/${id}`,
      form({ wallet_nonce: 'n', wallet_metadata: JSON.stringify({ request_object_signing_alg_values_supported: ['ES256'] }) }),
    )
    expect(ok.status).toBe(200)
  })

  it('redirect_uri requests: POST re-makes the unsigned object with the wallet_nonce', async () => {
    const res = await h.request('POST', '/oid4vp/requests', { json: { dcqlQuery: QUERY, clientId: { prefix: 'redirect_uri' } } })
    const posted = await h.request('POST', `/oid4vp/request-objects/${res.body.id}`, form({ wallet_nonce: 'abc' }))
    expect(posted.status).toBe(200)
    expect(headerOf(posted.body).alg).toBe('none')
    expect(payloadOf(posted.body).wallet_nonce).toBe('abc')
  })

  it('unknown: 404; expired: 400 invalid_request; an answered request: 400', async () => {
    const unknown = await h.request('GET', `/oid4vp/request-objects/${'A'.repeat(43)}`, { token: null })
    expect(unknown.status).toBe(404)
    expect(unknown.body.error).toBe('invalid_request')
    expect(unknown.headers.get('cache-control')).toBe('no-store')

    const id = await request({ expiresInSeconds: 30 })
    clock += 31_000
    try {
      const expired = await h.request('GET', `/oid4vp/request-objects/${id}`, { token: null })
      expect(expired.status).toBe(400)
      expect(expired.body).toMatchObject({ error: 'invalid_request', error_description: expect.stringContaining('expired') })
      const posted = await h.request('POST', `/oid4vp/request-objects/${id}`, form({ wallet_nonce: 'x' }))
      expect(posted.status).toBe(400)
    } finally {
      clock -= 31_000
    }

    const answered = await request()
    // A wallet's answer, as the response endpoint records it.
    const recordId = h.service.oneTime.keyed('oid4vp-request', '', answered)
    await h.storage
      .collection<{ id: string }>('oid4vp_requests')
      .update(recordId, { status: 'failed', outcome: { status: 'failed', error: 'access_denied' } } as never)
    const res = await h.request('GET', `/oid4vp/request-objects/${answered}`, { token: null })
    expect(res.status).toBe(400)
    expect(res.body.error_description).toContain('answered')
  })
})
