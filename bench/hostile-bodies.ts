/**
 * Issue 28 finding 1: another tenant's small request (`GET /wallets` with its own Base Auth
 * Token) over real HTTP on 127.0.0.1 while 2 senders in a child process, authenticated as one
 * tenant, POST the worst 1 MiB bodies `limits.depth` admits to `/wallet` in a loop
 * (test/helpers/hostile-bodies.ts: chains nested to the limit, tens of thousands of keys,
 * hundreds of thousands of strings, U+0000 and lone surrogates last). Target: its p50 ÷ its p50
 * while the same senders send the same bodies to a floor instead — a bare `node:http` server in
 * the same process that reads each body, `JSON.parse`s it and answers 422 — in alternating
 * slices of the same run: ≤ 1.5. Its p50 alone is information (bench/flood.ts explains why alone
 * is no state a loaded server can reach: the senders share this machine's cores with it).
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'
import { createRouter } from '../src/http/router.js'
import { createMemoryStorage, IdentityService, randomMasterKey, staticTenants } from '../src/index.js'
import { authenticatedGet, floodSenders } from './flood.js'
import { measurePair, type MeasureOptions, type Measurement } from './measure.js'

const SENDER_KEY = 'bench-hostile-sender-0123456789'
const OTHER_KEY = 'bench-other-tenant-0123456789'
const SENDERS = 2
const BODY_BYTES = 1024 * 1024
/** The service's `limits.depth`: its default. */
const DEPTH = 64
/** Slices long enough for the senders to reach a steady state (a 1 MiB body takes tens of ms). */
const SLICE_MS = 500

export interface HostileBodiesResults {
  request: string
  senders: number
  bodyBytes: number
  depth: number
  /** The other tenant's GET while the senders send to didvault, in slices alternating with the floor's. */
  flooded: Measurement
  /** The same GET while the same senders send the same bodies to the floor instead. */
  floorFlooded: Measurement
  /** flooded p50 ÷ floorFlooded p50 (target ≤ 1.5). */
  p50RatioVsFloor: number
  /** The GET alone and under the senders again, interleaved (information). */
  alone: Measurement
  floodedVsAlone: Measurement
  /** floodedVsAlone p50 ÷ alone p50 (information). */
  p50RatioVsAlone: number
  /** What the senders to didvault got back, by status (every body is refused: 422). */
  statuses: Record<string, number>
}

/** The floor: reads the body, `JSON.parse`s it, and answers 422 with a small error body whatever it holds. */
async function floorServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const refused = JSON.stringify({ statusCode: 422, errorType: 'VALIDATION_ERROR', errorMessage: 'invalid request' })
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      try {
        JSON.parse(Buffer.concat(chunks).toString('utf8'))
      } catch {
        /* malformed: refused alike */
      }
      res.writeHead(422, { 'content-type': 'application/json; charset=utf-8', 'content-length': refused.length })
      res.end(refused)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

export async function benchHostileBodies(
  options: MeasureOptions,
): Promise<{ results: HostileBodiesResults; targets: HostileBodiesTarget[] }> {
  const service = await IdentityService.create({
    storage: createMemoryStorage(),
    masterKey: randomMasterKey(),
    tenants: staticTenants({ [SENDER_KEY]: 'sender', [OTHER_KEY]: 'other' }),
    limits: { depth: DEPTH },
  })
  const app = express()
  app.use('/identity', createRouter(service))
  const server = await new Promise<http.Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s))
  })
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/identity`
  const other = service.as({ authorization: `Bearer ${OTHER_KEY}` })
  for (let i = 0; i < 3; i++) await other.generateWallet({})
  const request = authenticatedGet(`${base}/wallets`, OTHER_KEY)
  const bounds = { senders: SENDERS, bodyBytes: BODY_BYTES, maxRequests: 100_000, maxMs: 240_000 }
  const sending = { authorization: `Bearer ${SENDER_KEY}`, depth: DEPTH }
  const senders = floodSenders({ url: `${base}/wallet`, ...bounds, ...sending })
  const floor = await floorServer()
  const floorSenders = floodSenders({ url: `${floor.url}/wallet`, ...bounds, ...sending })
  try {
    const label = 'HTTP: another tenant GET /wallets'
    const [flooded, floorFlooded] = await measurePair(
      { label: `${label}, ${SENDERS} senders of the worst bodies`, fn: request.fn, enter: senders.start, leave: senders.stop },
      { label: `${label}, the floor sent them instead`, fn: request.fn, enter: floorSenders.start, leave: floorSenders.stop },
      options,
      SLICE_MS,
    )
    const [alone, floodedVsAlone] = await measurePair(
      { label: `${label}, alone`, fn: request.fn },
      { label: `${label}, the senders again`, fn: request.fn, enter: senders.start, leave: senders.stop },
      options,
      SLICE_MS,
    )
    const p50RatioVsFloor = Number((flooded.p50Ms / floorFlooded.p50Ms).toFixed(3))
    const results: HostileBodiesResults = {
      request: "GET /wallets of another tenant (3 wallets), while one tenant's senders POST /wallet",
      senders: SENDERS,
      bodyBytes: BODY_BYTES,
      depth: DEPTH,
      flooded,
      floorFlooded,
      p50RatioVsFloor,
      alone,
      floodedVsAlone,
      p50RatioVsAlone: Number((floodedVsAlone.p50Ms / alone.p50Ms).toFixed(3)),
      statuses: senders.counts().statuses,
    }
    const target = { name: 'otherTenantP50UnderWorstAdmittedBodiesVsFloor', storage: 'memory', max: 1.5, actual: p50RatioVsFloor }
    return { results, targets: [{ ...target, pass: p50RatioVsFloor <= target.max }] }
  } finally {
    await senders.close()
    await floorSenders.close()
    request.close()
    await floor.close()
    await new Promise<void>((resolve) => server.close(() => resolve()))
    await service.close()
  }
}

/** The section's target, in the shape of bench/run.ts's. */
export interface HostileBodiesTarget {
  name: string
  storage: string
  max: number
  actual: number
  pass: boolean
}
