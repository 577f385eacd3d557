/**
 * Stopping `didvault serve` in every state, from outside, on the built CLI: real processes (one,
 * or a primary and its forked workers), real HTTP on loopback, SQLite files and one PostgreSQL
 * schema. What a client sees during the drain (docs/operations.md *Stopping*): the requests in
 * flight are answered with `Connection: close`; any request arriving after the signal — on a
 * kept-alive connection or a new one — gets 503 `stopping` with `Connection: close`; at the drain
 * deadline (`--drain-ms`, default 10 s) what is left is cut and the process exits. The stop
 * reaches workers in every state: starting, being replaced, replaced soon, or not answering.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { CLI, ensureBuilt } from './helpers/build.js'
import { startTestPostgres, type TestPostgres } from './helpers/postgres.js'
import { childrenOf, isRunning, ownerOf, until, within } from './helpers/processes.js'
import { RawConnection, type RawResponse } from './helpers/raw-http.js'
import { http, killAll, spawnNode, startSlowRequest, type Spawned } from './helpers/spawn.js'

const ONE = /didvault listening on (http:\/\/127\.0\.0\.1:(\d+))"/
const CLUSTER = /didvault listening on (http:\/\/127\.0\.0\.1:(\d+)) \((\d+) workers\)"/
const WORKER = /"didvault worker (\d+) listening"/g
const KEY = 'key-acme-123456789'
const AUTH = { authorization: `Bearer ${KEY}` }
const ENV = { DIDVAULT_API_KEYS: `acme:${KEY}` }
/** The default drain deadline, and what a stop may take beyond it (the workers' last words, the primary's kill). */
const DRAIN_MS = 10_000
const BOUND_MS = 3_000
/** The answer to a request that arrives while the server drains. */
const STOPPING = {
  status: 503,
  headers: expect.objectContaining({ connection: 'close', 'retry-after': '1', 'x-request-id': expect.any(String) }),
  body: { statusCode: 503, errorType: 'SERVICE_UNAVAILABLE', errorMessage: 'the server is stopping: retry on another instance' },
}

beforeAll(ensureBuilt, 180_000)

let dir: string
/** Pids a test stopped (SIGSTOP) or forked: killed after it whatever happened. */
const leftovers: number[] = []

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'didvault-shutdown-'))
})

afterEach(async () => {
  for (const pid of leftovers.splice(0)) if (isRunning(pid)) process.kill(pid, 'SIGKILL')
  await killAll()
  rmSync(dir, { recursive: true, force: true })
})

const cli = (args: string[], env: Record<string, string> = {}) => spawnNode([CLI, ...args], { cwd: dir, env: { ...ENV, ...env } })

/** `didvault serve --port 0` (one process) on a SQLite file of the test, listening. */
async function serveOne(args: string[] = []): Promise<{ proc: Spawned; url: string; port: number }> {
  const proc = cli(['serve', '--port', '0', '--storage', `sqlite:${join(dir, 'x.db')}`, ...args])
  const [, url, port] = await proc.waitFor(ONE)
  return { proc, url, port: Number(port) }
}

interface Cluster {
  proc: Spawned
  url: string
  port: number
  /** The pids of the workers' listening lines so far. */
  workers(): number[]
}

/** `didvault serve --port 0 --workers 2` on `storage`, every worker listening. */
async function serveTwo(args: string[] = [], env: Record<string, string> = {}, storage = `sqlite:${join(dir, 'x.db')}`): Promise<Cluster> {
  const proc = cli(['serve', '--port', '0', '--workers', '2', '--storage', storage, ...args], env)
  const [, url, port] = await proc.waitFor(CLUSTER, 60_000)
  const cluster = { proc, url, port: Number(port), workers: () => [...proc.stdout().matchAll(WORKER)].map((m) => Number(m[1])) }
  await until(() => (cluster.workers().length === 2 ? true : undefined), 'both worker lines')
  leftovers.push(...cluster.workers())
  return cluster
}

/** SIGTERM to `proc`; resolves with its exit and the time it took (ms), or rejects when it has not exited within `ms`. */
async function terminate(proc: Spawned, ms: number): Promise<{ exit: Awaited<Spawned['exited']>; tookMs: number }> {
  const start = performance.now()
  proc.child.kill('SIGTERM')
  const exit = await within(proc.exited, ms, `the process after SIGTERM\n--- stdout\n${proc.stdout()}\n--- stderr\n${proc.stderr()}`)
  return { exit, tookMs: performance.now() - start }
}

const allGone = (pids: number[]) => until(() => (pids.some(isRunning) ? undefined : true), `${pids.join(', ')} to exit`)

