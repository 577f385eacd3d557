/**
 * CORS of `createRouter(service, { cors: { origins } })`: listed origins get their preflights
 * answered and their exact origin echoed on every response (errors included); other origins,
 * and every origin when none is listed (the default), get no CORS header at all.
 */
import type { AddressInfo } from 'node:net'
import type { Server } from 'node:http'
import express from 'express'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRouter } from '../../src/http/router.js'
import { canonicalOrigin } from '../../src/http/cors.js'
import { createMemoryStorage, IdentityService, randomMasterKey, staticTenants } from '../../src/index.js'

const KEY = 'cors-test-key-0123456789'
const LISTED = 'http://127.0.0.1:5173'
const ALSO_LISTED = 'https://app.example.com'

let service: IdentityService
const servers: Server[] = []

/** The router (with `options`) mounted under /identity on a loopback server; its base URL. */
async function serve(options: Parameters<typeof createRouter>[1]): Promise<string> {
  const app = express().use('/identity', createRouter(service, options))
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s))
  })
  servers.push(server)
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/identity`
}

beforeAll(async () => {
  const tenants = staticTenants({ [KEY]: 't' })
  service = await IdentityService.create({ storage: createMemoryStorage(), masterKey: randomMasterKey(), tenants })
})
afterAll(async () => {
  for (const server of servers) await new Promise((resolve) => server.close(resolve))
  await service.close()
})

const preflight = (url: string, origin: string, method = 'POST') => {
  const asks = { 'access-control-request-method': method, 'access-control-request-headers': 'authorization,content-type,x-did-auth' }
  return fetch(url, { method: 'OPTIONS', headers: { origin, ...asks } })
}

const corsHeaders = (res: Response) => Object.fromEntries([...res.headers].filter(([name]) => name.startsWith('access-control-')))

describe('createRouter with cors.origins', () => {
  let base: string
  beforeAll(async () => {
    base = await serve({ cors: { origins: [LISTED, 'HTTPS://App.Example.com:443'] } })
  })

  it('a listed origin’s preflight: 204 with its exact origin, the methods and the headers the operations read', async () => {
    for (const origin of [LISTED, ALSO_LISTED]) {
      const res = await preflight(`${base}/vaults`, origin)
      expect(res.status).toBe(204)
      expect(corsHeaders(res)).toEqual({
        'access-control-allow-origin': origin,
        'access-control-allow-methods': 'GET, POST, PUT, PATCH, DELETE',
        'access-control-allow-headers': 'authorization, x-did-auth, content-type, x-request-id',
        'access-control-max-age': '600',
      })
      expect(res.headers.get('vary')).toMatch(/Origin/)
    }
  })

  it('a listed origin’s requests carry its origin: results and error bodies', async () => {
    const headers = { origin: LISTED, authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }
    const ok = await fetch(`${base}/vaults`, { method: 'POST', headers, body: '{"name":"v"}' })
    expect(ok.status).toBe(200)
    expect(corsHeaders(ok)).toEqual({ 'access-control-allow-origin': LISTED, 'access-control-expose-headers': 'x-request-id' })
    const denied = await fetch(`${base}/vaults`, { headers: { origin: LISTED } })
    expect(denied.status).toBe(403)
    expect(corsHeaders(denied)).toEqual({ 'access-control-allow-origin': LISTED, 'access-control-expose-headers': 'x-request-id' })
    expect(await denied.json()).toMatchObject({ errorType: 'UNAUTHENTICATED' })
  })

  it('an unlisted origin (another port, scheme or host; or `null`) gets no CORS header, and its preflight no allowance', async () => {
    const unlisted = ['http://127.0.0.1:5174', 'https://127.0.0.1:5173', 'http://localhost:5173', 'null', 'https://app.example.com.evil']
    for (const origin of unlisted) {
      const pre = await preflight(`${base}/vaults`, origin)
      expect(corsHeaders(pre), origin).toEqual({})
      const res = await fetch(`${base}/vaults`, { headers: { origin, authorization: `Bearer ${KEY}` } })
      expect(res.status).toBe(200)
      expect(corsHeaders(res), origin).toEqual({})
      expect(res.headers.get('vary')).toMatch(/Origin/)
    }
  })

  it('a request without Origin (curl, servers) is served as before', async () => {
    const res = await fetch(`${base}/vaults`, { headers: { authorization: `Bearer ${KEY}` } })
    expect(res.status).toBe(200)
    expect(corsHeaders(res)).toEqual({})
  })
})

describe('createRouter without cors (the default)', () => {
  it('no origin is allowed: no CORS header on preflights or responses', async () => {
    const base = await serve({})
    const pre = await preflight(`${base}/vaults`, LISTED)
    expect(corsHeaders(pre)).toEqual({})
    const res = await fetch(`${base}/vaults`, { headers: { origin: LISTED, authorization: `Bearer ${KEY}` } })
    expect(corsHeaders(res)).toEqual({})
  })
})

describe('origins', () => {
  it.each([
    ['http://127.0.0.1:5173', 'http://127.0.0.1:5173'],
    ['HTTPS://App.Example.COM', 'https://app.example.com'],
    ['https://app.example.com:443', 'https://app.example.com'],
    ['http://localhost:80', 'http://localhost'],
    ['http://[::1]:8080', 'http://[::1]:8080'],
    ['app://bundle', 'app://bundle'],
  ])('%s is spelled %s, as browsers send it', (given, canonical) => {
    expect(canonicalOrigin(given)).toBe(canonical)
  })

  const NOT_ORIGINS = [
    ...['*', 'null', '', 'a.example'],
    ...['http://a.example/', 'http://a.example/path', 'http://a.example?x', 'http://user@a.example', 'http://a.example:99999'],
  ]
  it.each(NOT_ORIGINS)('%j is refused', (origin) => {
    expect(() => canonicalOrigin(origin)).toThrow(TypeError)
    expect(() => createRouter(service, { cors: { origins: [origin] } })).toThrow(/not an origin|out of range/)
  })
})
