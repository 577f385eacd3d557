/**
 * A small authenticated request (`GET /wallets`, valid Base Auth Token) over real HTTP on
 * 127.0.0.1, timed alone and while another tenant's connection (a child process) verifies, in
 * a loop, the largest JSON-LD credential the default bounds accept, in alternating slices.
 * Issue 16 target: the p50 under that load stays within 2x of the p50 alone.
 *
 * The credential has exactly `maxNodes` values in the costliest shape known: arrays of
 * `maxArrayLength` numbers, all values of one property of one node (jsonld de-duplicates a
 * property's values pairwise). It is signed once; each verification changes one number, so
 * no canonical hash is reused: each is the whole work (canonicalization in a worker, then the
 * signature, which then does not match — the answer is a 200 with the failed check `proof`,
 * which the bench asserts: the credential was processed to the end, not refused).
 */
import { fork, type ChildProcess } from 'node:child_process'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'
import { createRouter } from '../src/http/router.js'
import { DEFAULT_JSONLD_LIMITS, measureJsonLd } from '../src/proofs/jsonld/bounds.js'
import { createMemoryStorage, IdentityService, randomMasterKey, staticTenants } from '../src/index.js'
import type { LoadConfig, LoadCounts, LoadMessage } from './jsonld-load-sender.js'
import { measurePair, type MeasureOptions, type Measurement } from './measure.js'

const API_KEY = 'bench-jsonld-api-key-0123456789'
const LOAD_KEY = 'bench-jsonld-load-api-key-0123456789'
/** Alone and loaded alternate in slices this long: a verification of the credential takes about a second. */
const SLICE_MS = 3_000
const VOCAB_URL = 'https://example.com/contexts/bench-vocab/v1'
const SERIAL = '__SERIAL__'

type Signed = { jsonld: Record<string, unknown> }

export interface JsonLdLoadResults {
  request: string
  credential: { values: number; bytes: number; longestArray: number; bounds: typeof DEFAULT_JSONLD_LIMITS }
  alone: Measurement
  underLoad: Measurement
  /** Under load p50 ÷ alone p50 (target ≤ 2). */
  p50Ratio: number
  load: LoadCounts
  pool: ReturnType<IdentityService['jsonldStats']>
}

