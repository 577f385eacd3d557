/**
 * What `didvault serve`'s observability costs (issue 21):
 *
 * - logging at `info`: authenticated `GET /wallets` over loopback HTTP from a separate client
 *   process (8 keep-alive connections), the server as `didvault serve` composes it (request-log
 *   middleware, metrics, timed storage), its logger switched between `info` (one JSON line per
 *   request, written synchronously to a file) and `silent` in alternating slices (ABBA order);
 *   throughput of each = requests arrived in its slices ÷ their time. Target: info ≥ 0.95 × silent.
 * - `/metrics` scrape latency with the registry filled to at least 10k samples (real operation
 *   names and statuses, then synthetic operations): p50 of `GET /metrics` over loopback. Target ≤ 10 ms.
 *
 * Standalone: `node --import tsx bench/observability.ts` prints its JSON.
 */
import { fork } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import express from 'express'
import { createRouter } from '../src/http/router.js'
import { createMemoryStorage, IdentityService, randomMasterKey } from '../src/index.js'
import { createLogger, logDestination } from '../src/observability/logger.js'
import { ServiceMetrics } from '../src/observability/metrics.js'
import { localMetrics, metricsRouter } from '../src/observability/metrics-route.js'
import { requestLog } from '../src/observability/request-log.js'
import { timedStorage } from '../src/observability/timed-storage.js'
import { CONTRACTS } from '../src/service/contracts.js'
import type { RateConfig, RateCounts } from './http-rate-sender.js'
import { measure, type MeasureOptions, type Measurement } from './measure.js'

const CONNECTIONS = 8
/** Logging on and off alternate in slices this long. */
const SLICE_MS = 250
/** Samples the scraped registry holds at least. */
const SCRAPE_SAMPLES = 10_000

export interface LoggingCostResults {
  request: string
  connections: number
  sliceMs: number
  /** Requests/s while the logger was at `info`, and at `silent`. */
  infoRequestsPerSec: number
  silentRequestsPerSec: number
  /** info ÷ silent (target ≥ 0.95: logging costs at most 5%). */
  throughputRatio: number
  /** Log lines written during the info slices (one per request). */
  linesWritten: number
  client: RateCounts
}

export interface ScrapeResults {
  /** Sample lines in the scrape (target: at least 10k). */
  samples: number
  bytes: number
  scrape: Measurement
}

export interface ObservabilityResults {
  loggingCost: LoggingCostResults
  metricsScrape: ScrapeResults
}

/** The client child of bench/client.ts's rate measurement; resolves to its counts. */
function sendRequests(config: RateConfig): Promise<RateCounts> {
  const child = fork(new URL('./http-rate-sender.ts', import.meta.url), [JSON.stringify(config)], { execArgv: ['--import', 'tsx'] })
  return new Promise((resolve, reject) => {
    let counts: RateCounts | undefined
    child.once('message', (m: RateCounts) => (counts = m))
    child.once('exit', (code) => (counts ? resolve(counts) : reject(new Error(`bench: the HTTP rate sender exited with ${code}`))))
  })
}

const listen = (app: express.Express) =>
  new Promise<http.Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s))
  })

