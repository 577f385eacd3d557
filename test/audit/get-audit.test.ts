/**
 * `GET /audit` through the router: the tenant's records only, filtered by action, actor (DID or
 * API key id), target and time, paged by cursor; readable with the tenant's Base Auth Token only
 * (a DID-auth token alone, or an Access Token JWT, is refused with the error body); bad queries
 * are 422; the request id the caller sends is the records'.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectError, startHarness, TENANT_B, walletWithToken, type Harness } from '../helpers/harness.js'

let h: Harness
let clock = Date.parse('2030-01-01T00:00:00Z')
let a: { did: string; jwt: string }

beforeAll(async () => {
  h = await startHarness({ storage: 'sqlite', service: { now: () => clock } })
  a = await walletWithToken(h) // seq 1: wallet.create, seq 2: token.generate (its DID-auth token) at 00:00:00
  clock += 60_000
  for (let i = 0; i < 4; i++) await h.request('POST', '/wallet', { json: {}, headers: { 'x-request-id': `req-${i}` } }) // seq 3..6
  clock += 60_000
  await h.request('POST', '/roles', { json: { permissions: ['Read'] }, didAuth: a.jwt }) // seq 7: role.create at 00:02:00
  await walletWithToken(h, TENANT_B) // tenant-b's own chain
})
afterAll(() => h?.close())

const get = (query: string, init: Parameters<Harness['request']>[2] = {}) => h.request('GET', `/audit${query}`, init)

describe('GET /audit', () => {
  it('lists the tenant’s records oldest first, with their chain links; another tenant’s never appear', async () => {
    const res = await get('')
    expect(res.status).toBe(200)
    expect(res.body.records.map((r: any) => r.seq)).toEqual([1, 2, 3, 4, 5, 6, 7])
    expect(res.body.records.every((r: any) => r.tenant === 'tenant-a')).toBe(true)
    expect(res.body.records[0].prevHash).toBe('0'.repeat(64))
    for (let i = 1; i < 7; i++) expect(res.body.records[i].prevHash).toBe(res.body.records[i - 1].hash)
    expect(res.body.nextCursor).toBeUndefined()
    const b = await get('', { token: TENANT_B })
    expect(b.body.records.map((r: any) => [r.tenant, r.seq, r.action])).toEqual([
      ['tenant-b', 1, 'wallet.create'],
      ['tenant-b', 2, 'token.generate'],
    ])
  })

  it('takes the request id from x-request-id', async () => {
    const res = await get('?action=wallet.create')
    expect(res.body.records.slice(1).map((r: any) => r.requestId)).toEqual(['req-0', 'req-1', 'req-2', 'req-3'])
    // Without one, a fresh id per request.
    expect(res.body.records[0].requestId).toMatch(/^[0-9a-f-]{36}$/)
  })

  it('filters by action, actor DID, target and time range', async () => {
    expect((await get('?action=role.create')).body.records.map((r: any) => r.seq)).toEqual([7])
    const byActor = await get(`?actor=${encodeURIComponent(a.did)}`)
    expect(byActor.body.records.map((r: any) => r.seq)).toEqual([7])
    const byTarget = await get(`?target=${encodeURIComponent(a.did)}`)
    expect(byTarget.body.records.map((r: any) => [r.seq, r.action])).toEqual([
      [1, 'wallet.create'],
      [2, 'token.generate'],
    ])
    const from = encodeURIComponent('2030-01-01T00:01:00Z')
    const to = encodeURIComponent('2030-01-01T00:01:59Z')
    expect((await get(`?from=${from}&to=${to}`)).body.records.map((r: any) => r.seq)).toEqual([3, 4, 5, 6])
    expect((await get(`?from=${encodeURIComponent('2030-01-01T00:02:00Z')}`)).body.records.map((r: any) => r.seq)).toEqual([7])
  })

  it('pages with limit and cursor', async () => {
    const first = await get('?limit=4')
    expect(first.body.records.map((r: any) => r.seq)).toEqual([1, 2, 3, 4])
    const second = await get(`?limit=4&cursor=${encodeURIComponent(first.body.nextCursor)}`)
    expect(second.body.records.map((r: any) => r.seq)).toEqual([5, 6, 7])
    expect(second.body.nextCursor).toBeUndefined()
    expectError(await get('?cursor=not-a-cursor'), 422, 'VALIDATION_ERROR')
  })

  it('refuses bad queries with 422 and the error body', async () => {
    expectError(await get('?action=vault.explode'), 422, 'VALIDATION_ERROR')
    expectError(await get('?actor=nobody'), 422, 'VALIDATION_ERROR')
    expectError(await get('?from=yesterday'), 422, 'VALIDATION_ERROR')
    expectError(
      await get(`?from=${encodeURIComponent('2030-01-02T00:00:00Z')}&to=${encodeURIComponent('2030-01-01T00:00:00Z')}`),
      422,
      'VALIDATION_ERROR',
    )
    expectError(await get('?limit=0'), 422, 'VALIDATION_ERROR')
    expectError(await get('?extra=1'), 422, 'VALIDATION_ERROR')
  })

  it('needs the tenant’s Base Auth Token: a DID-auth token alone, an Access Token JWT, or nothing is refused', async () => {
    expectError(await get('', { token: null, didAuth: a.jwt }), 403, 'UNAUTHENTICATED')
    expectError(await get('', { token: a.jwt }), 403, 'UNAUTHENTICATED')
    expectError(await get('', { token: null }), 403, 'UNAUTHENTICATED')
    expectError(await get('', { token: 'token-of-nobody-0123456789' }), 403, 'UNAUTHENTICATED')
  })
})

describe('GET /audit on a long chain', () => {
  it('a filtered page scans at most 10,000 records: fewer matches than asked, and a cursor to go on', async () => {
    const long = await startHarness({ storage: 'memory' })
    try {
      const { StoredAuditTrail } = await import('../../src/audit/trail.js')
      const trail = new StoredAuditTrail(long.storage, Date.now)
      const actor = { tenantId: 'tenant-a', dids: [] }
      const acts = Array.from({ length: 10_050 }, (_, i) => ({
        action: i === 10_020 ? ('vault.delete' as const) : ('wallet.create' as const),
        target: { type: 'wallet', id: `w${i}` },
      }))
      await long.storage.transaction((tx) => trail.append(tx, actor, acts))
      await trail.close()
      const first = await long.request('GET', '/audit?action=vault.delete&limit=5')
      expect(first.status).toBe(200)
      expect(first.body.records).toEqual([])
      expect(first.body.nextCursor).toBe('s10000')
      const second = await long.request('GET', `/audit?action=vault.delete&limit=5&cursor=${first.body.nextCursor}`)
      expect(second.body.records.map((r: any) => [r.seq, r.target.id])).toEqual([[10_021, 'w10020']])
      expect(second.body.nextCursor).toBeUndefined()
    } finally {
      await long.close()
    }
  })
})
