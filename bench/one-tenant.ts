/**
 * One tenant's writes (issue 27, item 5): does a single tenant scale like the same load spread
 * over many tenants? A real `didvault serve` (the built CLI) is loaded by closed-loop clients in a
 * separate process (bench/one-tenant-load.ts) with two writes: wallet creation (`POST /wallet`)
 * and credential store (`POST /claims`, one fresh VC-JWT per request). Configurations, measured in
 * interleaved slices (the order reversed every other round), each rate the median of its slices:
 *
 * - `oneTenant16`: 16 clients of one tenant;
 * - `spread16`: 16 clients, one per tenant (16 tenants sharing no row: the ceiling here, CPU-bound);
 * - `oneTenant1`: one client (the latency with no contention).
 *
 * Servers: PostgreSQL (a server the bench starts, fsync and synchronous commit on) with one
 * process and with `--workers 2` (one after the other, on one schema); SQLite with `synchronous`
 * FULL (the default) and NORMAL, one process each. On PostgreSQL every tenant holds
 * {@link PREFILLED} credentials before the rounds, as a tenant in service does: on a near-empty
 * table the few leaf pages of the credentials' unique (tenant, hash, storer) index make every
 * two concurrent stores whose hashes share a page conflict under SERIALIZABLE (the dedup lookup's
 * page-level predicate lock and the other's insert), whichever tenants they are of. Serialization retries per write come from the server's own counter
 * (`didvault_storage_transaction_retries_total` on `/metrics`, scraped before and after each slice).
 *
 * Targets (PostgreSQL, one process, each write): oneTenant16 ÷ spread16 ≥ 0.9; p95 ÷ mean of
 * oneTenant16 ≤ 2; retries per write of oneTenant16 ≤ 0.05.
 */
import { fork, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CLI, ensureBuilt } from '../test/helpers/build.js'
import { startTestPostgres } from '../test/helpers/postgres.js'
import type { CredentialRecord } from '../src/credentials/records.js'
import { vcJwt } from './credentials.js'
import { pgFillCredentials } from './postgres-floors.js'
import type { TenantClient, TenantSlice, TenantSliceCounts } from './one-tenant-load.js'
import { listening, type Server } from './served-process.js'

/** Credentials each tenant holds on PostgreSQL before the rounds (bulk-loaded: ./postgres-floors). */
const PREFILLED = 5_000
const ROUNDS = 3
const SLICE = { warmupMs: 500, durationMs: 2_500 }
const CLIENTS = 16
const REQUESTS = ['createWallet', 'storeCredential'] as const
type RequestName = (typeof REQUESTS)[number]
const CONFIGURATIONS = ['oneTenant16', 'spread16', 'oneTenant1'] as const
type Configuration = (typeof CONFIGURATIONS)[number]

export interface ConfigurationFigures {
  /** Median of the slices' 2xx rates. */
  requestsPerSec: number
  /** Medians over the slices. */
  meanMs: number
  p95Ms: number
  /** Failed requests over all slices. */
  failed: number
  /** Transactions the server ran again after a serialization failure, per 2xx write, over all slices. */
  retriesPerWrite: number
  slices: Array<TenantSliceCounts & { retries: number }>
}

export interface RequestFigures {
  oneTenant16: ConfigurationFigures
  spread16: ConfigurationFigures
  oneTenant1: ConfigurationFigures
  /** oneTenant16 rate ÷ spread16 rate (target ≥ 0.9 on PostgreSQL, one process). */
  oneVsSpread: number
  /** p95 ÷ mean of oneTenant16 (median over its slices; target ≤ 2). */
  p95OverMean16: number
}

export interface ServerFigures {
  server: string
  requests: Record<RequestName, RequestFigures>
}

export interface OneTenantResults {
  postgres: {
    server: string
    settings: Record<string, string>
    prefilledCredentialsPerTenant: number
    workers1: ServerFigures
    workers2: ServerFigures
  }
  sqlite: { synchronousFull: ServerFigures; synchronousNormal: ServerFigures }
  clients: number
  slices: typeof SLICE & { rounds: number }
  totalMs: number
}

/** PostgreSQL as an operator runs it: every commit durable. */
const POSTGRES_SETTINGS = { fsync: 'on', synchronous_commit: 'on', full_page_writes: 'on' }

