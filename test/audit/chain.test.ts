/**
 * The chain itself: gap-free and verifiable under 50 concurrent acts (SQLite and PostgreSQL); a
 * failed transaction leaves no record; `audit: false` records nothing; tampering with the SQLite
 * file (a field edited, a record deleted, the tail cut) is reported at the right seq by
 * `verifyChains` and by `didvault audit verify` (exit 1).
 */
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectError, snapshot, startHarness, TENANT_A, type Harness } from '../helpers/harness.js'
import { verifyChain, verifyChains } from '../../src/audit/verify-chain.js'
import { audit } from '../../src/cli/audit.js'
import { collectionOf } from '../../src/storage/declaration.js'
import { AUDIT_APPENDS, AUDIT_HEADS, AUDIT_RECORDS } from '../../src/audit/records.js'

const asA = (h: Harness) => h.service.as({ authorization: `Bearer ${TENANT_A}` })
/** tenant-a's records: chained, and committed but not chained yet. */
const count = async (h: Harness) => {
  const where = { field: 'tenantId', op: 'eq', value: 'tenant-a' } as const
  return (await collectionOf(h.storage, AUDIT_RECORDS).count(where)) + (await collectionOf(h.storage, AUDIT_APPENDS).count(where))
}

describe.each(['sqlite', 'postgres'] as const)('50 concurrent acts on %s', (storage) => {
  let h: Harness
  beforeAll(async () => {
    h = await startHarness({ storage })
  }, 120_000)
  afterAll(() => h?.close())

  it('give seq 1..50 without a gap, and the chain verifies', async () => {
    const created = await Promise.all(Array.from({ length: 50 }, () => asA(h).generateWallet({})))
    await h.service.chainAuditRecords()
    const page = await collectionOf(h.storage, AUDIT_RECORDS).find(
      { field: 'tenantId', op: 'eq', value: 'tenant-a' },
      { orderBy: { field: 'seq' } },
    )
    expect(page.items.map((r) => r.seq)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1))
    expect(new Set(page.items.map((r) => r.targetId))).toEqual(new Set(created.map((c) => c.wallet.did)))
    expect(await verifyChain(h.storage, 'tenant-a')).toEqual({ tenant: 'tenant-a', records: 50 })
    expect(await collectionOf(h.storage, AUDIT_HEADS).get('tenant-a')).toMatchObject({ seq: 50 })
  })
})

describe('a failed act leaves no audit record', () => {
  let h: Harness
  beforeAll(async () => {
    h = await startHarness({ storage: 'sqlite' })
  })
  afterAll(() => h?.close())

  it('a unique-constraint failure (an alias taken) rolls the record back with the act', async () => {
    expect((await h.request('POST', '/wallet', { json: { wallet: { alias: 'taken' } } })).status).toBe(200)
    const before = await count(h)
    const all = await snapshot(h)
    expectError(await h.request('POST', '/wallet', { json: { wallet: { alias: 'taken' } } }), 422, 'CONFLICT')
    expect(await count(h)).toBe(before)
    expect(await snapshot(h)).toEqual(all)
  })

  it('a batch failing on its second item (claim DIDs with one alias) writes neither wallets nor records', async () => {
    const { did } = (await h.request('POST', '/wallet', { json: {} })).body.wallet
    const jwt = (await h.request('POST', '/did-auth-jwt', { json: { iss: did } })).body.jwt
    const before = await count(h)
    const all = await snapshot(h)
    const res = await h.request('POST', '/claims/sign', {
      json: {
        iss: did,
        claims: [
          { alias: 'twice', payload: {} },
          { alias: 'twice', payload: {} },
        ],
      },
      didAuth: jwt,
    })
    expect(res.status).toBe(422)
    expect(await count(h)).toBe(before)
    expect(await snapshot(h)).toEqual(all)
    await verifyChains(h.storage).then((reports) => expect(reports.every((r) => r.break === undefined)).toBe(true))
  })

  it('a request refused before its act (422) is not recorded', async () => {
    const before = await count(h)
    expectError(await h.request('DELETE', '/vaults', { json: { _id: 'no-such-vault' }, didAuth: 'x' }), 403, 'UNAUTHENTICATED')
    expectError(await h.request('POST', '/vaults', { json: { name: 'bad', hierarchy: 'X' } }), 422, 'VALIDATION_ERROR')
    expect(await count(h)).toBe(before)
  })
})

describe('audit: false', () => {
  it('records nothing (for benches measuring the trail’s cost)', async () => {
    const h = await startHarness({ storage: 'sqlite', service: { audit: false } })
    try {
      expect((await h.request('POST', '/wallet', { json: {} })).status).toBe(200)
      expect((await h.request('POST', '/vaults', { json: { name: 'v' } })).status).toBe(200)
      expect(await count(h)).toBe(0)
      expect((await h.request('GET', '/audit')).body).toEqual({ records: [] })
    } finally {
      await h.close()
    }
  })
})