describe('didvault serve (one process): the drain', () => {
  it('after SIGTERM, requests on a kept-alive connection and on new ones get 503 stopping with Connection: close; the in-flight one completes; exit 0', async () => {
    const { proc, url, port } = await serveOne()
    const kept = await RawConnection.open(port)
    const before = await kept.request('GET', '/vaults', AUTH)
    expect([before.status, before.headers.connection]).toEqual([200, 'keep-alive'])
    const inFlight = await startSlowRequest(`${url}/vaults`, KEY, { name: 'in flight', hierarchy: 'BIP44' })

    proc.child.kill('SIGTERM')
    await proc.waitFor(/"didvault: SIGTERM, finishing in-flight requests/)
    // The kept-alive connection is not reset: its request is answered, and the server closes it after the answer.
    expect(await kept.request('GET', '/vaults', AUTH)).toEqual(STOPPING)
    await kept.closed
    // A new connection is accepted and answered the same way; readiness says why.
    const fresh = await RawConnection.open(port)
    expect(await fresh.request('POST', '/vaults', AUTH, JSON.stringify({ name: 'too late' }))).toEqual(STOPPING)
    expect(await http(`${url}/health/ready`)).toEqual({ status: 503, body: { status: 'unavailable', reason: 'stopping' } })
    expect((await http(`${url}/health/live`)).status).toBe(200)

    const answered = await inFlight.finish()
    expect([answered.status, answered.body.vault.name, answered.connection]).toEqual([200, 'in flight', 'close'])
    expect(await within(proc.exited, DRAIN_MS, 'exit after the drain'), proc.stderr()).toEqual({ code: 0, signal: null })
  }, 30_000)

  it('a request still in flight at the deadline (--drain-ms) is cut, and the process exits then, with 1', async () => {
    const { proc, port } = await serveOne(['--drain-ms', '1000'])
    const stuck = await RawConnection.open(port)
    // Its body is never finished: in flight until the deadline.
    stuck.partial('POST', '/vaults', AUTH, JSON.stringify({ name: 'never finished' }))
    await new Promise((resolve) => setTimeout(resolve, 200))

    const { exit, tookMs } = await terminate(proc, 1_000 + BOUND_MS)
    expect(exit, proc.stderr()).toEqual({ code: 1, signal: null })
    // Not before the deadline: the in-flight request had its whole drain.
    expect(tookMs).toBeGreaterThanOrEqual(1_000)
    await stuck.closed
    expect(proc.stdout()).toMatch(/"didvault: drain deadline \(1000 ms\) passed with 1 request in flight: closing all connections"/)
  }, 30_000)

  it('a second signal cuts the request in flight at once: exit 1 well before the deadline', async () => {
    const { proc, port } = await serveOne()
    const stuck = await RawConnection.open(port)
    stuck.partial('POST', '/vaults', AUTH, JSON.stringify({ name: 'never finished' }))
    await new Promise((resolve) => setTimeout(resolve, 200))
    proc.child.kill('SIGTERM')
    await proc.waitFor(/"didvault: SIGTERM, finishing in-flight requests/)
    const { exit } = await terminate(proc, BOUND_MS)
    expect(exit, proc.stderr()).toEqual({ code: 1, signal: null })
    await stuck.closed
    expect(proc.stdout()).toContain('"didvault: SIGTERM again, closing all connections"')
  }, 30_000)
})

describe('didvault serve --workers 2: the stop reaches every worker in every state', () => {
  it('SIGTERM while the workers are still starting: every process exits, the primary with 0', async () => {
    const proc = cli(['serve', '--port', '0', '--workers', '2', '--storage', `sqlite:${join(dir, 'x.db')}`])
    const forked = await until(
      () => (childrenOf(proc.child.pid!).length > 0 ? childrenOf(proc.child.pid!) : undefined),
      'a worker',
      30_000,
      10,
    )
    leftovers.push(...forked)
    const { exit } = await terminate(proc, DRAIN_MS + BOUND_MS)
    expect(exit, proc.stderr()).toEqual({ code: 0, signal: null })
    expect(proc.stdout()).not.toMatch(/didvault listening on/)
    await allGone(forked)
  }, 30_000)

  it.each([
    ['scheduled, not forked yet', 'scheduled'],
    ['forked, not listening yet', 'forked'],
  ] as const)(
    'SIGTERM while a dead worker’s replacement is %s: every process exits, the primary with 0',
    async (_, state) => {
      const cluster = await serveTwo()
      const primary = cluster.proc.child.pid!
      const [victim, survivor] = cluster.workers()
      process.kill(victim, 'SIGKILL')
      if (state === 'scheduled') {
        await until(() => (cluster.proc.stderr().includes(`worker ${victim} exited`) ? true : undefined), 'the exit line', 10_000, 5)
      } else {
        const replacement = await until(() => childrenOf(primary).find((pid) => pid !== victim && pid !== survivor), 'the fork', 10_000, 5)
        leftovers.push(replacement)
      }
      const children = childrenOf(primary)
      leftovers.push(...children)
      const { exit } = await terminate(cluster.proc, DRAIN_MS + BOUND_MS)
      expect(exit, cluster.proc.stderr()).toEqual({ code: 0, signal: null })
      await allGone([...children, survivor])
      // No worker was started after the signal.
      expect(cluster.workers().filter((pid) => !children.includes(pid) && pid !== victim)).toEqual([])
    },
    40_000,
  )

  it('a worker that does not answer (stopped) is killed at the deadline, and the primary exits then, with 1', async () => {
    const cluster = await serveTwo(['--drain-ms', '1000'])
    const [frozen] = cluster.workers()
    process.kill(frozen, 'SIGSTOP')
    const { exit, tookMs } = await terminate(cluster.proc, 1_000 + BOUND_MS)
    expect(exit, cluster.proc.stderr()).toEqual({ code: 1, signal: null })
    expect(tookMs).toBeGreaterThanOrEqual(1_000)
    await allGone(cluster.workers())
    expect(cluster.proc.stderr()).toContain(`didvault: worker ${frozen} still running at the drain deadline (1000 ms): killed`)
  }, 40_000)

  it('on every worker: a kept-alive connection gets 503 stopping with Connection: close; the in-flight requests complete with Connection: close; exit 0', async () => {
    const cluster = await serveTwo()
    // Two connections on each worker: one kept alive, one for a slow request.
    const byWorker = new Map<number, RawConnection[]>()
    for (let i = 0; i < 40 && [...byWorker.values()].filter((c) => c.length >= 2).length < 2; i++) {
      const connection = await RawConnection.open(cluster.port)
      expect((await connection.request('GET', '/vaults', AUTH)).status).toBe(200)
      const worker = ownerOf(cluster.port, connection.localPort, cluster.workers())!
      const held = byWorker.get(worker) ?? []
      if (held.length < 2) byWorker.set(worker, [...held, connection])
      else connection.close()
    }
    expect([...byWorker.keys()].sort()).toEqual(cluster.workers().sort())
    const slow = [...byWorker.values()].map(([, connection], i) =>
      connection.partial('POST', '/vaults', AUTH, JSON.stringify({ name: `in flight ${i}`, hierarchy: 'BIP44' })),
    )
    await new Promise((resolve) => setTimeout(resolve, 300))

    cluster.proc.child.kill('SIGTERM')
    await until(
      () => (cluster.proc.stdout().match(/"didvault worker \d+: [^"]*finishing in-flight requests/g)?.length === 2 ? true : undefined),
      'both workers draining',
    )
    for (const [kept] of byWorker.values()) {
      expect(await kept.request('GET', '/vaults', AUTH)).toEqual(STOPPING)
      await kept.closed
    }
    const answers: RawResponse[] = await Promise.all(slow.map((s) => s.finish()))
    expect(answers.map((a) => [a.status, a.headers.connection])).toEqual([
      [200, 'close'],
      [200, 'close'],
    ])
    expect(await within(cluster.proc.exited, DRAIN_MS, 'the primary'), cluster.proc.stderr()).toEqual({ code: 0, signal: null })
    await allGone(cluster.workers())
  }, 40_000)
})

describe('didvault serve --workers 2 on PostgreSQL: the default deadline', () => {
  let postgres: TestPostgres
  beforeAll(async () => {
    postgres = await startTestPostgres('shutdown')
  }, 120_000)
  afterAll(() => postgres?.stop())

  it('a request blocked in the database at SIGTERM: cut at 10 s, and the primary is gone before 12 s', async () => {
    const cluster = await serveTwo(
      [],
      { DIDVAULT_MASTER_KEY: randomBytes(32).toString('hex') },
      `${postgres.url}?schema=${postgres.schema}`,
    )
    // Another session holds the vaults table: a listing waits on its lock for as long as it is held.
    const locker = new pg.Client({ connectionString: postgres.url })
    await locker.connect()
    try {
      await locker.query('BEGIN')
      await locker.query(`LOCK TABLE "${postgres.schema}".vaults IN ACCESS EXCLUSIVE MODE`)
      const blocked = http(`${cluster.url}/vaults`, { token: KEY }).catch((err: unknown) => err)
      const waiting = async () =>
        Number((await locker.query("SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock'")).rows[0].n)
      for (let i = 0; i < 100 && (await waiting()) === 0; i++) await new Promise((resolve) => setTimeout(resolve, 50))
      expect(await waiting()).toBe(1)

      const { exit, tookMs } = await terminate(cluster.proc, 12_000)
      expect(exit, cluster.proc.stderr()).toEqual({ code: 1, signal: null })
      expect(tookMs).toBeGreaterThanOrEqual(DRAIN_MS)
      expect(await blocked).toBeInstanceOf(Error)
      await allGone(cluster.workers())
    } finally {
      await locker.query('ROLLBACK').catch(() => undefined)
      await locker.end()
    }
  }, 90_000)
})
