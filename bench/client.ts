/**
 * `didvault/client` and the HTTP path it takes (issue 17):
 * - the client's overhead: a VC-JWT verified through the client over loopback HTTP (the router in
 *   this process, on memory storage) and through the embedded API, measured interleaved; their
 *   ratio is information, with no target;
 * - the rate of authenticated `GET /wallets?limit=10` answered by the router (API keys as
 *   `didvault serve` keeps them, stored hashed) to a separate client process holding several
 *   keep-alive connections (target ≥ 2,000/s on this machine).
 */
import { fork } from 'node:child_process'
import type http from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'
import { createClient } from '../src/client/index.js'
import { createRouter } from '../src/http/router.js'
import { createMemoryStorage, IdentityService, randomMasterKey, type StorageAdapter } from '../src/index.js'
import type { RateConfig, RateCounts } from './http-rate-sender.js'
import { measurePair, type MeasureOptions, type Measurement } from './measure.js'

export interface ClientOverheadResults {
  request: string
  embedded: Measurement
  client: Measurement
  /** Client p50 ÷ embedded p50 (information, no target). */
  p50Ratio: number
  /** Client ops/s ÷ embedded ops/s. */
  throughputRatio: number
}

export interface WalletsPageRateResults {
  request: string
  storage: string
  connections: number
  durationMs: number
  counts: RateCounts
}

/** The service behind the router on a loopback port, with one API key (stored hashed, as `didvault serve` keeps them). */
interface Served {
  service: IdentityService
  apiKey: string
  base: string
  close(): Promise<void>
}

async function served(storage: StorageAdapter): Promise<Served> {
  const service = await IdentityService.create({ storage, masterKey: randomMasterKey() })
  const { key: apiKey } = await service.apiKeys!.create('bench', { label: 'bench' })
  const app = express()
  app.disable('x-powered-by')
  app.use('/identity', createRouter(service))
  const server = await new Promise<http.Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s))
  })
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/identity`
  const close = async () => {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
    await service.close()
  }
  return { service, apiKey, base, close }
}

export async function benchClientOverhead(options: MeasureOptions): Promise<ClientOverheadResults> {
  const { service, apiKey, base, close } = await served(createMemoryStorage())
  try {
    const authorization = `Bearer ${apiKey}`
    const { wallet } = await service.as({ authorization }).generateWallet({})
    const { jwt: didAuth } = await service.as({ authorization }).generateToken({ iss: wallet.did })
    const embedded = service.as({ authorization, didAuth })
    const client = createClient({ baseUrl: base, apiKey, didAuth })
    const [signed] = (await embedded.signClaims({ iss: wallet.did, format: 'JWT', claims: [{ payload: { member: true } }] })).vcs
    if (!('jwt' in signed)) throw new Error('bench: expected a VC-JWT')
    const input = { claims: [{ jwt: signed.jwt }] }
    for (const api of [embedded, client]) {
      if (!(await api.verifyClaims(input)).vcs[0].verified) throw new Error('bench: the VC-JWT does not verify')
    }
    const verify = (api: Pick<typeof embedded, 'verifyClaims'>) => async () => {
      if (!(await api.verifyClaims(input)).vcs[0].verified) throw new Error('bench: the VC-JWT does not verify')
    }
    const [e, c] = await measurePair(
      { label: 'verify VC-JWT, embedded API', fn: verify(embedded) },
      { label: 'verify VC-JWT, didvault/client over HTTP', fn: verify(client) },
      options,
    )
    return {
      request: 'verifyClaims of one VC-JWT (POST /claims/verify), Base Auth Token + DID-auth token',
      embedded: e,
      client: c,
      p50Ratio: Number((c.p50Ms / e.p50Ms).toFixed(3)),
      throughputRatio: Number((c.opsPerSec / e.opsPerSec).toFixed(3)),
    }
  } finally {
    await close()
  }
}

/** Runs the sender child with `config`; resolves to its counts. */
function sendRequests(config: RateConfig): Promise<RateCounts> {
  const child = fork(new URL('./http-rate-sender.ts', import.meta.url), [JSON.stringify(config)], { execArgv: ['--import', 'tsx'] })
  return new Promise((resolve, reject) => {
    let counts: RateCounts | undefined
    child.once('message', (m: RateCounts) => (counts = m))
    child.once('exit', (code) => {
      if (counts) resolve(counts)
      else reject(new Error(`bench: the HTTP rate sender exited with ${code} before reporting`))
    })
  })
}

export async function benchWalletsPageRate(
  label: string,
  storage: StorageAdapter,
  options: MeasureOptions,
): Promise<WalletsPageRateResults> {
  const { service, apiKey, base, close } = await served(storage)
  try {
    const api = service.as({ authorization: `Bearer ${apiKey}` })
    for (let i = 0; i < 25; i++) await api.generateWallet({ wallet: { alias: `w${i}` } })
    const connections = 16
    const url = `${base}/wallets?limit=10`
    const counts = await sendRequests({ url, headers: { authorization: `Bearer ${apiKey}` }, connections, ...options })
    const name = `HTTP GET /wallets?limit=10 (${label}), ${connections} connections`.padEnd(48)
    const rate = String(counts.requestsPerSec).padStart(9)
    process.stderr.write(`bench: ${name} ${rate} req/s  p50 ${counts.p50Ms} ms  p99 ${counts.p99Ms} ms\n`)
    if (Object.keys(counts.other).length > 0) {
      throw new Error(`bench: GET /wallets answered other than 200: ${JSON.stringify(counts.other)}`)
    }
    const request = 'GET /wallets?limit=10, valid API key, 25 wallets (10 per page)'
    return { request, storage: label, connections, durationMs: options.durationMs, counts }
  } finally {
    await close()
  }
}
