/**
 * `didvault serve --workers <n|auto>` from outside, on the built CLI: real processes (a primary
 * and its forked workers), real HTTP on loopback, one SQLite database (and one PostgreSQL schema). Which worker answered a
 * connection is read from Linux's `/proc` (the process holding the server side of its socket: `helpers/processes.ts`).
 */
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { importJWK, jwtVerify } from 'jose'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { jsonldThreadsPerWorker, RestartPolicy } from '../src/cli/cluster.js'
import { parseWorkers } from '../src/cli/serve-config.js'
import { CLI, ensureBuilt } from './helpers/build.js'
import { MongoWireServer } from './helpers/mongo-wire-server.js'
import { startTestPostgres, type TestPostgres } from './helpers/postgres.js'
import { isRunning, ownerOf, until } from './helpers/processes.js'
import { softHsmAvailable, startSoftHsm, type SoftHsm } from './helpers/softhsm.js'
import { killAll, spawnNode, startSlowRequest, type Spawned } from './helpers/spawn.js'

const LISTENING = /didvault listening on (http:\/\/127\.0\.0\.1:(\d+)) \((\d+) workers\)"/
const WORKER = /"didvault worker (\d+) listening"/g
const CREATED_KEY = /API key for tenant "default".*: (\S+)$/m
const KEY = 'key-acme-123456789'

beforeAll(ensureBuilt, 180_000)

let dir: string

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'didvault-workers-'))
})

afterEach(async () => {
  await killAll()
  rmSync(dir, { recursive: true, force: true })
})

const cli = (args: string[], env: Record<string, string> = {}) => spawnNode([CLI, ...args], { cwd: dir, env })

interface Cluster {
  proc: Spawned
  url: string
  port: number
  /** The pids of the workers' listening lines so far. */
  workers(): number[]
}

/** Starts `didvault serve --port 0 --workers <n>` on `storage` (default a SQLite file of the test's directory); waits for the listening line. */
async function serveWorkers(workers: string, env: Record<string, string> = {}, storage = `sqlite:${join(dir, 'x.db')}`): Promise<Cluster> {
  const proc = cli(['serve', '--port', '0', '--workers', workers, '--storage', storage], env)
  const [, url, port, count] = await proc.waitFor(LISTENING)
  const cluster = { proc, url, port: Number(port), workers: () => [...proc.stdout().matchAll(WORKER)].map((m) => Number(m[1])) }
  // A worker's own line may come just after the primary's.
  await until(() => (cluster.workers().length === Number(count) ? true : undefined), `${count} worker lines`)
  return cluster
}

