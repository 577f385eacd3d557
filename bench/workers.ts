/**
 * `didvault serve --workers 2` against `--workers 1` (issue 19): two real servers (the built
 * CLI) on one SQLite file in a temporary directory, or on one PostgreSQL schema (a throw-away
 * server started as the tests start it), both started once and kept up, loaded by
 * autocannon from another process (bench/workers-load.ts) with two requests as a client sends
 * them — API key and DID-auth token headers: `GET /wallets?limit=10` (25 wallets in the vault) and
 * `POST /claims/verify` of one VC-JWT (ES256K). The floor is a bare `node:http` cluster of 1 and 2
 * workers doing the same signature check per request (bench/workers-floor-server.ts) under the
 * same generator. The four servers are measured in interleaved slices (the order reversed every
 * other round); each configuration's rate is the median of its slices, and didvault's scaling
 * (workers 2 ÷ workers 1) is compared with the floor's: the generator shares this machine's cores
 * with the servers, so the floor's scaling is what 2 workers can give here.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CLI, ensureBuilt } from '../test/helpers/build.js'
import { startTestPostgres } from '../test/helpers/postgres.js'
import { createClient } from '../src/client/index.js'
import { recoverEs256kKeys } from '../src/keys/es256k.js'
import type { Slice, SliceCounts } from './workers-load.js'
import { listening, type Server } from './served-process.js'

/** Rounds of slices; in each, every configuration gets one slice. */
const ROUNDS = 6
const SLICE = { warmupMs: 250, durationMs: 2_000, connections: 16 }
/**
 * Before the rounds, each configuration serves each request this long, uncounted: a server's first
 * seconds (code not yet optimised) are slower by 10-20%, which a round's short warm-up does not cover.
 */
const FIRST_WARMUP_MS = 1_500

const CONFIGURATIONS = ['didvault1', 'didvault2', 'floor1', 'floor2'] as const
type Configuration = (typeof CONFIGURATIONS)[number]
const REQUESTS = ['getWallets', 'verifyVcJwt'] as const
type RequestName = (typeof REQUESTS)[number]

export interface ConfigurationFigures {
  /** Median of the slices' 2xx rates. */
  requestsPerSec: number
  /** Median over the slices of the generator's CPU (cores) while loading this configuration. */
  generatorCpu: number
  slices: SliceCounts[]
}

export interface RequestFigures {
  request: string
  didvault: { workers1: ConfigurationFigures; workers2: ConfigurationFigures }
  floor: { workers1: ConfigurationFigures; workers2: ConfigurationFigures }
  /** Workers 2 rate ÷ workers 1 rate. */
  scaling: { didvault: number; floor: number }
  /** didvault's scaling ÷ the floor's (target ≥ 0.8). */
  scalingVsFloor: number
}

/** What both didvault servers store in. */
export type WorkersStorage = 'sqlite' | 'postgres'

export interface WorkersResults {
  storage: WorkersStorage
  /** The PostgreSQL server, when on PostgreSQL. */
  server?: string
  generator: string
  slices: typeof SLICE & { rounds: number; firstWarmupMs: number }
  requests: Record<RequestName, RequestFigures>
  totalMs: number
}

const stopper = (child: ChildProcess) => async () => {
  if (child.exitCode !== null || child.signalCode !== null) return
  child.kill('SIGTERM')
  await once(child, 'exit')
}

