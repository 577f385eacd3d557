/**
 * The database goes away under a running server: `didvault serve` (the built CLI, alone and with
 * `--workers 2`) on a real PostgreSQL takes the crash harness's mixed writes while faults hit the
 * database inside open transactions — `pg_terminate_backend` of the service's connections,
 * `kill -9` of the postmaster and a restart, `pg_ctl stop -m fast` and a 35 s outage before the
 * start again. The server must live through all of it (same process, same workers but one
 * killed on purpose during the outage, whose replacement waits for the database); every answer
 * during an outage is a 503 `SERVICE_UNAVAILABLE` with `Retry-After` and its `x-request-id`
 * (never a 500, never a reset connection); `/health/ready` is 503 during the outage and 200
 * after it without help; and every check of `checks.ts` holds afterwards: nothing acknowledged
 * is lost. The cluster runs with `synchronous_commit = on`, as production does: a kill -9 of the
 * postmaster must lose no commit PostgreSQL acknowledged. And a server started while the database
 * is down waits for it. DIDVAULT_OUTAGE_MS shortens the outage for a quick run.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { COLLECTIONS } from '../../src/service/collections.js'
import { createPostgresStorage } from '../../src/storage/postgres/index.js'
import { CLI, ensureBuilt } from '../helpers/build.js'
import { startTestPostgres, type ClusterControl, type TestPostgres } from '../helpers/postgres.js'
import { http, killAll, spawnNode } from '../helpers/spawn.js'
import { CHECKS } from './checks.js'
import { crashServer, type CrashServer } from './server.js'
import { newLedger, setUpTenant, startWriters, type Ledger } from './workload.js'

/** How long the database stays down after `pg_ctl stop -m fast` (the outage). */
const OUTAGE_MS = Number(process.env.DIDVAULT_OUTAGE_MS ?? 35_000)

const external = process.env.DIDVAULT_TEST_POSTGRES_URL !== undefined
let dir: string
let postgres: TestPostgres
beforeAll(async () => {
  if (external) return
  ensureBuilt()
  dir = mkdtempSync(join(tmpdir(), 'didvault-dbfaults-'))
  postgres = await startTestPostgres('database faults', console.log, { synchronous_commit: 'on' })
}, 180_000)
afterEach(killAll)
afterAll(async () => {
  await postgres?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

async function admin<R extends pg.QueryResultRow>(sql: string): Promise<R[]> {
  const client = new pg.Client({ connectionString: postgres.url })
  await client.connect()
  try {
    return (await client.query<R>(sql)).rows
  } finally {
    await client.end()
  }
}

/** Waits until one of the service's connections is inside a transaction (so the fault lands in one). */
async function transactionOpen(): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const open = await admin(
      "SELECT 1 FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() AND xact_start IS NOT NULL",
    )
    if (open.length > 0) return
    await sleep(5)
  }
  throw new Error('no transaction of the service was seen open')
}

/** `/health/ready`, polled every 250 ms until stopped: what it answered, in order. */
function watchReadiness(url: string) {
  const seen: Array<{ status: number; reason?: string }> = []
  let stopped = false
  const done = (async () => {
    while (!stopped) {
      const res = await http(`${url}/health/ready`)
      seen.push({ status: res.status, reason: res.body?.reason })
      await sleep(250)
    }
  })()
  return {
    seen,
    async stop() {
      stopped = true
      await done
    },
  }
}

/**
 * Waits until `/health/ready` says 200 by itself (nothing but time and the database's return), ten times in a row
 * (with workers, each answers some of them).
 */
async function readyAgain(url: string, withinMs = 30_000): Promise<void> {
  const until = Date.now() + withinMs
  const answers: string[] = []
  for (let inARow = 0; inARow < 10;) {
    if (Date.now() > until) throw new Error(`not ready ${withinMs} ms after the database came back: ${answers.slice(-20).join(', ')}`)
    const res = await http(`${url}/health/ready`)
    answers.push(`${res.status} ${res.body?.reason ?? ''}`)
    inARow = res.status === 200 ? inARow + 1 : 0
    await sleep(100)
  }
}

/** Lets the writers run until `count` more writes were acknowledged; fails at once when the server died. */
async function acknowledged(server: CrashServer, ledger: Ledger, count: number): Promise<void> {
  const target = ledger.acknowledged + count
  for (let i = 0; i < 600 && ledger.acknowledged < target; i++) {
    if (!server.running()) throw new Error(`the server died:\n${server.stderr()}`)
    await sleep(100)
  }
  expect(ledger.acknowledged, 'writes acknowledged again after the fault').toBeGreaterThanOrEqual(target)
}

/**
 * The faults, in order, with the writers running: connections terminated inside transactions (three times), the
 * postmaster killed inside a transaction and started again, then stopped fast inside a transaction for the outage.
 * `duringOutage` runs once the outage began.
 */