/** The loading child, driven by `start`/`stop` messages; each resolves on the child's answer. */
function loader(config: LoadConfig) {
  const sender = new URL('./jsonld-load-sender.ts', import.meta.url)
  const child: ChildProcess = fork(sender, [JSON.stringify(config)], { execArgv: ['--import', 'tsx'] })
  let counts: LoadCounts = { requests: 0, statuses: {}, checks: {}, meanMs: 0 }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const ask = (message: 'start' | 'stop', answer: LoadMessage['type']) =>
    new Promise<void>((resolve, reject) => {
      const onMessage = (m: LoadMessage) => {
        if (m.type !== answer) return
        if (m.type === 'stopped') counts = { requests: m.requests, statuses: m.statuses, checks: m.checks, meanMs: m.meanMs }
        child.off('message', onMessage)
        resolve()
      }
      child.on('message', onMessage)
      void exited.then(() => reject(new Error('bench: the JSON-LD loader exited early (request or time bound reached)')))
      child.send(message)
    })
  return {
    start: () => ask('start', 'started'),
    stop: () => ask('stop', 'stopped'),
    counts: () => counts,
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

/**
 * The payload whose credential, signed, has exactly `maxNodes` values: `items` of one node,
 * each with `maxArrayLength` numbers, the last filling up to the bound.
 */
function largestPayload(signedWithoutItems: Record<string, unknown>): { items: Array<{ id: string; nums: number[] }> } {
  const { maxNodes, maxArrayLength } = DEFAULT_JSONLD_LIMITS
  let room = maxNodes - (measureJsonLd(signedWithoutItems, DEFAULT_JSONLD_LIMITS) as number)
  const items: Array<{ id: string; nums: number[] }> = []
  // An item is 3 values (itself, its id, its array) and its numbers.
  for (let k = 0; room > 3; k++) {
    const n = Math.min(maxArrayLength, room - 3)
    items.push({ id: 'did:example:holder', nums: Array.from({ length: n }, (_, i) => k * maxArrayLength + i) })
    room -= 3 + n
  }
  return { items }
}

export async function benchJsonLdLoad(options: MeasureOptions): Promise<JsonLdLoadResults> {
  const tenants = staticTenants({ [API_KEY]: 'bench', [LOAD_KEY]: 'bench-load' })
  const contexts = { [VOCAB_URL]: { '@context': { '@version': 1.1, '@vocab': 'https://example.com/vocab#' } } }
  const service = await IdentityService.create({ storage: createMemoryStorage(), masterKey: randomMasterKey(), tenants, contexts })
  const app = express()
  app.use('/identity', createRouter(service))
  const server = await new Promise<http.Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s))
  })
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/identity`
  const api = service.as({ authorization: `Bearer ${API_KEY}` })
  for (let i = 0; i < 3; i++) await api.generateWallet({})

  const loading = service.as({ authorization: `Bearer ${LOAD_KEY}` })
  const issuer = (await loading.generateWallet({})).wallet.did
  const didAuth = (await loading.generateToken({ iss: issuer })).jwt
  const asIssuer = service.as({ authorization: `Bearer ${LOAD_KEY}`, didAuth })
  const sign = async (payload: Record<string, unknown>) => {
    const signed = await asIssuer.signClaims({ iss: issuer, context: VOCAB_URL, claims: [{ id: 'urn:example:largest', payload }] })
    return (signed.vcs[0] as Signed).jsonld
  }
  const probe = await sign({ items: [] })
  process.stderr.write('bench: signing the largest JSON-LD credential the default bounds accept\n')
  const largest = await sign(largestPayload(probe))
  const values = measureJsonLd(largest, DEFAULT_JSONLD_LIMITS)
  if (values !== DEFAULT_JSONLD_LIMITS.maxNodes) throw new Error(`bench: the largest credential has ${String(values)} values, not maxNodes`)
  const body = JSON.stringify({ claims: [{ jsonld: largest }] })
  // The last number of the last array becomes each request's serial.
  const template = body.replace(/(\d+)(\]\}\]\},"proof")/, `"${SERIAL}"$2`)
  if (!template.includes(SERIAL)) throw new Error('bench: no number to vary in the largest credential')

  const request = authenticatedGet(`${base}/wallets`)
  const load = loader({ url: `${base}/claims/verify`, token: LOAD_KEY, didAuth, template, maxRequests: 2_000, maxMs: 600_000 })
  try {
    const label = 'HTTP: authenticated GET /wallets'
    const [alone, underLoad] = await measurePair(
      { label: `${label}, alone`, fn: request.fn },
      { label: `${label}, largest JSON-LD verify looping`, fn: request.fn, enter: load.start, leave: load.stop },
      options,
      SLICE_MS,
    )
    const counts = load.counts()
    const only = (record: Record<string, number>, key: string) => Object.keys(record).every((k) => k === key)
    const processed = only(counts.statuses, '200') && only(counts.checks, 'proof')
    if (!processed) {
      throw new Error(`bench: the largest credential was not processed to the end every time: ${JSON.stringify(counts)}`)
    }
    return {
      request: 'GET /wallets, valid Base Auth Token, 3 wallets',
      credential: {
        values,
        bytes: Buffer.byteLength(JSON.stringify(largest)),
        longestArray: DEFAULT_JSONLD_LIMITS.maxArrayLength,
        bounds: DEFAULT_JSONLD_LIMITS,
      },
      alone,
      underLoad,
      p50Ratio: Number((underLoad.p50Ms / alone.p50Ms).toFixed(3)),
      load: counts,
      pool: service.jsonldStats(),
    }
  } finally {
    await load.close()
    request.close()
    await new Promise<void>((resolve) => server.close(() => resolve()))
    await service.close()
  }
}

// Standalone: `node --import tsx bench/jsonld-load.ts`.
if (import.meta.url === `file://${process.argv[1]}`) {
  const results = await benchJsonLdLoad({ warmupMs: 3_000, durationMs: 12_000 })
  process.stdout.write(`${JSON.stringify(results, null, 2)}\n`)
}