/** Starts `didvault serve --workers <workers>` on the storage of `env.DIDVAULT_STORAGE`. */
async function startDidvault(workers: number, env: NodeJS.ProcessEnv): Promise<Server> {
  const args = [CLI, 'serve', '--port', '0', '--workers', String(workers)]
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'inherit'] })
  const [, url] = await listening(child, /didvault listening on ([^\s"]+)/, `didvault serve --workers ${workers}`)
  return { url, stop: stopper(child) }
}

async function startFloor(workers: number, publicKeyHex: string): Promise<Server> {
  const child = fork(new URL('./workers-floor-server.ts', import.meta.url), [String(workers), publicKeyHex], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  })
  const [, port] = await listening(child, /^floor listening on (\d+)$/m, `the ${workers}-worker floor`)
  return { url: `http://127.0.0.1:${port}`, stop: stopper(child) }
}

/** The long-lived generator child; `run` measures one slice. */
function startGenerator(): { run(slice: Slice): Promise<SliceCounts>; stop(): Promise<void> } {
  const child = fork(new URL('./workers-load.ts', import.meta.url), [], { execArgv: ['--import', 'tsx'] })
  const exited = once(child, 'exit')
  return {
    run: (slice) =>
      new Promise((resolve, reject) => {
        child.once('message', (counts: SliceCounts) => resolve(counts))
        void exited.then(() => reject(new Error('bench: the load generator exited')))
        child.send(slice)
      }),
    stop: async () => {
      child.disconnect()
      await exited
    },
  }
}

/** 25 wallets, a DID-auth token of the first and one VC-JWT it signs, through the server at `url`; with the signer's public key. */
async function prepare(url: string, apiKey: string) {
  const api = createClient({ baseUrl: url, apiKey })
  const wallets = []
  for (let i = 0; i < 25; i++) wallets.push((await api.generateWallet({ wallet: { alias: `w${i}` } })).wallet)
  const did = wallets[0].did
  const { jwt: didAuth } = await api.generateToken({ iss: did, expiresIn: 3_600_000 })
  const [signed] = (
    await api.as({ authorization: `Bearer ${apiKey}`, didAuth }).signClaims({
      iss: did,
      format: 'JWT',
      claims: [{ payload: { member: true } }],
    })
  ).vcs
  if (!('jwt' in signed)) throw new Error('bench: expected a VC-JWT')
  const [data, signature] = [signed.jwt.slice(0, signed.jwt.lastIndexOf('.')), signed.jwt.split('.')[2]]
  const address = did.split(':').at(-1)!.toLowerCase()
  const signer = recoverEs256kKeys(data, Buffer.from(signature, 'base64url')).find((k) => k.address.toLowerCase() === address)
  if (!signer) throw new Error('bench: the VC-JWT is not signed by its issuer address')
  return { didAuth, vcJwt: signed.jwt, publicKeyHex: Buffer.from(signer.publicKey).toString('hex') }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}
const round = (n: number, digits: number) => Number(n.toFixed(digits))

function figures(slices: SliceCounts[]): ConfigurationFigures {
  return {
    requestsPerSec: round(median(slices.map((s) => s.requestsPerSec)), 1),
    generatorCpu: round(median(slices.map((s) => s.generatorCpu)), 3),
    slices,
  }
}

/** A SQLite file in a temporary directory, or a schema of a throw-away PostgreSQL server: `DIDVAULT_STORAGE`, and how to remove it. */
async function storageOf(storage: WorkersStorage): Promise<{ spec: string; server?: string; remove(): Promise<void> }> {
  if (storage === 'postgres') {
    const pg = await startTestPostgres('bench --workers', (line) => process.stderr.write(`${line}\n`))
    return { spec: `${pg.url}?schema=${pg.schema}`, server: pg.server, remove: () => pg.stop() }
  }
  const dir = mkdtempSync(join(tmpdir(), 'didvault-bench-workers-'))
  return { spec: `sqlite:${join(dir, 'workers.db')}`, remove: async () => rmSync(dir, { recursive: true, force: true }) }
}

export async function benchWorkers(storage: WorkersStorage = 'sqlite'): Promise<WorkersResults> {
  const started = Date.now()
  ensureBuilt()
  const { spec, server, remove } = await storageOf(storage)
  const apiKey = randomBytes(24).toString('base64url')
  const env = {
    ...process.env,
    NODE_OPTIONS: '',
    DIDVAULT_STORAGE: spec,
    DIDVAULT_MASTER_KEY: randomBytes(32).toString('hex'),
    DIDVAULT_API_KEYS: `bench:${apiKey}`,
  }
  const servers: Server[] = []
  const generator = startGenerator()
  try {
    const didvault1 = await startDidvault(1, env)
    servers.push(didvault1)
    const didvault2 = await startDidvault(2, env)
    servers.push(didvault2)
    const { didAuth, vcJwt, publicKeyHex } = await prepare(didvault1.url, apiKey)
    const floor1 = await startFloor(1, publicKeyHex)
    servers.push(floor1)
    const floor2 = await startFloor(2, publicKeyHex)
    servers.push(floor2)
    const base: Record<Configuration, string> = {
      didvault1: didvault1.url,
      didvault2: didvault2.url,
      floor1: floor1.url,
      floor2: floor2.url,
    }
    const headers = { authorization: `Bearer ${apiKey}`, 'x-did-auth': didAuth }
    const sliceOf = (request: RequestName, configuration: Configuration): Slice =>
      request === 'getWallets'
        ? { ...SLICE, url: `${base[configuration]}/wallets?limit=10`, method: 'GET', headers }
        : {
            ...SLICE,
            url: `${base[configuration]}/claims/verify`,
            method: 'POST',
            headers: { ...headers, 'content-type': 'application/json' },
            body: JSON.stringify({ claims: [{ jwt: vcJwt }] }),
          }
    const requests = {} as Record<RequestName, RequestFigures>
    for (const request of REQUESTS) {
      // Its counts (of a 100 ms run after the warm-up) are dropped.
      const warmUp = (configuration: Configuration) => ({ ...sliceOf(request, configuration), warmupMs: FIRST_WARMUP_MS, durationMs: 100 })
      for (const configuration of CONFIGURATIONS) await generator.run(warmUp(configuration))
      const slices = Object.fromEntries(CONFIGURATIONS.map((c) => [c, [] as SliceCounts[]])) as Record<Configuration, SliceCounts[]>
      for (let pass = 0; pass < ROUNDS; pass++) {
        const order = pass % 2 === 0 ? CONFIGURATIONS : [...CONFIGURATIONS].reverse()
        for (const configuration of order) {
          const counts = await generator.run(sliceOf(request, configuration))
          if (counts.failed > 0) throw new Error(`bench: ${request} on ${configuration}: ${counts.failed} requests failed`)
          slices[configuration].push(counts)
        }
      }
      const f = Object.fromEntries(CONFIGURATIONS.map((c) => [c, figures(slices[c])])) as Record<Configuration, ConfigurationFigures>
      const scaling = {
        didvault: round(f.didvault2.requestsPerSec / f.didvault1.requestsPerSec, 3),
        floor: round(f.floor2.requestsPerSec / f.floor1.requestsPerSec, 3),
      }
      requests[request] = {
        request:
          request === 'getWallets'
            ? 'GET /wallets?limit=10 (25 wallets), API key + DID-auth token'
            : 'POST /claims/verify of one VC-JWT (ES256K), API key + DID-auth token',
        didvault: { workers1: f.didvault1, workers2: f.didvault2 },
        floor: { workers1: f.floor1, workers2: f.floor2 },
        scaling,
        scalingVsFloor: round(scaling.didvault / scaling.floor, 3),
      }
      const line = (c: Configuration) => `${c} ${f[c].requestsPerSec}/s (generator ${f[c].generatorCpu} CPU)`
      process.stderr.write(
        `bench: workers ${storage} ${request}: ${CONFIGURATIONS.map(line).join(', ')}; scaling ${JSON.stringify(scaling)}\n`,
      )
    }
    const generatorName = 'autocannon 8 (one process, 16 connections)'
    const slices = { ...SLICE, rounds: ROUNDS, firstWarmupMs: FIRST_WARMUP_MS }
    return { storage, ...(server && { server }), generator: generatorName, slices, requests, totalMs: Date.now() - started }
  } finally {
    await generator.stop()
    for (const s of servers) await s.stop()
    await remove()
  }
}

// Standalone: `node --import tsx bench/workers.ts [sqlite|postgres ...]` (default: sqlite).
if (import.meta.url === `file://${process.argv[1]}`) {
  const storages = process.argv.length > 2 ? (process.argv.slice(2) as WorkersStorage[]) : (['sqlite'] as const)
  const results: Partial<Record<WorkersStorage, WorkersResults>> = {}
  for (const storage of storages) results[storage] = await benchWorkers(storage)
  process.stdout.write(`${JSON.stringify(results, null, 2)}\n`)
}