export async function benchLoggingCost(options: MeasureOptions): Promise<LoggingCostResults> {
  const dir = mkdtempSync(join(tmpdir(), 'didvault-bench-log-'))
  const destination = logDestination(join(dir, 'serve.log'))
  const logger = await createLogger({ level: 'info' }, { out: destination, err: destination })
  let waiting = () => 0
  const metrics = new ServiceMetrics(() => waiting())
  const storage = timedStorage(createMemoryStorage(), (call, s) => metrics.storageCall(call, s))
  const service = await IdentityService.create({
    storage,
    masterKey: randomMasterKey(),
    onStatusListPublished: metrics.statusListPublished,
  })
  waiting = () => service.jsonldStats().waiting
  const { key } = await service.apiKeys!.create('bench', { label: 'bench' })
  const api = service.as({ authorization: `Bearer ${key}` })
  for (let i = 0; i < 3; i++) await api.generateWallet({})
  const app = express()
  app.disable('x-powered-by')
  app.use(requestLog(logger, metrics))
  app.use(createRouter(service))
  const server = await listen(app)
  const arrived = { info: 0, silent: 0 }
  const spent = { info: 0, silent: 0 }
  let mode: 'info' | 'silent' = 'info'
  let lines = 0
  let firstArrival!: () => void
  const arriving = new Promise<void>((resolve) => (firstArrival = resolve))
  server.on('request', () => {
    firstArrival()
    arrived[mode]++
    if (mode === 'info') lines++
  })
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/wallets`
  try {
    const client = sendRequests({
      url,
      headers: { authorization: `Bearer ${key}` },
      connections: CONNECTIONS,
      warmupMs: options.warmupMs,
      // 3 × the duration per level: the ratio is of two close figures, and this machine's load moves both.
      durationMs: 6 * options.durationMs,
    })
    // The client process takes a while to start: slices count from its first request and the end of its warm-up.
    await arriving
    await new Promise((resolve) => setTimeout(resolve, options.warmupMs))
    // Alternate until the client stops; the last partial slice is dropped.
    let done = false
    void client.finally(() => (done = true))
    const counted = { info: 0, silent: 0 }
    // ABBA order (info, silent, silent, info, …): whatever recurs with the slices' period falls on both alike.
    for (let slice = 0; !done; slice++) {
      mode = (slice >> 1) % 2 === slice % 2 ? 'info' : 'silent'
      logger.level = mode
      const before = arrived[mode]
      const start = performance.now()
      await new Promise((resolve) => setTimeout(resolve, SLICE_MS))
      if (done) break
      spent[mode] += performance.now() - start
      counted[mode] += arrived[mode] - before
    }
    const counts = await client
    if (Object.keys(counts.other).length > 0)
      throw new Error(`bench: GET /wallets answered other than 200: ${JSON.stringify(counts.other)}`)
    const rate = (m: 'info' | 'silent') => Number(((counted[m] * 1000) / spent[m]).toFixed(1))
    const results: LoggingCostResults = {
      request: 'GET /wallets, stored API key, 3 wallets; request log + metrics + timed storage as didvault serve composes them',
      connections: CONNECTIONS,
      sliceMs: SLICE_MS,
      infoRequestsPerSec: rate('info'),
      silentRequestsPerSec: rate('silent'),
      throughputRatio: Number((rate('info') / rate('silent')).toFixed(3)),
      linesWritten: lines,
      client: counts,
    }
    process.stderr.write(
      `bench: ${'HTTP GET /wallets, logging info vs silent'.padEnd(48)} ${results.infoRequestsPerSec} vs ${results.silentRequestsPerSec} ` +
        `req/s  ratio ${results.throughputRatio}\n`,
    )
    return results
  } finally {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
    await service.close()
    destination.destroy()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Fills `metrics` to at least {@link SCRAPE_SAMPLES} samples: every operation with several statuses, then synthetic operations. */
function fill(metrics: ServiceMetrics): void {
  const statuses = [200, 403, 404, 422, 500]
  for (const operation of Object.keys(CONTRACTS)) for (const status of statuses) metrics.request(operation, status, Math.random() / 10)
  for (const call of ['insert', 'insertMany', 'get', 'findOne', 'find', 'count', 'update', 'delete', 'deleteMany', 'increment'])
    for (let i = 0; i < 100; i++) metrics.storageCall(call, Math.random() / 100)
  // An operation is one counter sample per status + 16 of its histogram (13 buckets, +Inf, sum, count).
  const perOperation = statuses.length + 16
  const synthetic = Math.ceil(SCRAPE_SAMPLES / perOperation)
  for (let i = 0; i < synthetic; i++) for (const status of statuses) metrics.request(`synthetic${i}`, status, Math.random())
}

export async function benchMetricsScrape(options: MeasureOptions): Promise<ScrapeResults> {
  const metrics = new ServiceMetrics(() => 0)
  fill(metrics)
  const app = express()
  app.use(metricsRouter(localMetrics(metrics.registry)))
  const server = await listen(app)
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`
  let last = ''
  const scrape = () =>
    new Promise<void>((resolve, reject) => {
      http
        .get(url, { agent }, (res) => {
          let text = ''
          res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk))
          res.on('end', () => {
            last = text
            if (res.statusCode === 200) resolve()
            else reject(new Error(`bench: /metrics answered ${res.statusCode}`))
          })
        })
        .on('error', reject)
    })
  try {
    const measured = await measure({ label: `GET /metrics, ≥${SCRAPE_SAMPLES} samples`, fn: scrape }, options)
    const samples = last.split('\n').filter((line) => line !== '' && !line.startsWith('#')).length
    if (samples < SCRAPE_SAMPLES) throw new Error(`bench: the scrape holds ${samples} samples, fewer than ${SCRAPE_SAMPLES}`)
    return { samples, bytes: Buffer.byteLength(last), scrape: measured }
  } finally {
    agent.destroy()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

export async function benchObservability(options: MeasureOptions): Promise<ObservabilityResults> {
  return { loggingCost: await benchLoggingCost(options), metricsScrape: await benchMetricsScrape(options) }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const results = await benchObservability({ warmupMs: 500, durationMs: 2_000 })
  process.stdout.write(`${JSON.stringify(results, null, 2)}\n`)
}
