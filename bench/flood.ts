/**
 * An authenticated small request (`GET /wallets` with a valid Base Auth Token) over real HTTP
 * on 127.0.0.1, timed alone and while 8 senders in a child process keep POSTing 1 MiB bodies
 * without a valid token, in alternating slices so machine load affects both alike. Issue #8
 * figure (now information): the p50 under the flood ÷ the p50 alone. Issue 21 target: the same
 * flooded p50 ÷ its p50 while the same 8 senders flood instead a floor — a bare `node:http`
 * server in the same process answering every request 403 without reading its body — in
 * alternating slices of the same run; ≤ 1.3. (The senders share this machine's cores with the
 * server, so "alone" was never a state a flooded server could reach; the floor is what any
 * node:http server refusing the same flood in this process costs.)
 */
import { fork, type ChildProcess } from 'node:child_process'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'
import { createRouter } from '../src/http/router.js'
import { createMemoryStorage, IdentityService, randomMasterKey, staticTenants } from '../src/index.js'
import type { FloodConfig, FloodCounts, FloodMessage } from './flood-senders.js'
import { measurePair, type MeasureOptions, type Measurement } from './measure.js'

const API_KEY = 'bench-api-key-0123456789'
const SENDERS = 8
const BODY_BYTES = 1024 * 1024
/** Alone and flooded alternate in slices this long: long enough for the flood to reach a steady state. */
const SLICE_MS = 500

export interface FloodResults {
  request: string
  senders: number
  bodyBytes: number
  alone: Measurement
  flooded: Measurement
  /** Flooded p50 ÷ alone p50 (information; issue 8's target was ≤ 1.5). */
  p50Ratio: number
  /** The authenticated GET while the senders flood the floor, measured interleaved with `floodedAgain`. */
  floorFlooded: Measurement
  /** The authenticated GET while the senders flood didvault, in the slices alternating with the floor's. */
  floodedAgain: Measurement
  /** floodedAgain p50 ÷ floorFlooded p50 (target ≤ 1.3). */
  p50RatioVsFloor: number
  /** What the senders sent in all (warm-up included) and what came back. */
  flood: FloodCounts
}

/** The sender process, driven by `start`/`stop` messages; each resolves on the child's answer. */
export function floodSenders(config: FloodConfig) {
  const child: ChildProcess = fork(new URL('./flood-senders.ts', import.meta.url), [JSON.stringify(config)], {
    execArgv: ['--import', 'tsx'],
  })
  let counts: FloodCounts = { requests: 0, statuses: {}, errors: 0 }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const ask = (message: 'start' | 'stop', answer: FloodMessage['type']) =>
    new Promise<void>((resolve, reject) => {
      const onMessage = (m: FloodMessage) => {
        if (m.type !== answer) return
        if (m.type === 'stopped') counts = { requests: m.requests, statuses: m.statuses, errors: m.errors }
        child.off('message', onMessage)
        resolve()
      }
      child.on('message', onMessage)
      void exited.then(() => reject(new Error('bench: the flood senders exited early (request or time bound reached)')))
      child.send(message)
    })
  return {
    start: () => ask('start', 'started'),
    stop: () => ask('stop', 'stopped'),
    counts: () => counts,
    /** Disconnecting tells the child to finish; resolves when it has exited. */
    close: () => {
      if (child.connected) child.disconnect()
      return exited
    },
  }
}

/**
 * The floor: answers every request 403 with a small JSON body, without reading the request's
 * body, closing the connection when a body is left unread (as the router does).
 */
async function floorServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const body = JSON.stringify({ statusCode: 403, errorType: 'UNAUTHENTICATED', errorMessage: 'missing Base Auth Token' })
  const server = http.createServer((req, res) => {
    const headers: http.OutgoingHttpHeaders = { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length }
    if (!req.complete) headers.connection = 'close'
    res.writeHead(403, headers)
    res.end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url,
    close: () => {
      server.closeAllConnections()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** `GET url` with the Base Auth Token `apiKey` over one kept-alive connection; rejects unless 200. */
export function authenticatedGet(url: string, apiKey = API_KEY): { fn: () => Promise<void>; close: () => void } {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  const fn = () =>
    new Promise<void>((resolve, reject) => {
      http
        .get(url, { agent, headers: { authorization: `Bearer ${apiKey}` } }, (res) => {
          res.resume()
          res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`bench: GET ${url} answered ${res.statusCode}`))))
        })
        .on('error', reject)
    })
  return { fn, close: () => agent.destroy() }
}

export async function benchUnauthenticatedFlood(options: MeasureOptions): Promise<FloodResults> {
  const service = await IdentityService.create({
    storage: createMemoryStorage(),
    masterKey: randomMasterKey(),
    tenants: staticTenants({ [API_KEY]: 'bench' }),
  })
  const app = express()
  app.use('/identity', createRouter(service))
  const server = await new Promise<http.Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s))
  })
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/identity`
  const api = service.as({ authorization: `Bearer ${API_KEY}` })
  for (let i = 0; i < 3; i++) await api.generateWallet({})
  const request = authenticatedGet(`${base}/wallets`)
  // Bounds well above what the slices need (about 5 s of flood at a few hundred requests/s).
  const bounds = { senders: SENDERS, bodyBytes: BODY_BYTES, maxRequests: 100_000, maxMs: 240_000 }
  const flood = floodSenders({ url: `${base}/wallet`, ...bounds })
  const floor = await floorServer()
  const floorFlood = floodSenders({ url: `${floor.url}/wallet`, ...bounds })
  try {
    const label = 'HTTP: authenticated GET /wallets'
    const [alone, flooded] = await measurePair(
      { label: `${label}, alone`, fn: request.fn },
      { label: `${label}, ${SENDERS} unauthenticated 1 MiB senders`, fn: request.fn, enter: flood.start, leave: flood.stop },
      options,
      SLICE_MS,
    )
    const [floodedAgain, floorFlooded] = await measurePair(
      { label: `${label}, flooded (vs the floor)`, fn: request.fn, enter: flood.start, leave: flood.stop },
      { label: `${label}, the floor flooded instead`, fn: request.fn, enter: floorFlood.start, leave: floorFlood.stop },
      options,
      SLICE_MS,
    )
    return {
      request: 'GET /wallets, valid Base Auth Token, 3 wallets',
      senders: SENDERS,
      bodyBytes: BODY_BYTES,
      alone,
      flooded,
      p50Ratio: Number((flooded.p50Ms / alone.p50Ms).toFixed(3)),
      floorFlooded,
      floodedAgain,
      p50RatioVsFloor: Number((floodedAgain.p50Ms / floorFlooded.p50Ms).toFixed(3)),
      flood: flood.counts(),
    }
  } finally {
    await flood.close()
    await floorFlood.close()
    request.close()
    await floor.close()
    await new Promise<void>((resolve) => server.close(() => resolve()))
    await service.close()
  }
}
