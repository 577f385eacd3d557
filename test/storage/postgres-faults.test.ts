/**
 * The PostgreSQL adapter under connection faults, on a real server (test/helpers/postgres.ts):
 * a connection terminated while a transaction holds it idle fails that transaction only (the
 * process lives; it runs again, as PostgreSQL rolled it back), one lost during its COMMIT is
 * not run again (the outcome is unknown); a refused connection is `StorageUnavailableError`.
 * The retry lane's lock takes no snapshot, and holds no session state: through PgBouncer in
 * transaction mode (Debian's 1.18, prepared statements off) retried transactions all commit.
 */
import { randomBytes } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import { toIdentityError } from '../../src/errors.js'
import { createPostgresStorage, type PostgresStorage } from '../../src/storage/postgres/index.js'
import { StorageUnavailableError } from '../../src/storage/port.js'
import { hasPgBouncer, startPgBouncer } from '../helpers/pgbouncer.js'
import { freeLoopbackPort } from '../helpers/ports.js'
import { startTestPostgres } from '../helpers/postgres.js'

const server = await startTestPostgres('postgres faults')
afterAll(() => server.stop())

const ITEMS = { name: 'items', fields: ['n'], indexes: [] }
type Item = { id: string; n: number }

/** Runs `sql` on a connection of its own. */
async function admin<R extends pg.QueryResultRow>(sql: string, params: unknown[] = [], url = server.url): Promise<R[]> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query<R>(sql, params)).rows
  } finally {
    await client.end()
  }
}

/** A storage in a fresh schema whose connections are named `application`, so a test can find them in pg_stat_activity. */
async function namedStorage(options: { transactionAttempts?: number } = {}) {
  const application = `dv_${randomBytes(4).toString('hex')}`
  const schema = `${server.schema}_${application}`
  const url = new URL(server.url)
  url.searchParams.set('application_name', application)
  const storage = await createPostgresStorage({ connectionString: url.toString(), schema, ...options })
  await storage.init([ITEMS])
  return { storage, schema, application }
}

const terminateIdleInTransaction = (application: string) =>
  admin<{ done: boolean }>(
    "SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity WHERE application_name = $1 AND state = 'idle in transaction'",
    [application],
  )

describe('a lost connection fails only the work that held it', () => {
  it('terminated while its transaction waits between statements: the process lives, the transaction runs again and commits once', async () => {
    const { storage, application } = await namedStorage()
    try {
      let attempts = 0
      await storage.transaction(async (tx) => {
        attempts++
        const items = tx.collection<Item>('items')
        await items.get('a')
        if (attempts === 1) {
          expect(await terminateIdleInTransaction(application)).toEqual([{ done: true }])
          // The FATAL reaches the idle connection as an 'error' event of its client (without a listener: the end of the process).
          await sleep(300)
        }
        await items.insert({ id: 'a', n: attempts })
      })
      expect(attempts).toBe(2)
      expect(await storage.collection<Item>('items').get('a')).toEqual({ id: 'a', n: 2 })
      // The pool recovered: a broken connection was not handed out again.
      await storage.collection<Item>('items').insert({ id: 'b', n: 0 })
    } finally {
      await storage.close()
    }
  })

  it('lost while its COMMIT is in flight: not run again, StorageUnavailableError with the outcome unknown (a 503 saying so)', async () => {
    const { storage, schema } = await namedStorage()
    try {
      // A deferred trigger runs inside COMMIT: the backend ends itself there, before the commit is recorded.
      await admin(
        `CREATE FUNCTION "${schema}".die_in_commit() RETURNS trigger LANGUAGE plpgsql AS $$
           BEGIN IF NEW.id = 'doomed' THEN PERFORM pg_terminate_backend(pg_backend_pid()); PERFORM pg_sleep(5); END IF; RETURN NULL; END $$;
         CREATE CONSTRAINT TRIGGER die_in_commit AFTER INSERT ON "${schema}".items DEFERRABLE INITIALLY DEFERRED
           FOR EACH ROW EXECUTE FUNCTION "${schema}".die_in_commit()`,
      )
      let attempts = 0
      const failure = await storage
        .transaction(async (tx) => {
          attempts++
          await tx.collection<Item>('items').insert({ id: 'doomed', n: 1 })
        })
        .then(
          () => new Error('committed'),
          (err: unknown) => err,
        )
      expect(attempts).toBe(1)
      expect(failure).toBeInstanceOf(StorageUnavailableError)
      expect((failure as StorageUnavailableError).outcomeUnknown).toBe(true)
      expect(toIdentityError(failure, 'Create Item').toJSON()).toEqual({
        statusCode: 503,
        errorType: 'SERVICE_UNAVAILABLE',
        errorMessage: expect.stringMatching(/^Create Item failed: .*lost while committing.*unknown/),
      })
      await storage.collection<Item>('items').insert({ id: 'after', n: 2 })
      expect(await storage.collection<Item>('items').get('after')).toEqual({ id: 'after', n: 2 })
    } finally {
      await storage.close()
    }
  })

  it('a server that refuses connections is StorageUnavailableError naming host and port; a database that does not exist is not', async () => {
    const port = await freeLoopbackPort()
    const refused = await createPostgresStorage({ connectionString: `postgres://u:secret-pw@127.0.0.1:${port}/db` }).catch((e: Error) => e)
    expect(refused).toBeInstanceOf(StorageUnavailableError)
    expect((refused as Error).message).toMatch(new RegExp(`127\\.0\\.0\\.1:${port}, database "db": ECONNREFUSED`))
    expect((refused as Error).message).not.toContain('secret-pw')
    const missing = await createPostgresStorage({ connectionString: `${server.url.replace(/\/postgres$/, '')}/no_such_db` }).catch(
      (e: Error) => e,
    )
    expect(missing).toBeInstanceOf(Error)
    expect(missing).not.toBeInstanceOf(StorageUnavailableError)
    expect((missing as Error).message).toMatch(/3D000/)
  })
})

