/**
 * The request log and the metrics of `didvault serve`, in process: a real service behind a real
 * HTTP server on loopback, the `requestLog` middleware before the router, the logger writing
 * into an array. Request ids (kept, refused, made, returned, handed to the operation), the
 * fields of a request record, redaction, the 500 record carrying its request id, and the
 * metrics' labels (operation and status only: no tenant id, no DID).
 */
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMemoryStorage, IdentityService, randomMasterKey, staticTenants } from '../../src/index.js'
import { createRouter } from '../../src/http/router.js'
import { errorLogger } from '../../src/observability/error-log.js'
import { createLogger, REDACT_PATHS, type Logger } from '../../src/observability/logger.js'
import { ServiceMetrics } from '../../src/observability/metrics.js'
import { localMetrics, metricsRouter } from '../../src/observability/metrics-route.js'
import { loggedPath, requestLog } from '../../src/observability/request-log.js'
import { timedStorage } from '../../src/observability/timed-storage.js'
import { redactor } from '../../src/service/error-log.js'
import type { Collection, StorageAdapter, StoredRecord } from '../../src/storage/port.js'

const KEY_A = 'key-of-tenant-acme-0123456789'
const KEY_B = 'key-of-tenant-globex-0123456789'
const TENANTS = { [KEY_A]: 'tenant-acme', [KEY_B]: 'tenant-globex' }
const CAUSE_SECRET = 'b'.repeat(64)

type Record_ = Record<string, unknown>

/** A logger at `level` whose records land in `records` (parsed). */
async function capturingLogger(level: 'info' | 'debug', records: Record_[]): Promise<Logger> {
  const sink = { write: (line: string) => void records.push(JSON.parse(line) as Record_) }
  return createLogger({ level }, { out: sink, err: sink })
}

/** `inner`, except that `find` on the vaults collection fails with an error carrying a 32-byte hex secret. */
function failingVaultFinds(inner: StorageAdapter): StorageAdapter {
  return {
    ...inner,
    init: (specs) => inner.init(specs),
    transaction: (fn) => inner.transaction(fn),
    insertAll: (writes) => inner.insertAll(writes),
    explain: (name, where, options) => inner.explain(name, where, options),
    close: () => inner.close(),
    collection: <T extends StoredRecord>(name: string): Collection<T> => {
      const collection = inner.collection<T>(name)
      if (name !== 'vaults') return collection
      return new Proxy(collection, {
        get: (target, property) =>
          property === 'find'
            ? () => Promise.reject(new Error('find failed', { cause: new Error(`disk full near ${CAUSE_SECRET}`) }))
            : (Reflect.get(target, property, target) as unknown),
      })
    },
  }
}

interface Served {
  url: string
  records: Record_[]
  metrics: ServiceMetrics
  close(): Promise<void>
}

async function start(level: 'info' | 'debug', options: { failVaults?: boolean } = {}): Promise<Served> {
  const records: Record_[] = []
  const logger = await capturingLogger(level, records)
  let waiting = () => 0
  const metrics = new ServiceMetrics(() => waiting(), { defaults: false })
  const base = createMemoryStorage()
  const storage = timedStorage(options.failVaults ? failingVaultFinds(base) : base, (call, s) => metrics.storageCall(call, s))
  const service = await IdentityService.create({
    storage,
    masterKey: randomMasterKey(),
    tenants: staticTenants(TENANTS),
    onError: errorLogger(logger, redactor([])),
    onStatusListPublished: metrics.statusListPublished,
  })
  waiting = () => service.jsonldStats().waiting
  const app = express()
  app.use(metricsRouter(localMetrics(metrics.registry)))
  app.use(requestLog(logger, metrics))
  app.use(createRouter(service))
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s))
  })
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url,
    records,
    metrics,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await service.close()
    },
  }
}

const call = (url: string, init: RequestInit & { key?: string } = {}) => {
  const headers = new Headers(init.headers)
  if (init.key) headers.set('authorization', `Bearer ${init.key}`)
  return fetch(url, { ...init, headers })
}