/** One request on `agent`'s kept-alive connection; with the pid of the worker that answered it. */
function send(
  cluster: Cluster,
  agent: Agent,
  path: string,
  init: { method?: string; json?: unknown; token?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: any; worker: number | undefined }> {
  const body = init.json === undefined ? undefined : JSON.stringify(init.json)
  return new Promise((resolve, reject) => {
    const req = request(`${cluster.url}${path}`, {
      agent,
      method: init.method ?? 'GET',
      headers: {
        authorization: `Bearer ${init.token ?? KEY}`,
        ...(body ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } : {}),
        ...init.headers,
      },
    })
    req.on('response', (res) => {
      const worker = ownerOf(cluster.port, res.socket.localPort!, cluster.workers())
      let text = ''
      res.setEncoding('utf8').on('data', (c: string) => (text += c))
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text), worker }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

/** A kept-alive connection to each of the cluster's workers (new connections until every worker answered one). */
async function connectionPerWorker(cluster: Cluster, token = KEY): Promise<Map<number, Agent>> {
  const byWorker = new Map<number, Agent>()
  for (let i = 0; i < 20 && byWorker.size < cluster.workers().length; i++) {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    const { status, worker } = await send(cluster, agent, '/vaults', { token })
    expect(status).toBe(200)
    if (worker !== undefined && !byWorker.has(worker)) byWorker.set(worker, agent)
    else agent.destroy()
  }
  expect([...byWorker.keys()].sort()).toEqual(cluster.workers().sort())
  return byWorker
}

/** SIGTERM to the primary: it and every worker exit, the primary with 0. */
async function stop(cluster: Cluster): Promise<void> {
  cluster.proc.child.kill('SIGTERM')
  expect(await cluster.proc.exited, cluster.proc.stderr()).toEqual({ code: 0, signal: null })
  for (const pid of cluster.workers()) await until(() => (isRunning(pid) ? undefined : true), `worker ${pid} to exit`)
}

describe('didvault serve --workers', () => {
  it('two workers on one SQLite database both answer requests, see the same records, and the first key is printed once', async () => {
    const cluster = await serveWorkers('2')
    const out = cluster.proc.stdout()
    expect(out.match(/API key/g)).toHaveLength(1)
    const key = CREATED_KEY.exec(out)![1]
    const workers = cluster.workers()
    expect(workers).toHaveLength(2)
    expect(new Set([...workers, cluster.proc.child.pid]).size).toBe(3)

    const agents = [...(await connectionPerWorker(cluster, key)).values()]
    const created = await send(cluster, agents[0], '/vaults', { method: 'POST', json: { name: 'shared' }, token: key })
    const listed = await send(cluster, agents[1], `/vaults?id=${created.body.vault.id}`, { token: key })
    expect(created.worker).not.toBe(listed.worker)
    expect(listed.body.vaults.map((v: { name: string }) => v.name)).toEqual(['shared'])
    await stop(cluster)
  }, 30_000)

  it('an API key revoked while both workers have used it is refused by both from the next request on', async () => {
    const cluster = await serveWorkers('2', { DIDVAULT_API_KEYS: `acme:${KEY}` })
    const created = JSON.parse(
      execFileSync(process.execPath, [CLI, 'keys', 'create', '--tenant', 'acme', '--json'], {
        cwd: dir,
        env: { PATH: process.env.PATH, DIDVAULT_STORAGE: `sqlite:${join(dir, 'x.db')}` },
        encoding: 'utf8',
      }),
    ) as { id: string; key: string }
    const agents = await connectionPerWorker(cluster)
    for (const agent of agents.values()) expect((await send(cluster, agent, '/vaults', { token: created.key })).status).toBe(200)

    execFileSync(process.execPath, [CLI, 'keys', 'revoke', created.id, '--storage', `sqlite:${join(dir, 'x.db')}`], { cwd: dir })
    for (const [worker, agent] of agents) {
      const refused = await send(cluster, agent, '/vaults', { token: created.key })
      expect({ worker: refused.worker, status: refused.status, errorType: refused.body.errorType }).toEqual({
        worker,
        status: 403,
        errorType: 'UNAUTHENTICATED',
      })
    }
    await stop(cluster)
  }, 30_000)

  it('SIGTERM drains every worker: an in-flight request completes, then the primary exits 0', async () => {
    const cluster = await serveWorkers('2', { DIDVAULT_API_KEYS: `acme:${KEY}` })
    const inFlight = await startSlowRequest(`${cluster.url}/vaults`, KEY, { name: 'in flight', hierarchy: 'BIP44' })
    cluster.proc.child.kill('SIGTERM')
    await until(
      () => (cluster.proc.stdout().match(/"didvault worker \d+: [^"]*finishing in-flight requests"/g)?.length === 2 ? true : undefined),
      'both workers draining',
    )
    const answered = await inFlight.finish()
    expect(answered.status).toBe(200)
    expect(answered.body.vault.name).toBe('in flight')
    expect(await cluster.proc.exited, cluster.proc.stderr()).toEqual({ code: 0, signal: null })
    for (const pid of cluster.workers()) await until(() => (isRunning(pid) ? undefined : true), `worker ${pid} to exit`)
  }, 30_000)

  it('a killed worker is replaced (and logged) while the port keeps answering', async () => {
    const cluster = await serveWorkers('2', { DIDVAULT_API_KEYS: `acme:${KEY}` })
    const [victim, survivor] = cluster.workers()
    process.kill(victim, 'SIGKILL')
    await until(
      () => (cluster.proc.stderr().includes(`worker ${victim} exited (signal SIGKILL); starting a replacement`) ? true : undefined),
      'the log',
    )
    const replacement = await until(() => cluster.workers().find((pid) => pid !== victim && pid !== survivor), 'a replacement')
    expect(isRunning(victim)).toBe(false)

    const agents = await connectionPerWorker({ ...cluster, workers: () => [survivor, replacement] })
    expect([...agents.keys()].sort()).toEqual([survivor, replacement].sort())
    await stop({ ...cluster, workers: () => [survivor, replacement] })
  }, 30_000)

  it('memory storage and --workers 2 is refused with the reason; --workers must be auto or a count', async () => {
    const memory = cli(['serve', '--port', '0', '--workers', '2', '--storage', 'memory'])
    expect((await memory.exited).code).toBe(2)
    expect(memory.stdout()).not.toMatch(/listening/)
    expect(memory.stderr()).toMatch(/--workers 2 needs a storage the processes share; memory storage lives inside one process/)

    for (const bad of ['0', 'many', '65']) {
      const proc = cli(['serve', '--port', '0', '--workers', bad, '--storage', 'memory'])
      expect((await proc.exited).code).toBe(2)
      expect(proc.stderr()).toContain(`--workers must be auto or 1..64, got ${bad}`)
    }
  }, 30_000)

  it('--workers auto starts one worker per available core', async () => {
    const cluster = await serveWorkers('auto', { DIDVAULT_API_KEYS: `acme:${KEY}` })
    expect(LISTENING.exec(cluster.proc.stdout())![3]).toBe(String(availableParallelism()))
    expect(cluster.workers()).toHaveLength(availableParallelism())
    await stop(cluster)
  }, 30_000)
})

describe('didvault serve --workers on PostgreSQL', () => {
  let postgres: TestPostgres
  beforeAll(async () => {
    postgres = await startTestPostgres('serve --workers')
  }, 120_000)
  afterAll(() => postgres?.stop())

  it('two workers on one PostgreSQL schema both answer requests and see the same records; SIGTERM stops both', async () => {
    const env = { DIDVAULT_API_KEYS: `acme:${KEY}`, DIDVAULT_MASTER_KEY: randomBytes(32).toString('hex') }
    const cluster = await serveWorkers('2', env, `${postgres.url}?schema=${postgres.schema}`)
    const agents = [...(await connectionPerWorker(cluster)).values()]
    const created = await send(cluster, agents[0], '/vaults', { method: 'POST', json: { name: 'on postgres' } })
    expect(created.status).toBe(200)
    const listed = await send(cluster, agents[1], `/vaults?id=${created.body.vault.id}`)
    expect(created.worker).not.toBe(listed.worker)
    expect(listed.body.vaults.map((v: { name: string }) => v.name)).toEqual(['on postgres'])
    await stop(cluster)
  }, 60_000)
})

describe.skipIf(!softHsmAvailable())('didvault serve --workers with an HSM (SoftHSM2)', () => {
  let hsm: SoftHsm
  beforeAll(() => {
    hsm = startSoftHsm()
  })
  afterAll(() => hsm?.stop())

  it('each worker opens the token: a key generated by one worker signs in the other, and a deletion in one leaves it unusable in both', async () => {
    const pinFile = join(dir, 'pin')
    writeFileSync(pinFile, `${hsm.pin}\n`, { mode: 0o600 })
    const hsmFlags = ['--hsm-module', hsm.module, '--hsm-token-label', hsm.tokenLabel, '--hsm-pin-file', pinFile]
    const proc = cli(['serve', '--port', '0', '--workers', '2', '--storage', `sqlite:${join(dir, 'x.db')}`, ...hsmFlags], {
      SOFTHSM2_CONF: hsm.conf,
      DIDVAULT_API_KEYS: `acme:${KEY}`,
    })
    const [, url, port, count] = await proc.waitFor(LISTENING)
    const cluster = { proc, url, port: Number(port), workers: () => [...proc.stdout().matchAll(WORKER)].map((m) => Number(m[1])) }
    await until(() => (cluster.workers().length === Number(count) ? true : undefined), `${count} worker lines`)
    const [first, second] = [...(await connectionPerWorker(cluster)).values()]
    for (const [maker, signer] of [
      [first, second],
      [second, first],
    ]) {
      const made = await send(cluster, maker, '/wallet', {
        method: 'POST',
        json: { walletConfig: { keyManagement: 'HSM', keyType: 'P-256', didMethod: 'jwk' } },
      })
      expect(made.status, JSON.stringify(made.body)).toBe(200)
      const { did, publicKeyJwk } = made.body.wallet
      // The DID-auth token and the credential are signed by the other worker's session on the same token key.
      const auth = await send(cluster, signer, '/did-auth-jwt', { method: 'POST', json: { iss: did } })
      expect(auth.status, JSON.stringify(auth.body)).toBe(200)
      expect(auth.worker).not.toBe(made.worker)
      const signed = await send(cluster, signer, '/claims/sign', {
        method: 'POST',
        json: { iss: did, format: 'JWT', claims: [{ payload: { degree: 'BSc' } }] },
        headers: { 'x-did-auth': auth.body.jwt },
      })
      expect(signed.status, JSON.stringify(signed.body)).toBe(200)
      const { payload } = await jwtVerify(signed.body.vcs[0].jwt, await importJWK(publicKeyJwk, 'ES256'))
      expect(payload.iss).toBe(did)
      // Deleted through the worker that made it: the other worker can no longer sign with it.
      const deleted = await send(cluster, maker, '/wallet', {
        method: 'DELETE',
        json: { ids: [did] },
        headers: { 'x-did-auth': auth.body.jwt },
      })
      expect(deleted.status, JSON.stringify(deleted.body)).toBe(200)
      expect(deleted.body.ids).toEqual([did])
      const after = await send(cluster, signer, '/did-auth-jwt', { method: 'POST', json: { iss: did } })
      expect(after.status).toBe(422)
      expect(after.body.errorType).toBe('NOT_FOUND')
    }
    await stop(cluster)
  }, 90_000)
})

describe('didvault serve --workers on MongoDB (the wire-protocol stand-in, not a real MongoDB)', () => {
  const replicaSet = new MongoWireServer({ replicaSet: true })
  const standalone = new MongoWireServer()
  beforeAll(() => Promise.all([replicaSet.start(), standalone.start()]))
  afterAll(() => Promise.all([replicaSet.stop(), standalone.stop()]))
  const env = () => ({ DIDVAULT_API_KEYS: `acme:${KEY}`, DIDVAULT_MASTER_KEY: randomBytes(32).toString('hex') })

  it('a replica set (server transactions): two workers both answer and see the same records', async () => {
    const cluster = await serveWorkers('2', env(), `${replicaSet.url}/workers`)
    const agents = [...(await connectionPerWorker(cluster)).values()]
    const created = await send(cluster, agents[0], '/vaults', { method: 'POST', json: { name: 'on mongo' } })
    const listed = await send(cluster, agents[1], `/vaults?id=${created.body.vault.id}`)
    expect(created.worker).not.toBe(listed.worker)
    expect(listed.body.vaults.map((v: { name: string }) => v.name)).toEqual(['on mongo'])
    await stop(cluster)
  }, 60_000)

  it('a standalone server (transactions within one process only) is refused with the reason', async () => {
    const proc = cli(['serve', '--port', '0', '--workers', '2', '--storage', `${standalone.url}/workers`], env())
    expect((await proc.exited).code).toBe(2)
    expect(proc.stdout()).not.toMatch(/listening/)
    expect(proc.stderr()).toMatch(
      /--workers 2 needs a storage several processes may share.*a standalone MongoDB server has it only as a replica set/,
    )
  }, 30_000)
})

describe('--workers sizing', () => {
  it('parses auto as the available cores and shares the cores out among JSON-LD threads, at least one per worker', () => {
    expect(parseWorkers('auto')).toBe(Math.min(availableParallelism(), 64))
    expect(parseWorkers('3')).toBe(3)
    expect([1, 2, 3, 4, 8].map((workers) => jsonldThreadsPerWorker(workers, 8))).toEqual([8, 4, 2, 2, 1])
    expect(jsonldThreadsPerWorker(4, 2)).toBe(1)
  })
})

describe('replacing workers that die', () => {
  it('waits 100 ms, then twice as long for each exit within the minute, up to 10 s', () => {
    const policy = new RestartPolicy(4)
    const delays = Array.from({ length: 12 }, (_, i) => policy.exited(1_000 + i))
    expect(delays).toEqual(
      [100, 200, 400, 800, 1_600, 3_200, 6_400, 10_000, 10_000, 10_000, 10_000, 10_000].map((delayMs) => ({ delayMs })),
    )
  })

  it('stops on the exit after 5 per worker within a minute, and forgets exits older than a minute', () => {
    const policy = new RestartPolicy(2)
    for (let i = 0; i < 10; i++) expect(policy.exited(i * 1_000)).toHaveProperty('delayMs')
    expect(policy.exited(10_000)).toEqual({ stop: 11 })

    const spread = new RestartPolicy(2)
    for (let i = 0; i < 10; i++) spread.exited(i * 1_000)
    // A minute after the first exit, it has left the window: 10 exits within the minute, not 11.
    expect(spread.exited(60_000)).toEqual({ delayMs: 10_000 })
    // Quiet for a minute: the next exit is the first again.
    expect(spread.exited(200_000)).toEqual({ delayMs: 100 })
  })
})