async function startServer(storage: string, workers: number, env: NodeJS.ProcessEnv): Promise<Server> {
  const args = [CLI, 'serve', '--port', '0', '--workers', String(workers), '--storage', storage]
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'inherit'] })
  const [, url] = await listening(child, /didvault listening on ([^\s"]+)/, `didvault serve --storage ${storage.split('?')[0]}`)
  return {
    url,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill('SIGTERM')
      await once(child, 'exit')
    },
  }
}

function startGenerator(): { run(slice: TenantSlice): Promise<TenantSliceCounts>; stop(): Promise<void> } {
  const child = fork(new URL('./one-tenant-load.ts', import.meta.url), [], { execArgv: ['--import', 'tsx'] })
  const exited = once(child, 'exit')
  return {
    run: (slice) =>
      new Promise((resolve, reject) => {
        child.once('message', (counts: TenantSliceCounts) => resolve(counts))
        void exited.then(() => reject(new Error('bench: the load generator exited')))
        child.send(slice)
      }),
    stop: async () => {
      child.disconnect()
      await exited
    },
  }
}

/** The server's retry counter (0 before the first retry: prom-client shows a counter without labels from the start). */
async function retriesOf(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text()
  const match = /^didvault_storage_transaction_retries_total(?:\{[^}]*\})? (\d+(?:\.\d+)?)$/m.exec(text)
  return match ? Number(match[1]) : 0
}

/** A wallet of the tenant and a DID-auth token of it (an hour), through the server. */
async function clientOf(url: string, apiKey: string): Promise<TenantClient> {
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    if (res.status !== 200) throw new Error(`bench: POST ${path}: ${res.status} ${await res.text()}`)
    return res.json() as Promise<any>
  }
  const did = (await post('/wallet', {})).wallet.did as string
  const { jwt } = await post('/did-auth-jwt', { iss: did, expiresIn: 3_600_000 })
  return { apiKey, did, didAuth: jwt as string }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}
const round = (n: number, digits = 3) => Number(n.toFixed(digits))

function figures(slices: Array<TenantSliceCounts & { retries: number }>): ConfigurationFigures {
  const writes = slices.reduce((sum, s) => sum + s.ok, 0)
  const retries = slices.reduce((sum, s) => sum + s.retries, 0)
  return {
    requestsPerSec: round(median(slices.map((s) => s.requestsPerSec)), 1),
    meanMs: round(median(slices.map((s) => s.meanMs)), 2),
    p95Ms: round(median(slices.map((s) => s.p95Ms)), 2),
    failed: slices.reduce((sum, s) => sum + s.failed, 0),
    retriesPerWrite: round(retries / Math.max(1, writes), 4),
    slices,
  }
}

/** Measures every request and configuration against one server (the generator kept up between). */
async function measureServer(
  label: string,
  server: Server,
  apiKeys: { one: string; spread: string[] },
  generator: ReturnType<typeof startGenerator>,
  prefill?: (url: string, clients: TenantClient[]) => Promise<void>,
): Promise<ServerFigures> {
  const one = await clientOf(server.url, apiKeys.one)
  const spread = await Promise.all(apiKeys.spread.map((key) => clientOf(server.url, key)))
  await prefill?.(server.url, [one, ...spread])
  const clientsOf: Record<Configuration, TenantClient[]> = {
    oneTenant16: Array.from({ length: CLIENTS }, () => one),
    spread16: spread,
    oneTenant1: [one],
  }
  const requests = {} as Record<RequestName, RequestFigures>
  for (const request of REQUESTS) {
    const sliceOf = (configuration: Configuration): TenantSlice => ({
      ...SLICE,
      url: server.url,
      request,
      clients: clientsOf[configuration],
    })
    // A first, uncounted run: code not yet optimised, caches cold.
    await generator.run({ ...sliceOf('spread16'), warmupMs: 1_000, durationMs: 100 })
    const slices = Object.fromEntries(CONFIGURATIONS.map((c) => [c, [] as Array<TenantSliceCounts & { retries: number }>])) as Record<
      Configuration,
      Array<TenantSliceCounts & { retries: number }>
    >
    for (let pass = 0; pass < ROUNDS; pass++) {
      for (const configuration of pass % 2 === 0 ? CONFIGURATIONS : [...CONFIGURATIONS].reverse()) {
        const before = await retriesOf(server.url)
        const counts = await generator.run(sliceOf(configuration))
        slices[configuration].push({ ...counts, retries: (await retriesOf(server.url)) - before })
      }
    }
    const f = Object.fromEntries(CONFIGURATIONS.map((c) => [c, figures(slices[c])])) as Record<Configuration, ConfigurationFigures>
    requests[request] = {
      ...f,
      oneVsSpread: round(f.oneTenant16.requestsPerSec / f.spread16.requestsPerSec),
      p95OverMean16: round(median(slices.oneTenant16.map((s) => s.p95Ms / Math.max(0.001, s.meanMs)))),
    }
    const line = (c: Configuration) => `${c} ${f[c].requestsPerSec}/s p95 ${f[c].p95Ms} ms retries/write ${f[c].retriesPerWrite}`
    process.stderr.write(`bench: one tenant ${label} ${request}: ${CONFIGURATIONS.map(line).join(', ')}\n`)
  }
  return { server: label, requests }
}

/**
 * {@link PREFILLED} credentials for each client's tenant: one stored through the server (the
 * template, its issuer the client's wallet), the rest bulk-loaded as copies with fresh ids and hashes.
 */
