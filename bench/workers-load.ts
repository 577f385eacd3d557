/**
 * Load generator child of the `--workers` bench (bench/workers.ts): stays up and, for each
 * {@link Slice} the parent sends over IPC, runs autocannon (in this process) against it —
 * first `warmupMs` uncounted, then `durationMs` counted — and answers with the slice's
 * {@link SliceCounts}, including this process's CPU over the counted run (the generator shares
 * the machine's cores with the servers it loads). The parent disconnecting ends it.
 */
import { performance } from 'node:perf_hooks'
import autocannon from 'autocannon'

export interface Slice {
  url: string
  method: 'GET' | 'POST'
  headers: Record<string, string>
  body?: string
  connections: number
  warmupMs: number
  durationMs: number
}

export interface SliceCounts {
  /** 2xx answers per second of the counted run. */
  requestsPerSec: number
  /** Answers other than 2xx, errors and timeouts in the counted run. */
  failed: number
  p50Ms: number
  p99Ms: number
  /** This process's user + system CPU over the counted run ÷ its wall time (1 = one core busy). */
  generatorCpu: number
}

const run = (slice: Slice, ms: number) =>
  autocannon({
    url: slice.url,
    method: slice.method,
    headers: slice.headers,
    body: slice.body,
    connections: slice.connections,
    duration: ms / 1000,
  })

async function measure(slice: Slice): Promise<SliceCounts> {
  await run(slice, slice.warmupMs)
  const cpu = process.cpuUsage()
  const start = performance.now()
  const result = await run(slice, slice.durationMs)
  const wallMs = performance.now() - start
  const used = process.cpuUsage(cpu)
  return {
    requestsPerSec: Number(((result['2xx'] * 1000) / wallMs).toFixed(1)),
    failed: result.non2xx + result.errors + result.timeouts,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    generatorCpu: Number(((used.user + used.system) / 1000 / wallMs).toFixed(3)),
  }
}

process.on('message', (slice: Slice) => {
  measure(slice).then(
    (counts) => process.send!(counts),
    (err: unknown) => {
      console.error(err)
      process.exit(1)
    },
  )
})