describe('tampering with the SQLite file is reported at the right seq', () => {
  let h: Harness
  const lines: string[] = []
  const verifyCli = (...args: string[]) => {
    lines.length = 0
    return audit(['verify', '--storage', `sqlite:${h.dbPath}`, ...args], {}, (line) => lines.push(line))
  }
  beforeAll(async () => {
    h = await startHarness({ storage: 'sqlite' })
    for (let i = 0; i < 5; i++) await asA(h).generateWallet({})
    await h.service.as({ authorization: 'Bearer token-tenant-b-0123456789' }).generateWallet({})
    await h.service.chainAuditRecords()
  })
  afterAll(() => h?.close())

  /** Runs SQL on the database file through a connection of its own, as someone with the file would. */
  const sql = (statement: string) => {
    const db = new Database(h.dbPath)
    try {
      db.prepare(statement).run()
    } finally {
      db.close()
    }
  }

  it('intact: every chain verifies; the CLI prints the counts and exits 0', async () => {
    expect(await verifyChains(h.storage)).toEqual([
      { tenant: 'tenant-a', records: 5 },
      { tenant: 'tenant-b', records: 1 },
    ])
    expect(await verifyCli()).toBe(0)
    expect(lines).toEqual(['tenant-a: 5 records, chain intact', 'tenant-b: 1 records, chain intact'])
    expect(await verifyCli('--tenant', 'tenant-b')).toBe(0)
  })

  it('a field edited in the file: broken at that record', async () => {
    sql(`UPDATE "auditRecords" SET data = json_set(data, '$.action', 'wallet.delete') WHERE id = 'tenant-a:3'`)
    const wallet = (await collectionOf(h.storage, AUDIT_RECORDS).get('tenant-a:3'))!.targetId
    expect(await verifyChain(h.storage, 'tenant-a')).toEqual({
      tenant: 'tenant-a',
      records: 2,
      break: {
        tenant: 'tenant-a',
        seq: 3,
        problem: 'hash does not match the record (it was changed)',
        act: { action: 'wallet.delete', targetType: 'wallet', targetId: wallet },
      },
    })
    expect(await verifyCli()).toBe(1)
    expect(lines).toEqual([
      `audit chain of "tenant-a" is broken at seq 3 (wallet.delete on wallet ${wallet}): hash does not match the record (it was changed)`,
    ])
    // Another tenant's chain is untouched.
    expect(await verifyCli('--tenant', 'tenant-b')).toBe(0)
    sql(`UPDATE "auditRecords" SET data = json_set(data, '$.action', 'wallet.create') WHERE id = 'tenant-a:3'`)
    expect(await verifyChain(h.storage, 'tenant-a')).toEqual({ tenant: 'tenant-a', records: 5 })
  })

  it('a record rewritten with a recomputed hash: broken at the next one (its prevHash)', async () => {
    const records = collectionOf(h.storage, AUDIT_RECORDS)
    const { hashOf } = await import('../../src/audit/hash.js')
    const original = (await records.get('tenant-a:2'))!
    const forged = { ...original, targetId: 'did:ethr:dev:0x0000000000000000000000000000000000000001' }
    forged.hash = hashOf(forged)
    await records.update('tenant-a:2', { targetId: forged.targetId, hash: forged.hash })
    const next = (await records.get('tenant-a:3'))!
    expect((await verifyChain(h.storage, 'tenant-a')).break).toEqual({
      tenant: 'tenant-a',
      seq: 3,
      problem: 'prevHash is not the hash of the record before',
      act: { action: next.action, targetType: next.targetType, targetId: next.targetId },
    })
    await records.update('tenant-a:2', { targetId: original.targetId, hash: original.hash })
  })

  it('a record deleted from the file: reported as missing at its seq', async () => {
    sql(`DELETE FROM "auditRecords" WHERE id = 'tenant-a:4'`)
    expect((await verifyChain(h.storage, 'tenant-a')).break).toEqual({
      tenant: 'tenant-a',
      seq: 4,
      problem: 'record 4 is missing (next is 5)',
    })
    expect(await verifyCli()).toBe(1)
    expect(lines).toEqual(['audit chain of "tenant-a" is broken at seq 4: record 4 is missing (next is 5)'])
  })

  it('the last record deleted: the head names a record the chain lacks', async () => {
    sql(`DELETE FROM "auditRecords" WHERE id = 'tenant-b:1'`)
    expect(await verifyChain(h.storage, 'tenant-b')).toEqual({
      tenant: 'tenant-b',
      records: 0,
      break: { tenant: 'tenant-b', seq: 1, problem: 'the head names record 1, the chain ends at 0' },
    })
    expect(await verifyCli('--tenant', 'tenant-b')).toBe(1)
  })
})

describe('the system chain is no tenant’s', () => {
  it('a tenants resolver naming @system is refused (500, reported), and nothing is written for it', async () => {
    const errors: unknown[] = []
    const { staticTenants } = await import('../../src/index.js')
    const h = await startHarness({
      storage: 'memory',
      service: { tenants: staticTenants({ 'token-of-the-system-0123': '@system' }), onError: (_op, err) => errors.push(err) },
    })
    try {
      await expect(h.service.as({ authorization: 'token-of-the-system-0123' }).generateWallet({})).rejects.toMatchObject({
        errorType: 'INTERNAL_ERROR',
      })
      expect(String(errors[0])).toContain('reserved tenant id @system')
      expect(await collectionOf(h.storage, AUDIT_RECORDS).count({ and: [] })).toBe(0)
      expect(await collectionOf(h.storage, AUDIT_APPENDS).count({ and: [] })).toBe(0)
      expect(await h.storage.collection('wallets').count({ and: [] })).toBe(0)
    } finally {
      await h.close()
    }
  })
})