async function prefillCredentials(database: { url: string; schema: string }, url: string, clients: TenantClient[]): Promise<void> {
  const started = Date.now()
  const pool = new pg.Pool({ connectionString: database.url, max: 2 })
  try {
    for (const client of clients) {
      const res = await fetch(`${url}/claims`, {
        method: 'POST',
        headers: { authorization: `Bearer ${client.apiKey}`, 'x-did-auth': client.didAuth, 'content-type': 'application/json' },
        body: JSON.stringify({ claims: [{ jwt: vcJwt(client.did) }] }),
      })
      if (res.status !== 200) throw new Error(`bench: POST /claims: ${res.status} ${await res.text()}`)
      const { rows } = await pool.query<{ data: CredentialRecord }>(
        `SELECT data FROM "${database.schema}".credentials WHERE data ->> 'issuer' = $1 LIMIT 1`,
        [client.did],
      )
      if (rows[0] === undefined) throw new Error(`bench: no stored credential of ${client.did} to copy`)
      await pgFillCredentials(pool, database.schema, rows[0].data, [client.did], PREFILLED - 1)
    }
  } finally {
    await pool.end()
  }
  process.stderr.write(`bench: one tenant: ${PREFILLED} credentials per tenant loaded in ${Date.now() - started} ms\n`)
}

/** Environment of a server: a master key, an API key for the one tenant and for each of the 16. */
function serverEnv(): { env: NodeJS.ProcessEnv; apiKeys: { one: string; spread: string[] } } {
  const key = () => randomBytes(24).toString('base64url')
  const apiKeys = { one: key(), spread: Array.from({ length: CLIENTS }, key) }
  const pairs = [`one:${apiKeys.one}`, ...apiKeys.spread.map((k, i) => `spread-${i}:${k}`)]
  const env = {
    ...process.env,
    NODE_OPTIONS: '',
    DIDVAULT_MASTER_KEY: randomBytes(32).toString('hex'),
    DIDVAULT_API_KEYS: pairs.join(','),
  }
  return { env, apiKeys }
}

export async function benchOneTenant(): Promise<OneTenantResults> {
  const started = Date.now()
  ensureBuilt()
  const generator = startGenerator()
  const dir = mkdtempSync(join(tmpdir(), 'didvault-bench-one-tenant-'))
  const pgServer = await startTestPostgres('bench one tenant', (line) => process.stderr.write(`${line}\n`), POSTGRES_SETTINGS)
  try {
    const on = async (
      label: string,
      storage: string,
      workers: number,
      { env, apiKeys } = serverEnv(),
      prefill?: (url: string, clients: TenantClient[]) => Promise<void>,
    ) => {
      const server = await startServer(storage, workers, env)
      try {
        return await measureServer(label, server, apiKeys, generator, prefill)
      } finally {
        await server.stop()
      }
    }
    const postgres = `${pgServer.url}?schema=${pgServer.schema}`
    // Both on one schema (its credentials loaded once): one master key, one set of API keys.
    const postgresEnv = serverEnv()
    const workers1 = await on('postgres --workers 1', postgres, 1, postgresEnv, (url, clients) =>
      prefillCredentials(pgServer, url, clients),
    )
    const workers2 = await on('postgres --workers 2', postgres, 2, postgresEnv)
    const synchronousFull = await on('sqlite synchronous=FULL', `sqlite:${join(dir, 'full.db')}`, 1)
    const synchronousNormal = await on('sqlite synchronous=NORMAL', `sqlite:${join(dir, 'normal.db')}?synchronous=normal`, 1)
    return {
      postgres: { server: pgServer.server, settings: POSTGRES_SETTINGS, prefilledCredentialsPerTenant: PREFILLED, workers1, workers2 },
      sqlite: { synchronousFull, synchronousNormal },
      clients: CLIENTS,
      slices: { ...SLICE, rounds: ROUNDS },
      totalMs: Date.now() - started,
    }
  } finally {
    await generator.stop()
    await pgServer.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The targets, on PostgreSQL with one process, for each write. */
export function oneTenantTargets(results: OneTenantResults) {
  return REQUESTS.flatMap((request) => {
    const r = results.postgres.workers1.requests[request]
    const retries = r.oneTenant16.retriesPerWrite
    return [
      { name: `oneTenant16VsSpread16:${request}`, storage: 'postgres', min: 0.9, actual: r.oneVsSpread, pass: r.oneVsSpread >= 0.9 },
      { name: `oneTenant16P95OverMean:${request}`, storage: 'postgres', max: 2, actual: r.p95OverMean16, pass: r.p95OverMean16 <= 2 },
      { name: `oneTenant16RetriesPerWrite:${request}`, storage: 'postgres', max: 0.05, actual: retries, pass: retries <= 0.05 },
    ]
  })
}

// Standalone: `node --import tsx bench/one-tenant.ts`.
if (import.meta.url === `file://${process.argv[1]}`) {
  const results = await benchOneTenant()
  const targets = oneTenantTargets(results)
  process.stdout.write(`${JSON.stringify({ ...results, targets, allTargetsPass: targets.every((t) => t.pass) }, null, 2)}\n`)
}
