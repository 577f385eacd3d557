/**
 * Load generator child of the one-tenant scaling bench (bench/one-tenant.ts): stays up and, for
 * each {@link TenantSlice} the parent sends over IPC, runs closed-loop clients against it — each
 * client sends its next request when its previous one is answered, as its tenant (API key, and a
 * DID-auth token for stores) — first `warmupMs` uncounted, then `durationMs` counted, and answers
 * with the slice's {@link TenantSliceCounts}. Every credential stored is a fresh VC-JWT (a stored
 * copy would be deduplicated, not written). The parent disconnecting ends it.
 */
import { Agent, request } from 'node:http'
import { performance } from 'node:perf_hooks'
import { vcJwt } from './credentials.js'

/** One closed-loop client: the tenant it acts as. */
export interface TenantClient {
  apiKey: string
  /** A DID-auth token of a wallet of the tenant, and its DID (the VCs' issuer): for stores. */
  didAuth: string
  did: string
}

export interface TenantSlice {
  url: string
  request: 'createWallet' | 'storeCredential'
  clients: TenantClient[]
  warmupMs: number
  durationMs: number
}

export interface TenantSliceCounts {
  /** 2xx answers per second of the counted run (requests sent and answered inside it). */
  requestsPerSec: number
  /** 2xx answers counted. */
  ok: number
  /** Other answers and errors in the counted run. */
  failed: number
  meanMs: number
  p50Ms: number
  p95Ms: number
}

const agent = new Agent({ keepAlive: true, maxSockets: 256 })

/** One request; resolves to its HTTP status (0 on a transport error). */
function send(slice: TenantSlice, client: TenantClient): Promise<number> {
  const wallet = slice.request === 'createWallet'
  const body = JSON.stringify(wallet ? {} : { claims: [{ jwt: vcJwt(client.did) }] })
  const headers: Record<string, string | number> = {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    authorization: `Bearer ${client.apiKey}`,
  }
  if (!wallet) headers['x-did-auth'] = client.didAuth
  return new Promise((resolve) => {
    const req = request(`${slice.url}${wallet ? '/wallet' : '/claims'}`, { method: 'POST', agent, headers }, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode ?? 0))
      res.on('error', () => resolve(0))
    })
    req.on('error', () => resolve(0))
    req.end(body)
  })
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]
const round = (n: number) => Number(n.toFixed(2))

async function measure(slice: TenantSlice): Promise<TenantSliceCounts> {
  const start = performance.now()
  const countFrom = start + slice.warmupMs
  const end = countFrom + slice.durationMs
  const latencies: number[] = []
  let failed = 0
  await Promise.all(
    slice.clients.map(async (client) => {
      while (performance.now() < end) {
        const sent = performance.now()
        const status = await send(slice, client)
        const answered = performance.now()
        if (sent < countFrom || answered > end) continue
        if (status >= 200 && status < 300) latencies.push(answered - sent)
        else failed += 1
      }
    }),
  )
  latencies.sort((a, b) => a - b)
  const mean = latencies.reduce((sum, l) => sum + l, 0) / Math.max(1, latencies.length)
  return {
    requestsPerSec: round((latencies.length * 1000) / slice.durationMs),
    ok: latencies.length,
    failed,
    meanMs: round(mean),
    p50Ms: round(percentile(latencies, 0.5)),
    p95Ms: round(percentile(latencies, 0.95)),
  }
}

process.on('message', (slice: TenantSlice) => {
  measure(slice).then(
    (counts) => process.send!(counts),
    (err: unknown) => {
      console.error(err)
      process.exit(1)
    },
  )
})
