/**
 * Get Overview's counts on 10,000 stored credentials of one tenant (and 1,000 of another), on an SQLite file and on
 * PostgreSQL: each count is the database's (`SELECT count(*)` on an index whose first field is `tenantId`, as EXPLAIN
 * shows after ANALYZE has given the planner the table's statistics), the numbers exact per tenant, credentials of
 * earlier releases (no `format`) counted by the format they hold. The time of one overview is printed (not asserted).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { IdentityService, randomMasterKey, staticTenants } from '../../src/index.js'
import { CREDENTIALS, type CredentialRecord } from '../../src/credentials/records.js'
import { createSqliteStorage } from '../../src/storage/sqlite/index.js'
import type { StorageAdapter } from '../../src/storage/port.js'
import { SERVICE_QUERIES } from '../../src/testing/index.js'
import { startTestPostgres } from '../helpers/postgres.js'

const A = 'key-tenant-a-0123456789'
const B = 'key-tenant-b-0123456789'
const MANY = 10_000

/** `n` stored credentials of `tenantId`: JWT and JSON-LD alternating, the last `legacy` as earlier releases wrote them. */
function credentials(tenantId: string, n: number, legacy = 0): CredentialRecord[] {
  return Array.from({ length: n }, (_, i): CredentialRecord => {
    const common = {
      id: `${tenantId}-${i}`,
      tenantId,
      types: ['VerifiableCredential'],
      storedBy: ['did:example:storer'],
      isPublicAccess: false,
      roles: [],
      hash: `h-${tenantId}-${i}`,
      storerKey: 'k',
      createdAt: 1_700_000_000_000 + i,
    }
    if (i >= n - legacy) return { ...common, jwt: 'eyJhbGciOiJub25lIn0.e30.' }
    return i % 2 === 0 ? { ...common, format: 'JWT', encoded: 'eyJhbGciOiJub25lIn0.e30.' } : { ...common, format: 'JSON-LD', encoded: {} }
  })
}

interface Backend {
  storage: StorageAdapter
  analyze(): Promise<void>
  stop(): Promise<void>
}

const BACKENDS: Record<string, () => Promise<Backend>> = {
  'SQLite (a real file)': async () => {
    const dir = mkdtempSync(join(tmpdir(), 'didvault-counts-'))
    const storage = createSqliteStorage({ path: join(dir, 'db') })
    return {
      storage,
      analyze: async () => {
        const db = new (await import('better-sqlite3')).default(join(dir, 'db'))
        db.exec('ANALYZE')
        db.close()
      },
      stop: async () => rmSync(dir, { recursive: true, force: true }),
    }
  },
  'PostgreSQL (a real server)': async () => {
    const server = await startTestPostgres('console-ops counts')
    const { createPostgresStorage } = await import('../../src/storage/postgres/index.js')
    const storage = await createPostgresStorage({ connectionString: server.url, schema: server.schema })
    const pg = await import('pg')
    return {
      storage,
      analyze: async () => {
        const client = new pg.default.Client({ connectionString: server.url })
        await client.connect()
        await client.query(`ANALYZE "${server.schema}".credentials`)
        await client.end()
      },
      stop: () => server.stop(),
    }
  },
}

describe.each(Object.keys(BACKENDS))('Get Overview on 10,000 credentials (%s)', (name) => {
  let backend: Backend
  let service: IdentityService
  beforeAll(async () => {
    backend = await BACKENDS[name]()
    service = await IdentityService.create({
      storage: backend.storage,
      masterKey: randomMasterKey(),
      tenants: staticTenants({ [A]: 'tenant-a', [B]: 'tenant-b' }),
    })
    const records = backend.storage.collection<CredentialRecord>(CREDENTIALS.name)
    const all = [...credentials('tenant-a', MANY, 10), ...credentials('tenant-b', 1_000)]
    for (let i = 0; i < all.length; i += 1_000) await records.insertMany(all.slice(i, i + 1_000))
    await backend.analyze()
  }, 180_000)
  afterAll(async () => {
    await service?.close()
    await backend?.stop()
  })

  it('counts each tenant’s credentials exactly, by format, earlier releases’ included', async () => {
    const started = performance.now()
    const a = await service.as({ authorization: `Bearer ${A}` }).getOverview({})
    const ms = performance.now() - started
    console.log(`[console-ops] ${name}: Get Overview of ${MANY} credentials in ${ms.toFixed(1)} ms`)
    // JWT and JSON-LD alternating, the last 10 (5 of each) JWTs of earlier releases.
    expect(a.counts.credentials).toEqual({ total: MANY, byFormat: { JWT: MANY / 2 + 5, 'JSON-LD': MANY / 2 - 5 } })
    const b = await service.as({ authorization: `Bearer ${B}` }).getOverview({})
    expect(b.counts.credentials).toEqual({ total: 1_000, byFormat: { JWT: 500, 'JSON-LD': 500 } })
  })

  it('each count is planned on an index, with the table’s statistics', async () => {
    const counts = SERVICE_QUERIES.filter((query) => query.options.count === true && query.collection === CREDENTIALS.name)
    expect(counts.length).toBeGreaterThanOrEqual(2)
    for (const query of counts) {
      const where = JSON.parse(JSON.stringify(query.where).replaceAll('"t"', '"tenant-a"'))
      const plan = await backend.storage.explain(query.collection, where, { count: true })
      console.log(`[console-ops] ${name}: ${query.title}:\n${plan.plan}`)
      expect(plan.usesIndex, plan.plan).toBe(true)
      expect(plan.plan).not.toMatch(/\bSCAN credentials\b(?! USING)|Seq Scan/)
    }
    const legacy = SERVICE_QUERIES.find((query) => query.title.startsWith('credentials of earlier releases'))!
    const plan = await backend.storage.explain(legacy.collection, legacy.where, legacy.options)
    expect(plan.usesIndex, plan.plan).toBe(true)
  })
})