async function injectFaults(server: CrashServer, ledger: Ledger, cluster: ClusterControl, duringOutage: () => Promise<void>) {
  for (let i = 0; i < 3; i++) {
    await transactionOpen()
    await admin("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()")
    await acknowledged(server, ledger, 3)
  }
  await transactionOpen()
  await cluster.kill()
  await sleep(1_000)
  await cluster.start()
  await readyAgain(server.url)
  await acknowledged(server, ledger, 3)

  await transactionOpen()
  cluster.stopFast()
  const outage = Date.now()
  const readiness = watchReadiness(server.url)
  await duringOutage()
  await sleep(Math.max(0, OUTAGE_MS - (Date.now() - outage)))
  const unavailable = ledger.unavailable
  await readiness.stop()
  await cluster.start()
  await readyAgain(server.url)
  await acknowledged(server, ledger, 5)
  // During the outage: readiness said 503 naming why, and the writers got 503s (each honouring Retry-After: 1).
  expect(readiness.seen.filter((r) => r.status === 503).map((r) => r.reason)).toContain('storage unreachable')
  expect(readiness.seen.every((r) => r.status === 503)).toBe(true)
  expect(unavailable).toBeGreaterThan(OUTAGE_MS / 2_000)
}

describe.skipIf(external)('PostgreSQL faults under a running didvault serve', () => {
  it.each([
    ['one process', undefined],
    ['--workers 2', 2],
  ])(
    `%s: connections terminated, the postmaster killed, a ${OUTAGE_MS / 1000} s outage — the server lives, nothing acknowledged is lost`,
    async (_name, workers) => {
      const schema = `${postgres.schema}_${workers ?? 1}`
      const server = crashServer(`${postgres.url}?schema=${schema}`, dir, workers === undefined ? {} : { workers })
      await server.start()
      const pid = server.pid()
      const ledger = newLedger()
      const tenant = await setUpTenant(server.url, ledger)
      let killedWorker: number | undefined
      let killedAt = 0
      // Requests in flight on the worker killed on purpose are cut off, as by any kill -9: only those are forgiven.
      const writers = startWriters(server.url, tenant, ledger, () => Date.now() - killedAt < 2_000)
      const started = Date.now()
      const writersFailed = writers.done.then(
        () => undefined,
        (err: Error) => `${err.message} (${(err.cause as Error | undefined)?.message}) at ${Date.now() - started} ms`,
      )
      const workersBefore = server.workerPids()
      await injectFaults(server, ledger, postgres.cluster!, async () => {
        if (workers === undefined) return
        // A worker dies during the outage: its replacement cannot reach the database, and waits for it instead of crash-looping.
        await sleep(3_000)
        killedWorker = workersBefore[0]
        killedAt = Date.now()
        process.kill(killedWorker, 'SIGKILL')
      })
      writers.stop()
      expect(await writersFailed, server.stderr()).toBeUndefined()

      expect(server.running(), server.stderr()).toBe(true)
      expect(server.pid()).toBe(pid)
      if (workers !== undefined) {
        // The replacement listens once its wait for the database (backoff up to 5 s) ends.
        for (let i = 0; i < 100 && server.workerPids().length < 3; i++) await sleep(100)
        const now = server.workerPids()
        expect(now.slice(0, 2)).toEqual(workersBefore)
        expect(now, server.stderr()).toHaveLength(3)
        process.kill(workersBefore[1], 0)
        expect(server.stderr()).toMatch(new RegExp(`worker ${killedWorker} exited .*starting a replacement`))
        expect(server.stderr()).not.toMatch(/worker exits within a minute, stopping/)
      }
      const storage = await createPostgresStorage({ connectionString: postgres.url, schema })
      await storage.init(COLLECTIONS)
      try {
        for (const check of CHECKS) {
          expect(await check.problems({ url: server.url, tenant, ledger, storage }), check.name).toEqual([])
        }
      } finally {
        await storage.close()
      }
      expect(ledger.refused).toEqual([])
      expect(server.stderr()).not.toMatch(/INTERNAL_ERROR|Unhandled 'error' event/)
      console.log(
        `[db faults] ${_name}: ${ledger.acknowledged} acknowledged writes, ${ledger.unavailable} answered 503 during faults; ` +
          `all checks hold, server pid ${pid} alive`,
      )
    },
    240_000,
  )
})

describe.skipIf(external)('PostgreSQL down when didvault serve starts', () => {
  it('serve waits for it (retrying with backoff, saying so) and listens once it is up', async () => {
    const cluster = postgres.cluster!
    cluster.stopFast()
    const proc = spawnNode([CLI, 'serve', '--port', '0', '--storage', `${postgres.url}?schema=${postgres.schema}_start`], {
      cwd: dir,
      env: { DIDVAULT_MASTER_KEY: 'ab'.repeat(32), DIDVAULT_API_KEYS: 'start:start-key-0123456789' },
    })
    try {
      await sleep(3_000)
      expect(proc.child.exitCode).toBeNull()
      expect(proc.stderr()).toMatch(
        /storage postgres:\/\/127\.0\.0\.1:\d+\/postgres \(schema \w+_start\) unavailable .*ECONNREFUSED.*; trying again in/,
      )
    } finally {
      await cluster.start()
    }
    const [, url] = await proc.waitFor(/didvault listening on (http:\/\/127\.0\.0\.1:\d+)/, 20_000)
    expect((await http(`${url}/vaults`, { method: 'POST', token: 'start-key-0123456789', json: { name: 'after the wait' } })).status).toBe(
      200,
    )
  }, 60_000)
})
