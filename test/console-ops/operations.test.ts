/**
 * The console's operations through the router and through `didvault/client`, on SQLite files and PostgreSQL: Get
 * Overview, List Status Lists, Verify the Audit Chain and Fetch's `format` and `status` filters. Each answers only the
 * caller's tenant; every bad input is the error body with nothing written (not even an audit record: reading is not
 * audited).
 */
import { generateKeyPairSync } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createClient, type DidvaultClient } from '../../src/client/index.js'
import { IdentityError } from '../../src/index.js'
import { AUDIT_APPENDS, AUDIT_RECORDS } from '../../src/audit/records.js'
import {
  TENANT_A,
  TENANT_B,
  expectError,
  snapshot,
  startHarness,
  walletWithToken,
  type Harness,
  type HarnessStorage,
} from '../helpers/harness.js'

const PUBLIC_URL = 'https://status.example.com/identity'
const STORAGES: Array<[string, HarnessStorage, string]> = [
  ['SQLite (a real file)', 'sqlite', 'sqlite'],
  ['PostgreSQL (a real server)', 'postgres', 'postgres'],
]

describe.each(STORAGES)('console operations (%s)', (_label, storage, adapterName) => {
  let h: Harness
  let client: DidvaultClient
  let issuer: { did: string; _id: string; jwt: string }
  /** Stored ids of: a JWT with status (to be revoked), a JWT with status (to be suspended), a JSON-LD, an SD-JWT. */
  const stored: Record<'revoked' | 'suspended' | 'jsonld' | 'sdjwt', string> = { revoked: '', suspended: '', jsonld: '', sdjwt: '' }
  let revokedJwt = ''

  /**
   * Audit records and appends of both tenants: reads must add none. Counted in one transaction (one snapshot): the audit
   * trail folds appends into records in the background, and two counts apart could see one act twice or not at all.
   */
  const auditCount = () =>
    h.storage.transaction(
      async (tx) => (await tx.collection(AUDIT_RECORDS.name).count()) + (await tx.collection(AUDIT_APPENDS.name).count()),
    )
  /** Expects `res` to be the error body and nothing written, audit trail included. */
  const refusedWithNothingWritten = async (run: () => Promise<{ status: number; body: unknown }>, status: number, errorType: string) => {
    const before = { records: await snapshot(h), audit: await auditCount() }
    const res = await run()
    expectError(res, status, errorType)
    expect({ records: await snapshot(h), audit: await auditCount() }).toEqual(before)
    return res as { status: number; body: { errorMessage: string } }
  }

  beforeAll(async () => {
    h = await startHarness({ storage, service: { publicUrl: PUBLIC_URL } })
    client = createClient({ baseUrl: h.url, apiKey: TENANT_A })
    issuer = await walletWithToken(h)
    const sign = async (json: Record<string, unknown>) => {
      const res = await h.request('POST', '/claims/sign', { json: { iss: issuer.did, ...json }, didAuth: issuer.jwt })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      return res.body.vcs[0]
    }
    const store = async (claim: Record<string, unknown>) => {
      const res = await h.request('POST', '/claims', { json: { claims: [claim] }, didAuth: issuer.jwt })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      return res.body.vcs[0]._id as string
    }
    const revocable = await sign({ format: 'JWT', status: { purposes: ['revocation'] }, claims: [{ payload: { n: 1 } }] })
    revokedJwt = revocable.jwt
    stored.revoked = await store({ jwt: revocable.jwt })
    const suspendable = await sign({ format: 'JWT', status: { purposes: ['suspension'] }, claims: [{ payload: { n: 2 } }] })
    stored.suspended = await store({ jwt: suspendable.jwt })
    stored.jsonld = await store({ jsonld: (await sign({ claims: [{ payload: { n: 3 } }] })).jsonld })
    const holderJwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' })
    const sd = await sign({ format: 'SD-JWT', claims: [{ vct: 'https://example.com/member', payload: { n: 4 }, holderJwk }] })
    stored.sdjwt = await store({ sdjwt: sd.sdjwt })
    const changed = await h.request('POST', '/claims/status', {
      json: {
        items: [
          { _id: stored.revoked, purpose: 'revocation', value: true },
          { _id: stored.suspended, purpose: 'suspension', value: true },
        ],
      },
      didAuth: issuer.jwt,
    })
    expect(changed.status, JSON.stringify(changed.body)).toBe(200)
    expect(changed.body.errors).toEqual([])
  }, 180_000)
  afterAll(() => h?.close())

  describe('Get Overview', () => {
    it('counts the tenant’s records by the database, credentials by format, and names the storage', async () => {
      const res = await h.request('GET', '/overview')
      expect(res.status).toBe(200)
      expect(res.body).toEqual({
        storage: adapterName,
        counts: {
          vaults: 0,
          wallets: expect.any(Number),
          credentials: { total: 4, byFormat: { JWT: 2, 'JSON-LD': 1, 'SD-JWT': 1 } },
          statusLists: 2,
          auditRecords: expect.any(Number),
        },
      })
      // The issuer and the claim DIDs signing made.
      expect(res.body.counts.wallets).toBeGreaterThanOrEqual(1)
      // Audit records are chained shortly after their acts commit: the count may have grown meanwhile.
      const viaClient = await client.getOverview({})
      expect({ ...viaClient, counts: { ...viaClient.counts, auditRecords: 0 } }).toEqual({
        ...res.body,
        counts: { ...res.body.counts, auditRecords: 0 },
      })
      expect(viaClient.counts.auditRecords).toBeGreaterThanOrEqual(res.body.counts.auditRecords)
    })

    it('another tenant counts none of them', async () => {
      const res = await h.request('GET', '/overview', { token: TENANT_B })
      expect(res.body.counts).toEqual({ vaults: 0, wallets: 0, credentials: { total: 0, byFormat: {} }, statusLists: 0, auditRecords: 0 })
    })

    it('without a token is 403; a query member is 422; nothing written', async () => {
      await refusedWithNothingWritten(() => h.request('GET', '/overview', { token: null }), 403, 'UNAUTHENTICATED')
      const extra = await refusedWithNothingWritten(() => h.request('GET', '/overview?tenant=tenant-b'), 422, 'VALIDATION_ERROR')
      expect(extra.body.errorMessage).toMatch(/tenant/)
      await expect(client.getOverview({ tenant: 'tenant-b' })).rejects.toBeInstanceOf(IdentityError)
    })
  })

  describe('List Status Lists', () => {
    it('lists the tenant’s lists with URL, purpose, mechanism, issuer, dates and ETag; bits on request show the set bits', async () => {
      // Publish them (GET /status/:id signs a list never signed), so their signature date and ETag are stored.
      const plain = await h.request('GET', '/status-lists')
      expect(plain.status).toBe(200)
      for (const list of plain.body.lists) expect((await h.request('GET', `/status/${list.id}`, { token: null })).status).toBe(200)
      const res = await h.request('GET', '/status-lists?withBits=true')
      expect(res.status).toBe(200)
      const { lists } = res.body
      expect(lists.map((l: { purpose: string }) => l.purpose).sort()).toEqual(['revocation', 'suspension'])
      for (const list of lists) {
        expect(list).toMatchObject({
          url: `${PUBLIC_URL}/status/${list.id}`,
          format: 'JWT',
          mechanism: 'Bitstring Status List',
          size: 131_072,
          allocated: 1,
          issuer: issuer.did,
          etag: expect.stringMatching(/^"/),
          signedAt: expect.any(String),
          pending: false,
        })
        const etag = (await h.request('GET', `/status/${list.id}`, { token: null })).headers.get('etag')
        expect(list.etag).toBe(etag)
        const bits = Buffer.from(list.bits, 'base64url')
        expect(bits).toHaveLength(131_072 / 8)
        const set = [...bits.entries()].flatMap(([byte, v]) => [...Array(8).keys()].filter((b) => v & (0x80 >> b)).map((b) => byte * 8 + b))
        expect(set).toHaveLength(1)
      }
      // The revoked credential's bit is the one its entry names.
      const entry = JSON.parse(Buffer.from(revokedJwt.split('.')[1], 'base64url').toString()).vc.credentialStatus
      const revocation = lists.find((l: { purpose: string }) => l.purpose === 'revocation')
      const bits = Buffer.from(revocation.bits, 'base64url')
      const index = Number(entry.statusListIndex)
      expect(bits[index >> 3] & (0x80 >> (index & 7))).not.toBe(0)
      expect(plain.body.lists.every((l: Record<string, unknown>) => !('bits' in l))).toBe(true)
      expect(await client.listStatusLists({ withBits: true })).toEqual(res.body)
    })

    it('pages with limit and cursor', async () => {
      const first = await h.request('GET', '/status-lists?limit=1')
      expect(first.body.lists).toHaveLength(1)
      expect(first.body.nextCursor).toEqual(expect.any(String))
      const second = await client.listStatusLists({ limit: 1, cursor: first.body.nextCursor })
      expect(second.lists).toHaveLength(1)
      expect(second.lists[0].id).not.toBe(first.body.lists[0].id)
      expect(second.nextCursor).toBeUndefined()
    })

    it('another tenant lists none; without a token 403; bad withBits, limit or cursor 422; nothing written', async () => {
      expect((await h.request('GET', '/status-lists?withBits=true', { token: TENANT_B })).body).toEqual({ lists: [] })
      await refusedWithNothingWritten(() => h.request('GET', '/status-lists', { token: null }), 403, 'UNAUTHENTICATED')
      for (const query of ['withBits=yes', 'limit=0', 'limit=x', 'cursor=not-a-cursor', 'purpose=revocation']) {
        await refusedWithNothingWritten(() => h.request('GET', `/status-lists?${query}`), 422, 'VALIDATION_ERROR')
      }
    })
  })

  describe('Verify the Audit Chain', () => {
    it('reports the tenant’s chain intact, as many records as the trail holds, and is not itself audited', async () => {
      // Get Audit Records chains what is pending first: then the chain holds every act.
      const trail = await client.getAuditRecords({})
      const before = await auditCount()
      const res = await h.request('GET', '/audit/verify')
      expect(res.status).toBe(200)
      expect(res.body.ok).toBe(true)
      expect(res.body.break).toBeUndefined()
      expect(res.body.records).toBeGreaterThan(0)
      expect(res.body.records).toBe(trail.records.length)
      expect(await auditCount()).toBe(before)
    })

    it('another tenant’s chain is its own: empty, intact', async () => {
      expect((await h.request('GET', '/audit/verify', { token: TENANT_B })).body).toEqual({ ok: true, records: 0 })
    })

    it('a changed record is reported as the first broken link, with its act; the other tenant’s chain is not affected', async () => {
      const records = h.storage.collection(AUDIT_RECORDS.name)
      const { items } = await records.find(
        {
          and: [
            { field: 'tenantId', op: 'eq', value: 'tenant-a' },
            { field: 'seq', op: 'eq', value: 2 },
          ],
        },
        { limit: 1 },
      )
      const original = items[0]
      await records.update(original.id, { action: 'credential.delete' })
      try {
        const report = await client.verifyAuditChain({})
        expect(report).toMatchObject({ ok: false, records: 1, break: { seq: 2, problem: expect.stringMatching(/hash/) } })
        expect(report.break?.act?.action).toBe('credential.delete')
        expect((await h.request('GET', '/audit/verify', { token: TENANT_B })).body.ok).toBe(true)
      } finally {
        await records.update(original.id, { action: original.action })
      }
      expect((await client.verifyAuditChain({})).ok).toBe(true)
    })

    it('without a token 403; a query member 422; nothing written', async () => {
      await refusedWithNothingWritten(() => h.request('GET', '/audit/verify', { token: null }), 403, 'UNAUTHENTICATED')
      await refusedWithNothingWritten(() => h.request('GET', '/audit/verify?tenant=tenant-b'), 422, 'VALIDATION_ERROR')
    })
  })

  describe('Fetch by format and status', () => {
    const fetchIds = async (query: string, token = TENANT_A) => {
      const res = await h.request('GET', `/claims?${query}`, { didAuth: issuer.jwt, token })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      return res.body.vcs.map((vc: { _id: string }) => vc._id).sort()
    }

    it('filters by format (any letter case), as Fetch reports it', async () => {
      expect(await fetchIds('format=JWT')).toEqual([stored.revoked, stored.suspended].sort())
      expect(await fetchIds('format=json-ld')).toEqual([stored.jsonld])
      expect(await fetchIds('format=SD-JWT')).toEqual([stored.sdjwt])
      expect(await fetchIds('format=VC-JOSE')).toEqual([])
      const page = await client.as({ authorization: `Bearer ${TENANT_A}`, didAuth: issuer.jwt }).getClaims({ format: 'SD-JWT' })
      expect(page.vcs.map((vc) => vc._id)).toEqual([stored.sdjwt])
    })

    it('filters by status: revoked, suspended, active; a lifted suspension is active again', async () => {
      expect(await fetchIds('status=revoked')).toEqual([stored.revoked])
      expect(await fetchIds('status=suspended')).toEqual([stored.suspended])
      expect(await fetchIds('status=active')).toEqual([stored.jsonld, stored.sdjwt].sort())
      expect(await fetchIds('status=revoked&format=JWT')).toEqual([stored.revoked])
      expect(await fetchIds('status=revoked&format=JSON-LD')).toEqual([])
      const lifted = await h.request('POST', '/claims/status', {
        json: { items: [{ _id: stored.suspended, purpose: 'suspension', value: false }] },
        didAuth: issuer.jwt,
      })
      expect(lifted.status).toBe(200)
      expect(await fetchIds('status=suspended')).toEqual([])
      expect(await fetchIds('status=active')).toEqual([stored.jsonld, stored.sdjwt, stored.suspended].sort())
      const again = await h.request('POST', '/claims/status', {
        json: { items: [{ _id: stored.suspended, purpose: 'suspension', value: true }] },
        didAuth: issuer.jwt,
      })
      expect(again.status).toBe(200)
      expect(await fetchIds('status=suspended')).toEqual([stored.suspended])
    })

    it('a credential stored after it was revoked is stored as revoked', async () => {
      const copy = await h.request('POST', '/claims', { json: { claims: [{ jwt: revokedJwt }] }, didAuth: issuer.jwt })
      expect(copy.status).toBe(200)
      // The same content and storer: the same record.
      expect(copy.body.vcs[0]._id).toBe(stored.revoked)
      const other = await walletWithToken(h)
      const theirs = await h.request('POST', '/claims', { json: { claims: [{ jwt: revokedJwt }] }, didAuth: other.jwt })
      expect(theirs.status).toBe(200)
      const res = await h.request('GET', '/claims?status=revoked', { didAuth: other.jwt })
      expect(res.body.vcs.map((vc: { _id: string }) => vc._id)).toEqual([theirs.body.vcs[0]._id])
    })

    it('pages a filtered list with limit and cursor', async () => {
      const first = await h.request('GET', '/claims?status=active&limit=1', { didAuth: issuer.jwt })
      expect(first.body.vcs).toHaveLength(1)
      const rest = await h.request('GET', `/claims?status=active&limit=5&cursor=${encodeURIComponent(first.body.nextCursor)}`, {
        didAuth: issuer.jwt,
      })
      expect(rest.body.nextCursor).toBeUndefined()
      const paged = [...first.body.vcs, ...rest.body.vcs].map((vc: { _id: string }) => vc._id).sort()
      expect(paged).toEqual([stored.jsonld, stored.sdjwt].sort())
      expect(await fetchIds('status=active')).toEqual(paged)
    })

    it('another tenant finds none of them', async () => {
      const b = await walletWithToken(h, TENANT_B)
      const res = await h.request('GET', '/claims?status=revoked', { didAuth: b.jwt, token: TENANT_B })
      expect(res.status).toBe(200)
      expect(res.body.vcs).toEqual([])
    })

    it('a wrong format or status is 422 naming it; nothing written', async () => {
      for (const [query, named] of [
        ['format=PDF', /format/],
        ['status=expired', /status/],
        ['status=REVOKED', /status/],
        ['format=', /format/],
      ] as const) {
        const res = await refusedWithNothingWritten(
          () => h.request('GET', `/claims?${query}`, { didAuth: issuer.jwt }),
          422,
          'VALIDATION_ERROR',
        )
        expect(res.body.errorMessage).toMatch(named)
      }
    })
  })
})
