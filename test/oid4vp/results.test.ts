/**
 * Reading presentation results (issue 34 §1), over loopback HTTP on a SQLite file: pending, then the outcome the
 * response endpoint recorded; another tenant's request is not found (no existence leak); same-device results need the
 * wallet's `response_code`, once; results past their `deleteAt` are gone and swept.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sweepPresentationRequests } from '../../src/oid4vp/results.js'
import { expectError, TENANT_B, type Harness } from '../helpers/harness.js'
import { QUERY, vpHarness } from './vp-fixtures.js'

const FULFILLED = {
  status: 'fulfilled',
  credentials: {
    pid: [
      {
        format: 'dc+sd-jwt',
        issuer: 'did:web:issuer.example',
        holder: { jwk: { kty: 'EC', crv: 'P-256', x: 'x', y: 'y' } },
        vct: 'https://credentials.example.com/identity',
        claims: { given_name: 'Erika' },
        unrequested: [],
        checks: [{ check: 'signature', verified: true }],
      },
    ],
  },
}

describe('getPresentationResult', () => {
  let h: Harness
  let clock = Date.now()
  beforeAll(async () => {
    h = await vpHarness({ resultTtlSeconds: 600 }, { now: () => clock })
  }, 120_000)
  afterAll(() => h?.close())

  async function request(json: Record<string, unknown> = {}): Promise<string> {
    const res = await h.request('POST', '/oid4vp/requests', { json: { dcqlQuery: QUERY, clientId: { prefix: 'redirect_uri' }, ...json } })
    expect(res.status).toBe(200)
    return res.body.id
  }
  /** Records a wallet's answer as the response endpoint does (and, same-device, its response code). */
  async function answer(id: string, code?: string) {
    const recordId = h.service.oneTime.keyed('oid4vp-request', '', id)
    await h.storage
      .collection<{ id: string }>('oid4vp_requests')
      .update(recordId, { status: 'fulfilled', outcome: FULFILLED, answeredAt: clock, updatedAt: clock } as never)
    if (code) await h.service.oneTime.issue('tenant-a', 'oid4vp-response-code', code, { ttlMs: 60_000, data: { request: recordId } })
  }

  it('pending, then the outcome; another tenant’s request is not found', async () => {
    const id = await request()
    const pending = await h.request('GET', `/oid4vp/requests/${id}`)
    expect(pending.status).toBe(200)
    expect(pending.body).toEqual({
      id,
      status: 'pending',
      createdAt: new Date(clock).toISOString(),
      expiresAt: new Date(clock + 300_000).toISOString(),
    })
    expectError(await h.request('GET', `/oid4vp/requests/${id}`, { token: TENANT_B }), 422, 'NOT_FOUND')
    await answer(id)
    const done = await h.request('GET', `/oid4vp/requests/${id}`)
    expect(done.body).toMatchObject({
      id,
      status: 'fulfilled',
      answeredAt: new Date(clock).toISOString(),
      credentials: FULFILLED.credentials,
    })
    const other = await h.request('GET', `/oid4vp/requests/${id}`, { token: TENANT_B })
    expectError(other, 422, 'NOT_FOUND')
    expect(other.body.errorMessage).toBe((await h.request('GET', `/oid4vp/requests/${'B'.repeat(43)}`)).body.errorMessage)
  })

  it('same-device: the outcome only with the response_code, once; a pending request without it', async () => {
    const id = await request({ redirectUri: 'https://rp.example/done' })
    expect((await h.request('GET', `/oid4vp/requests/${id}`)).body.status).toBe('pending')
    const other = await request({ redirectUri: 'https://rp.example/done' })
    await answer(other, 'code-of-other')
    await answer(id, 'code-1')
    expectError(await h.request('GET', `/oid4vp/requests/${id}`), 403, 'FORBIDDEN')
    expectError(await h.request('GET', `/oid4vp/requests/${id}?response_code=wrong`), 403, 'FORBIDDEN')
    // Another request's code does not open this one, and is not spent by trying.
    expectError(await h.request('GET', `/oid4vp/requests/${id}?response_code=code-of-other`), 403, 'FORBIDDEN')
    expectError(await h.request('GET', `/oid4vp/requests/${id}?response_code=code-1`, { token: TENANT_B }), 422, 'NOT_FOUND')
    const read = await h.request('GET', `/oid4vp/requests/${id}?response_code=code-1`)
    expect(read.status).toBe(200)
    expect(read.body.status).toBe('fulfilled')
    expectError(await h.request('GET', `/oid4vp/requests/${id}?response_code=code-1`), 403, 'FORBIDDEN')
    expect((await h.request('GET', `/oid4vp/requests/${other}?response_code=code-of-other`)).status).toBe(200)
    // The reads the codes allowed and every refusal of one are in the tenant's audit trail (never a code).
    const audit = await h.request('GET', '/audit?action=presentationResult.read')
    const records = audit.body.records as Array<{ outcome: string; target: { id: string } }>
    expect(
      records
        .filter((r) => r.outcome === 'ok')
        .map((r) => r.target.id)
        .sort(),
    ).toEqual([id, other].sort())
    expect(records.filter((r) => r.outcome === 'refused')).toHaveLength(4)
    expect(JSON.stringify(audit.body)).not.toMatch(/code-1|code-of-other/)
  })

  it('past deleteAt: not found, then swept', async () => {
    const id = await request()
    const recordId = h.service.oneTime.keyed('oid4vp-request', '', id)
    clock += 601_000
    try {
      expectError(await h.request('GET', `/oid4vp/requests/${id}`), 422, 'NOT_FOUND')
      expect(await sweepPresentationRequests(h, clock)).toBeGreaterThanOrEqual(1)
      expect(await h.storage.collection('oid4vp_requests').get(recordId)).toBeUndefined()
    } finally {
      clock -= 601_000
    }
  })
})
