/**
 * Child process of the JSON-LD load measurement (bench/jsonld-load.ts): one client on one
 * kept-alive connection POSTing `/claims/verify` with the largest credential the default bounds
 * accept, one request at a time, each a different document (one number of it is the request's
 * serial), so no canonical hash is ever reused.
 *
 * Messages from the parent: `start` (answered with `started` once the first answer is in: the
 * loop is then in its steady state) and `stop` (answered with `stopped` and the counts, once the
 * request in flight is answered). Bounded by itself: after `maxRequests` requests, or `maxMs`
 * after it started, or when the parent disconnects, it stops sending and exits.
 */
import http from 'node:http'

export interface LoadConfig {
  url: string
  /** Base Auth Token and DID-auth token of the loading tenant. */
  token: string
  didAuth: string
  /** The request body, with `"__SERIAL__"` where each request puts its serial number. */
  template: string
  maxRequests: number
  maxMs: number
}

export interface LoadCounts {
  requests: number
  /** Answers by HTTP status. */
  statuses: Record<string, number>
  /** The first failed check of each answer (`proof` when the whole credential was processed). */
  checks: Record<string, number>
  /** Mean time of one verification, ms. */
  meanMs: number
}

export type LoadMessage = { type: 'started' } | ({ type: 'stopped' } & LoadCounts)

const config = JSON.parse(process.argv[2] ?? '') as LoadConfig
const deadline = Date.now() + config.maxMs
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
const counts: LoadCounts = { requests: 0, statuses: {}, checks: {}, meanMs: 0 }
let totalMs = 0
let running = false
let loop: Promise<void> = Promise.resolve()

const tally = (record: Record<string, number>, key: string) => (record[key] = (record[key] ?? 0) + 1)

function verifyOnce(): Promise<void> {
  counts.requests++
  const body = Buffer.from(config.template.replace('"__SERIAL__"', String(1_000_000 + counts.requests)))
  const headers = {
    'content-type': 'application/json',
    'content-length': body.length,
    authorization: `Bearer ${config.token}`,
    'x-did-auth': config.didAuth,
  }
  const started = performance.now()
  return new Promise((resolve) => {
    const req = http.request(config.url, { method: 'POST', agent, headers }, (res) => {
      let text = ''
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk))
      res.on('end', () => {
        totalMs += performance.now() - started
        tally(counts.statuses, String(res.statusCode))
        try {
          const answer = JSON.parse(text) as { vcs: Array<{ checks: Array<{ check: string; verified: boolean }> }> }
          const failed = answer.vcs[0].checks.find((c) => !c.verified)
          tally(counts.checks, failed?.check ?? 'none')
        } catch {
          tally(counts.checks, 'unreadable')
        }
        resolve()
      })
    })
    req.on('error', () => {
      tally(counts.statuses, 'error')
      resolve()
    })
    req.end(body)
  })
}

const sending = () => running && counts.requests < config.maxRequests && Date.now() < deadline

async function run(firstAnswer: () => void): Promise<void> {
  try {
    while (sending()) {
      await verifyOnce()
      firstAnswer()
    }
  } finally {
    firstAnswer()
  }
}

async function start(): Promise<void> {
  running = true
  await new Promise<void>((resolve) => {
    loop = run(resolve)
  })
  process.send?.({ type: 'started' } satisfies LoadMessage)
}

async function stop(): Promise<void> {
  running = false
  await loop
  process.send?.({ type: 'stopped', ...counts, meanMs: Number((totalMs / Math.max(1, counts.requests)).toFixed(1)) } satisfies LoadMessage)
}

async function exit(): Promise<void> {
  running = false
  await loop
  agent.destroy()
  if (process.connected) process.disconnect()
}

process.on('message', (message: 'start' | 'stop') => void (message === 'start' ? start() : stop()))
process.on('disconnect', () => void exit())
setTimeout(() => void exit(), config.maxMs).unref()
