/**
 * `/health/live` and `/health/ready` in process, over real HTTP on loopback, with the probe
 * `didvault serve` builds: a real SQLite storage (closed → unreachable), the service's JSON-LD
 * pool (closed with the service), and the draining flag. PostgreSQL stopped under a running
 * `didvault serve` is in `serve-logs.test.ts`.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import express from 'express'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { IdentityService, randomMasterKey } from '../../src/index.js'
import { healthRouter, serviceReadiness } from '../../src/observability/health.js'
import { createSqliteStorage } from '../../src/storage/sqlite/index.js'
import type { StorageAdapter } from '../../src/storage/port.js'

let dir: string
let storage: StorageAdapter
let service: IdentityService
let server: Server
let url: string
let stopping = false

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'didvault-health-'))
  storage = createSqliteStorage({ path: join(dir, 'health.db') })
  service = await IdentityService.create({ storage, masterKey: randomMasterKey() })
  const app = express()
  app.use(healthRouter(serviceReadiness(service, storage, () => stopping)))
  server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s))
  })
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()))
  await service.close().catch(() => undefined)
  rmSync(dir, { recursive: true, force: true })
})

const get = async (path: string) => {
  const res = await fetch(url + path)
  return { status: res.status, body: await res.json(), cacheControl: res.headers.get('cache-control') }
}

describe('health', () => {
  it('live and ready: 200 {status: ok}, not cacheable, no authentication asked', async () => {
    expect(await get('/health/live')).toEqual({ status: 200, body: { status: 'ok' }, cacheControl: 'no-store' })
    expect(await get('/health/ready')).toEqual({ status: 200, body: { status: 'ok' }, cacheControl: 'no-store' })
  })

  it('draining: ready is 503 naming it, live stays 200', async () => {
    stopping = true
    try {
      expect(await get('/health/ready')).toMatchObject({ status: 503, body: { status: 'unavailable', reason: 'stopping' } })
      expect((await get('/health/live')).status).toBe(200)
    } finally {
      stopping = false
    }
  })

  it('the storage closed under a running service: ready is 503 naming the storage (the cause only in the log)', async () => {
    await storage.close()
    expect(await get('/health/ready')).toEqual({
      status: 503,
      body: { status: 'unavailable', reason: 'storage unreachable' },
      cacheControl: 'no-store',
    })
    expect((await get('/health/live')).status).toBe(200)
  })

  it('the service closed (its JSON-LD pool stopped): ready is 503 naming the pool', async () => {
    await service.close().catch(() => undefined)
    expect(await get('/health/ready')).toMatchObject({ status: 503, body: { status: 'unavailable', reason: 'JSON-LD worker pool closed' } })
  })
})
