/**
 * An authenticated small request (`GET /wallets` with a valid Base Auth Token) over real HTTP
 * on 127.0.0.1, timed alone and while 8 senders in a child process keep POSTing 1 MiB bodies
 * without a valid token, in alternating slices so machine load affects both alike. Issue #8
 * target: the p50 under the flood stays within 1.5x of the p50 alone.
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
  /** Flooded p50 ÷ alone p50 (target ≤ 1.5). */
  p50Ratio: number
  /** What the senders sent in all (warm-up included) and what came back. */
  flood: FloodCounts
}

/** The sender process, driven by `start`/`stop` messages; each resolves on the child's answer. */
function floodSenders(config: FloodConfig) {
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

/** `GET url` with the Base Auth Token over one kept-alive connection; rejects unless 200. */
function authenticatedGet(url: string): { fn: () => Promise<void>; close: () => void } {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  const fn = () =>
    new Promise<void>((resolve, reject) => {
      http
        .get(url, { agent, headers: { authorization: `Bearer ${API_KEY}` } }, (res) => {
          res.resume()
          res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`bench: GET /wallets answered ${res.statusCode}`))))
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
  const flood = floodSenders({ url: `${base}/wallet`, senders: SENDERS, bodyBytes: BODY_BYTES, maxRequests: 50_000, maxMs: 120_000 })
  try {
    const label = 'HTTP: authenticated GET /wallets'
    const [alone, flooded] = await measurePair(
      { label: `${label}, alone`, fn: request.fn },
      { label: `${label}, ${SENDERS} unauthenticated 1 MiB senders`, fn: request.fn, enter: flood.start, leave: flood.stop },
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
      flood: flood.counts(),
    }
  } finally {
    await flood.close()
    request.close()
    await new Promise<void>((resolve) => server.close(() => resolve()))
    await service.close()
  }
}
