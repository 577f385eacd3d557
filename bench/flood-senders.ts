/**
 * Child process of the flood measurement (bench/flood.ts): `senders` clients, each POSTing a
 * JSON body of `bodyBytes` to `url` without a valid Base Auth Token (half send none, half an
 * unknown one), one request at a time — request, response, next — while the parent says so.
 * With `authorization` (bench/hostile-bodies.ts), every sender sends that header instead and
 * cycles through the worst bodies a server with `limits.depth` = `depth` admits
 * (test/helpers/hostile-bodies.ts).
 *
 * Messages from the parent: `start` (answered with `started` once every sender has had a
 * response) and `stop` (answered with `stopped` and the counts so far, once every sender is
 * idle). Bounded by itself: after `maxRequests` requests, or `maxMs` after it started, or when
 * the parent disconnects, it stops sending and exits.
 */
import http from 'node:http'
import { worstAdmittedBodies } from '../test/helpers/hostile-bodies.js'

export interface FloodConfig {
  url: string
  senders: number
  bodyBytes: number
  maxRequests: number
  maxMs: number
  /** Every sender's `Authorization` header, and the worst admitted bodies instead of one long alias. */
  authorization?: string
  /** `limits.depth` of the server, for the worst admitted bodies. */
  depth?: number
}

export interface FloodCounts {
  requests: number
  /** Responses by HTTP status. */
  statuses: Record<string, number>
  /** Requests that ended without a response (e.g. the server closed the connection mid-body). */
  errors: number
}

export type FloodMessage = { type: 'started' } | ({ type: 'stopped' } & FloodCounts)

const config = JSON.parse(process.argv[2] ?? '') as FloodConfig
const deadline = Date.now() + config.maxMs
const prefix = '{"wallet":{"alias":"'
const suffix = '"}}'
const bodies =
  config.authorization === undefined
    ? [Buffer.from(prefix + 'x'.repeat(config.bodyBytes - prefix.length - suffix.length) + suffix)]
    : worstAdmittedBodies(config.bodyBytes, config.depth ?? 64).map((b) => Buffer.from(b.text))
const agent = new http.Agent({ keepAlive: true, maxSockets: config.senders })
const counts: FloodCounts = { requests: 0, statuses: {}, errors: 0 }
let running = false
let senders: Promise<void>[] = []

function send(sender: number): Promise<void> {
  const body = bodies[(counts.requests + sender) % bodies.length]
  counts.requests++
  const headers: http.OutgoingHttpHeaders = { 'content-type': 'application/json', 'content-length': body.length }
  if (config.authorization !== undefined) headers.authorization = config.authorization
  else if (sender % 2 === 1) headers.authorization = `Bearer unknown-${sender}-0123456789abcdef`
  return new Promise((resolve) => {
    const req = http.request(config.url, { method: 'POST', agent, headers }, (res) => {
      counts.statuses[res.statusCode ?? 0] = (counts.statuses[res.statusCode ?? 0] ?? 0) + 1
      res.resume()
      res.on('end', resolve)
      res.on('error', () => resolve())
    })
    req.on('error', () => {
      counts.errors++
      resolve()
    })
    req.end(body)
  })
}

const sending = () => running && counts.requests < config.maxRequests && Date.now() < deadline

async function sender(i: number, firstResponse: () => void): Promise<void> {
  try {
    while (sending()) {
      await send(i)
      firstResponse()
    }
  } finally {
    firstResponse()
  }
}

async function start(): Promise<void> {
  running = true
  const first: Promise<void>[] = []
  senders = Array.from({ length: config.senders }, (_, i) => {
    let done!: () => void
    first.push(new Promise<void>((resolve) => (done = resolve)))
    return sender(i, done)
  })
  await Promise.all(first)
  process.send?.({ type: 'started' } satisfies FloodMessage)
}

async function stop(): Promise<void> {
  running = false
  await Promise.all(senders)
  process.send?.({ type: 'stopped', ...counts } satisfies FloodMessage)
}

async function exit(): Promise<void> {
  running = false
  await Promise.all(senders)
  agent.destroy()
  if (process.connected) process.disconnect()
}

process.on('message', (message: 'start' | 'stop') => void (message === 'start' ? start() : stop()))
process.on('disconnect', () => void exit())
setTimeout(() => void exit(), config.maxMs).unref()