describe('the retry lane', () => {
  it('its LOCK TABLE takes no snapshot: a retried transaction sees what the previous lane holder committed (a lock taken by a SELECT would not)', async () => {
    const { storage, schema } = await namedStorage()
    const holder = new pg.Client({ connectionString: server.url })
    await holder.connect()
    try {
      await storage.collection<Item>('items').insert({ id: 'head', n: 0 })
      const bump = (n: number) =>
        holder.query(`UPDATE "${schema}".items SET data = jsonb_set(data, '{n}', $1::jsonb) WHERE id = 'head'`, [n])
      const waitingForLane = async () => {
        for (;;) {
          const [{ waiting }] = await admin<{ waiting: number }>(
            `SELECT count(*)::int AS waiting FROM pg_locks WHERE relation = '"${schema}"._didvault_retry_lane'::regclass AND NOT granted`,
          )
          if (waiting > 0) return
          await sleep(20)
        }
      }

      // Another process's retried transaction holds the lane and will commit n = 1.
      await holder.query(`BEGIN ISOLATION LEVEL SERIALIZABLE; LOCK TABLE "${schema}"._didvault_retry_lane IN EXCLUSIVE MODE`)
      let attempts = 0
      const seen = storage.transaction(async (tx) => {
        // The first attempt fails as a serialization failure would: the second runs in the lane.
        if (++attempts === 1) throw Object.assign(new Error('could not serialize access'), { code: '40001' })
        return (await tx.collection<Item>('items').get('head'))!.n
      })
      await waitingForLane()
      await bump(1)
      await holder.query('COMMIT')
      expect(await seen).toBe(1)

      // The same with a transaction-scoped advisory lock taken by a SELECT: the snapshot predates the holder's commit.
      const other = new pg.Client({ connectionString: server.url })
      await other.connect()
      try {
        await holder.query('BEGIN ISOLATION LEVEL SERIALIZABLE; SELECT pg_advisory_xact_lock(42)')
        const selecting = other
          .query(
            `BEGIN ISOLATION LEVEL SERIALIZABLE; SELECT pg_advisory_xact_lock(42); SELECT data FROM "${schema}".items WHERE id = 'head'`,
          )
          .then((results) => ((results as unknown as pg.QueryResult[])[2].rows[0] as { data: Item }).data.n)
        await sleep(300)
        await bump(2)
        await holder.query('COMMIT')
        expect(await selecting).toBe(1)
        await other.query('ROLLBACK')
      } finally {
        await other.end()
      }
    } finally {
      await holder.end()
      await storage.close()
    }
  })
})

describe.skipIf(!hasPgBouncer)('through PgBouncer 1.18 in transaction mode, prepared statements off', () => {
  it('bursts of read-then-write transactions on one row from two adapters all commit, none hangs; no session keeps a lock', async () => {
    const bouncer = await startPgBouncer(server.url, { poolSize: 3 })
    const schema = `${server.schema}_bouncer`
    const storages: PostgresStorage[] = []
    try {
      for (let i = 0; i < 2; i++) {
        const storage = await createPostgresStorage({ connectionString: bouncer.url, schema, preparedStatements: false, poolSize: 6 })
        storages.push(storage)
        await storage.init([ITEMS])
      }
      await storages[0].collection<Item>('items').insert({ id: 'head', n: 0 })
      let retried = 0
      const bump = (storage: PostgresStorage) => {
        let attempt = 0
        return storage.transaction(async (tx) => {
          if (++attempt === 2) retried++
          const items = tx.collection<Item>('items')
          const head = (await items.get('head'))!
          await items.update('head', { n: head.n + 1 })
        })
      }
      // A session lock taken by one transaction and freed by another lands on different server connections: it leaks,
      // and the next burst's retries wait for it forever.
      for (let burst = 1; burst <= 3; burst++) {
        let timer: NodeJS.Timeout | undefined
        const hung = new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`burst ${burst}: transactions still running after 20 s`)), 20_000)
        })
        const all = Promise.all(Array.from({ length: 30 }, (_, i) => bump(storages[i % 2])))
        await Promise.race([all, hung]).finally(() => clearTimeout(timer))
        expect((await storages[1].collection<Item>('items').get('head'))!.n).toBe(30 * burst)
        const held = await admin(
          "SELECT l.locktype, l.pid FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE a.state = 'idle' AND l.locktype <> 'virtualxid'",
        )
        expect(held, `burst ${burst}: locks held by idle server sessions`).toEqual([])
      }
      expect(retried).toBeGreaterThan(0)
    } finally {
      await Promise.all(storages.map((storage) => storage.close()))
      await bouncer.stop()
    }
  }, 90_000)
})
