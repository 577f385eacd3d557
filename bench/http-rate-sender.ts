/**
 * Child process of the HTTP rate measurement (bench/client.ts): `connections` keep-alive
 * connections, each sending `GET url` with `headers` one request at a time — request, response,
 * next — for `warmupMs` (not counted) and then `durationMs`; then it sends its counts to the
 * parent and exits. Bounded by time alone.
 */
import http from 'node:http'
import { performance } from 'node:perf_hooks'

export interface RateConfig {
  url: string
  headers: Record<string, string>
  connections: number
  warmupMs: number
  durationMs: number
}

export interface RateCounts {
  /** Requests answered 200 in the measured window. */
  ok: number
  /** Other answers and failed requests in the measured window, by status (`error` for no answer). */
  other: Record<string, number>
  requestsPerSec: number
  p50Ms: number
  p99Ms: number
}

const config = JSON.parse(process.argv[2] ?? '') as RateConfig
const agent = new http.Agent({ keepAlive: true, maxSockets: config.connections })

/** One request; resolves to its status (0: no answer) once the body is read. */
function get(): Promise<number> {
  return new Promise((resolve) => {
    http
      .get(config.url, { agent, headers: config.headers }, (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode ?? 0))
        res.on('error', () => resolve(0))
      })
      .on('error', () => resolve(0))
  })
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? 0

async function main(): Promise<void> {
  const start = performance.now()
  const measureFrom = start + config.warmupMs
  const end = measureFrom + config.durationMs
  const durations: number[] = []
  const other: Record<string, number> = {}
  const connection = async () => {
    for (let t = performance.now(); t < end;) {
      const status = await get()
      const after = performance.now()
      if (t >= measureFrom) {
        if (status === 200) durations.push(after - t)
        else other[status === 0 ? 'error' : String(status)] = (other[status === 0 ? 'error' : String(status)] ?? 0) + 1
      }
      t = after
    }
  }
  await Promise.all(Array.from({ length: config.connections }, connection))
  agent.destroy()
  durations.sort((a, b) => a - b)
  const counts: RateCounts = {
    ok: durations.length,
    other,
    requestsPerSec: Number(((durations.length * 1000) / config.durationMs).toFixed(1)),
    p50Ms: Number(percentile(durations, 0.5).toFixed(3)),
    p99Ms: Number(percentile(durations, 0.99).toFixed(3)),
  }
  process.send?.(counts)
  process.disconnect?.()
}

void main()
