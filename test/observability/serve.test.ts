/**
 * The observability flags of `didvault serve`, on the built CLI (real child processes, real HTTP
 * on loopback): `--log-level`, `--log-format`, `--metrics`, `--metrics-port`, and `--workers`,
 * whose `/metrics` is the aggregate of every worker wherever the scrape lands.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { CLI, ensureBuilt } from '../helpers/build.js'
import { http, killAll, spawnNode, type Spawned } from '../helpers/spawn.js'

const KEY = 'key-acme-123456789'
const ENV = { DIDVAULT_API_KEYS: `acme:${KEY}` }
const LISTENING = /didvault listening on (http:\/\/127\.0\.0\.1:\d+)/
const METRICS_ON = /didvault metrics on (http:\/\/127\.0\.0\.1:\d+\/metrics)/

beforeAll(ensureBuilt, 180_000)
let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'didvault-obs-'))
})
afterEach(async () => {
  await killAll()
  rmSync(dir, { recursive: true, force: true })
})

async function serve(args: string[]): Promise<{ proc: Spawned; url: string }> {
  const proc = spawnNode([CLI, 'serve', '--port', '0', ...args], { cwd: dir, env: ENV })
  const [, url] = await proc.waitFor(LISTENING, 60_000)
  return { proc, url }
}

/** A GET on a connection of its own (`agent: false`): with workers, connections are shared out between them. */
function freshGet(url: string, token?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers = token === undefined ? {} : { authorization: `Bearer ${token}` }
    request(url, { agent: false, headers }, (res) => {
      let body = ''
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk))
      res.on('end', () => resolve({ status: res.statusCode!, body }))
    })
      .on('error', reject)
      .end()
  })
}

/** The JSON records of a process's stdout. */
const records = (proc: Spawned) =>
  proc
    .stdout()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)

describe('flags', () => {
  it.each([
    [['--log-level', 'loud'], /--log-level must be fatal, error, warn, info, debug, trace, silent; got loud/],
    [['--log-format', 'xml'], /--log-format must be json, pretty; got xml/],
    [['--metrics', 'maybe'], /--metrics must be on, off; got maybe/],
    [['--metrics-port', '70000'], /--metrics-port must be 0\.\.65535, got 70000/],
  ])('%j: a usage error (exit 2), nothing on stdout', async (args, message) => {
    const proc = spawnNode([CLI, 'serve', '--storage', 'memory', ...args], { cwd: dir, env: ENV })
    expect((await proc.exited).code).toBe(2)
    expect(proc.stderr()).toMatch(message)
    expect(proc.stdout()).toBe('')
  })

  it('--log-level warn: no request records, but the listening line (info) is still written', async () => {
    const { proc, url } = await serve(['--storage', 'memory', '--log-level', 'warn'])
    expect((await http(`${url}/vaults`, { token: KEY })).status).toBe(200)
    proc.child.kill('SIGTERM')
    await proc.exited
    expect(records(proc).map((r) => r.msg)).toEqual([
      expect.stringMatching(/^didvault listening on /),
      'didvault: SIGTERM, finishing in-flight requests',
    ])
  })

  it('--log-format pretty: lines for a terminal, not JSON', async () => {
    const { proc, url } = await serve(['--storage', 'memory', '--log-format', 'pretty'])
    await http(`${url}/vaults`, { token: KEY, headers: { 'x-request-id': 'pretty-1' } })
    await proc.waitFor(/pretty-1/)
    expect(proc.stdout()).not.toMatch(/^\{/m)
    expect(proc.stdout()).toMatch(/INFO.*didvault listening on http/)
  })

  it('metrics on by default on the service port; --metrics off: no /metrics (health stays)', async () => {
    const on = await serve(['--storage', 'memory'])
    await http(`${on.url}/vaults`, { token: KEY })
    const scrape = await http(`${on.url}/metrics`)
    expect(scrape.status).toBe(200)
    expect(scrape.body).toContain('didvault_http_requests_total{operation="getVaults",status="200"} 1')
    expect(scrape.body).toContain('process_resident_memory_bytes')

    const off = await serve(['--storage', 'memory', '--metrics', 'off'])
    expect((await http(`${off.url}/metrics`)).status).toBe(404)
    expect(await http(`${off.url}/health/ready`)).toEqual({ status: 200, body: { status: 'ok' } })
  })

  it('--metrics-port: /metrics on that port of the same host, not on the service port', async () => {
    const { proc, url } = await serve(['--storage', 'memory', '--metrics-port', '0'])
    const [, metricsUrl] = METRICS_ON.exec(proc.stdout())!
    await http(`${url}/vaults`, { token: KEY })
    expect((await http(`${url}/metrics`)).status).toBe(404)
    const scrape = await http(metricsUrl)
    expect(scrape.status).toBe(200)
    expect(scrape.body).toContain('didvault_http_requests_total{operation="getVaults",status="200"} 1')
  })
})

describe('--workers 2: a scrape sees the requests of both workers', () => {
  const REQUESTS = 24

  /** Sends {@link REQUESTS} requests on fresh connections until both workers served some; returns the pids that did. */
  async function load(proc: Spawned, url: string): Promise<Set<number>> {
    for (let i = 0; i < REQUESTS; i++) expect((await freshGet(`${url}/wallets`, KEY)).status).toBe(200)
    await new Promise((resolve) => setTimeout(resolve, 200))
    const served = records(proc).filter((r) => r.msg === 'request' && r.operation === 'getWallets')
    expect(served).toHaveLength(REQUESTS)
    return new Set(served.map((r) => r.pid as number))
  }

  it('on the service port: whichever worker answers the scrape gives the cluster-wide counts', async () => {
    const { proc, url } = await serve(['--storage', `sqlite:${join(dir, 'w.db')}`, '--workers', '2'])
    expect((await load(proc, url)).size).toBe(2)
    for (let i = 0; i < 4; i++) {
      const scrape = await freshGet(`${url}/metrics`)
      expect(scrape.status).toBe(200)
      expect(scrape.body).toContain(`didvault_http_requests_total{operation="getWallets",status="200"} ${REQUESTS}`)
    }
  }, 60_000)

  it('with --metrics-port: the primary serves the aggregate', async () => {
    const { proc, url } = await serve(['--storage', `sqlite:${join(dir, 'w.db')}`, '--workers', '2', '--metrics-port', '0'])
    const [, metricsUrl] = METRICS_ON.exec(proc.stdout())!
    expect((await load(proc, url)).size).toBe(2)
    expect((await freshGet(`${url}/metrics`)).status).toBe(404)
    const scrape = await freshGet(metricsUrl)
    expect(scrape.body).toContain(`didvault_http_requests_total{operation="getWallets",status="200"} ${REQUESTS}`)
  }, 60_000)
})