/** Waits for the request record with `requestId` (written once the response closed). */
async function recordOf(records: Record_[], requestId: string): Promise<Record_> {
  for (let i = 0; i < 100; i++) {
    const found = records.find((r) => r.msg === 'request' && r.requestId === requestId)
    if (found) return found
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  throw new Error(`no request record for ${requestId} in ${JSON.stringify(records)}`)
}

describe('request ids and request records (log level info)', () => {
  let s: Served
  beforeAll(async () => {
    s = await start('info')
  })
  afterAll(() => s.close())

  it('a sane incoming x-request-id is kept, returned and logged with tenant, operation, method, path (no query), status, duration', async () => {
    const res = await call(`${s.url}/vaults?id=never-logged`, { key: KEY_A, headers: { 'x-request-id': 'req-1.a:b_C' } })
    expect(res.status).toBe(200)
    expect(res.headers.get('x-request-id')).toBe('req-1.a:b_C')
    const record = await recordOf(s.records, 'req-1.a:b_C')
    expect(record).toMatchObject({
      level: 30,
      tenant: 'tenant-acme',
      operation: 'getVaults',
      method: 'GET',
      path: '/vaults',
      status: 200,
    })
    expect(typeof record.durationMs).toBe('number')
    expect(typeof record.time).toBe('string')
    expect(JSON.stringify(s.records)).not.toContain('never-logged')
    expect(record).not.toHaveProperty('headers')
  })

  it('an insane or over-long x-request-id is replaced by a new UUID; none given, one is made', async () => {
    for (const given of ['has space', 'semi;colon', 'x'.repeat(129), 'ü-nicode', undefined]) {
      const headers: Record<string, string> = given === undefined ? {} : { 'x-request-id': given }
      const res = await call(`${s.url}/wallets`, { key: KEY_A, headers })
      const id = res.headers.get('x-request-id')!
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      expect(id).not.toBe(given)
      await recordOf(s.records, id)
    }
    const exactly128 = 'y'.repeat(128)
    expect((await call(`${s.url}/wallets`, { key: KEY_A, headers: { 'x-request-id': exactly128 } })).headers.get('x-request-id')).toBe(
      exactly128,
    )
  })

  it('a refused request (no key): its record has no tenant, the operation of its route and the status', async () => {
    const res = await call(`${s.url}/vaults`, { headers: { 'x-request-id': 'refused-1' } })
    expect(res.status).toBe(403)
    const record = await recordOf(s.records, 'refused-1')
    expect(record).toMatchObject({ operation: 'getVaults', status: 403, method: 'GET', path: '/vaults' })
    expect(record).not.toHaveProperty('tenant')
  })

  it('an unknown route: a record without operation', async () => {
    await call(`${s.url}/no/such/route`, { headers: { 'x-request-id': 'unknown-1' } })
    const record = await recordOf(s.records, 'unknown-1')
    expect(record).toMatchObject({ path: '/no/such/route', status: 404 })
    expect(record).not.toHaveProperty('operation')
  })

  it('paths are logged without their query string and cut at 512 characters', () => {
    expect(loggedPath('/a/b?c=d')).toBe('/a/b')
    expect(loggedPath(`/${'p'.repeat(600)}`)).toHaveLength(513)
  })
})

describe('debug level: headers with credentials redacted; the redaction paths', () => {
  let s: Served
  beforeAll(async () => {
    s = await start('debug')
  })
  afterAll(() => s.close())

  it('authorization, x-did-auth and cookies are [redacted]; the API key appears nowhere', async () => {
    const headers = { 'x-request-id': 'debug-1', 'x-did-auth': 'eyJhbGciOi.did.auth', cookie: 'session=cookie-secret-value' }
    await call(`${s.url}/wallets`, { key: KEY_A, headers })
    const record = await recordOf(s.records, 'debug-1')
    expect(record.headers).toMatchObject({ authorization: '[redacted]', 'x-did-auth': '[redacted]', cookie: '[redacted]' })
    const all = JSON.stringify(s.records)
    for (const secret of [KEY_A, 'eyJhbGciOi.did.auth', 'cookie-secret-value']) expect(all).not.toContain(secret)
  })

  it('fields named like secrets are [redacted] at the top level and in body, query, params, input and err objects', async () => {
    const records: Record_[] = []
    const logger = await capturingLogger('debug', records)
    const secrets = { privateKey: 'pk', privateKeyHex: 'pkh', mnemonic: 'm', passphrase: 'pp', secret: 's', share: 'sh', key: 'k' }
    const containers = ['body', 'query', 'params', 'input', 'err']
    logger.debug({ ...secrets, ...Object.fromEntries(containers.map((c) => [c, secrets])) }, 'event')
    const [record] = records
    for (const field of Object.keys(secrets)) {
      expect(record[field]).toBe('[redacted]')
      for (const container of containers) expect((record[container] as Record_)[field]).toBe('[redacted]')
    }
    expect(JSON.stringify(record)).not.toMatch(/"(pk|pkh|m|pp|s|sh|k)"/)
    expect(REDACT_PATHS).toContain('headers["x-did-auth"]')
  })
})

describe('a 500: its request record and the error record carry the request id; no secret', () => {
  let s: Served
  beforeAll(async () => {
    s = await start('info', { failVaults: true })
  })
  afterAll(() => s.close())

  it('the error record: operation, request id, message and stack with the 32-byte hex redacted', async () => {
    const res = await call(`${s.url}/vaults`, { key: KEY_A, headers: { 'x-request-id': 'boom-1' } })
    expect(res.status).toBe(500)
    const request = await recordOf(s.records, 'boom-1')
    expect(request).toMatchObject({ level: 50, status: 500, operation: 'getVaults' })
    // One name for the operation in both records: the table's (issue 27).
    const error = s.records.find((r) => r.msg === 'didvault: getVaults failed')
    expect(error).toMatchObject({ level: 50, requestId: 'boom-1', operation: 'getVaults' })
    expect(error!.err).toContain('Error: find failed')
    expect(error!.err).toContain('caused by: Error: disk full near [redacted]')
    expect(error!.err).toMatch(/\n\s+at /)
    expect(JSON.stringify(s.records)).not.toContain(CAUSE_SECRET)
  })
})

describe('metrics: requests by operation and status, latency, storage calls; labels name no tenant or DID', () => {
  let s: Served
  beforeAll(async () => {
    s = await start('info')
  })
  afterAll(() => s.close())

  it('after requests of two tenants creating vaults with DIDs and resolving them, the scrape counts them and names neither', async () => {
    const dids: string[] = []
    for (const key of [KEY_A, KEY_B]) {
      const res = await call(`${s.url}/vaults`, {
        key,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'v' }),
      })
      expect(res.status).toBe(200)
      const { vault } = (await res.json()) as { vault: { id: string; wallets: Array<{ did: string }> } }
      dids.push(vault.wallets[0].did, vault.id)
      expect((await call(`${s.url}/1.0/identifiers/${vault.wallets[0].did}`)).status).toBe(200)
    }
    await call(`${s.url}/vaults`)
    const scrape = await call(`${s.url}/metrics`)
    expect(scrape.status).toBe(200)
    expect(scrape.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/)
    const text = await scrape.text()
    expect(text).toContain('didvault_http_requests_total{operation="createVault",status="200"} 2')
    expect(text).toContain('didvault_http_requests_total{operation="getVaults",status="403"} 1')
    expect(text).toMatch(/didvault_http_request_duration_seconds_count\{operation="createVault"\} 2/)
    expect(text).toMatch(/didvault_storage_operation_duration_seconds_count\{call="insert"\} [1-9]/)
    expect(text).toMatch(/didvault_storage_operation_duration_seconds_count\{call="transaction"\} [1-9]/)
    expect(text).toContain('didvault_jsonld_queue_length 0')
    expect(text).toContain('didvault_status_list_publishes_total 0')
    for (const value of [...Object.values(TENANTS), ...Object.keys(TENANTS), ...dids]) expect(text).not.toContain(value)
    for (const did of dids.filter((d) => d.startsWith('did:'))) expect(text).not.toContain(did.split(':').pop()!.toLowerCase())
    // Every label value is an operation name, a status, a call kind or a bucket bound.
    const labelValues = [...text.matchAll(/(\w+)="([^"]*)"/g)].map(([, name, value]) => `${name}=${value}`)
    for (const label of labelValues) expect(label).toMatch(/^(operation=\w+|status=\d{3}|call=\w+|le=[\d.e+-]+|le=\+Inf)$/)
  })
})
