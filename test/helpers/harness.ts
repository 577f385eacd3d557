/** A real service behind a real HTTP server on loopback, for integration tests. */
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AddressInfo } from 'node:net'
import type { Server } from 'node:http'
import express from 'express'
import { IdentityService, createMemoryStorage, staticTenants, randomMasterKey, type IdentityServiceOptions } from '../../src/index.js'
import { createSqliteStorage } from '../../src/storage/sqlite/index.js'
import { createRouter } from '../../src/http/router.js'
import type { StorageAdapter } from '../../src/storage/port.js'
import { COLLECTIONS } from '../../src/service/collections.js'
import { AUDIT_APPENDS, AUDIT_HEADS, AUDIT_RECORDS } from '../../src/audit/records.js'
import { CONTRACTS, type OperationName } from '../../src/service/contracts.js'
import { operationOf, routesOf } from '../../src/operations/routes.js'
import type { ErrorStatus, OperationContract } from '../../src/operations/contract.js'
import type { z } from 'zod'

/**
 * The response schema of the operation a request reaches, if any: every 200 body the tests see (in the media type it
 * came in), and every body of an error status declaring its own schema (a DID resolution result), is checked against
 * the schema `/openapi.json` publishes, so the two cannot drift.
 */
function responseSchemaOf(method: string, path: string, body: unknown, status: number, contentType: string) {
  const pathname = path.split('?')[0]
  for (const route of routesOf(CONTRACTS)) {
    const pattern = new RegExp(`^${route.path.replace(/:\w+/g, '[^/]+')}$`)
    if (route.method !== method.toLowerCase() || !pattern.test(pathname)) continue
    let name: OperationName
    try {
      name = operationOf(route, body)
    } catch {
      return undefined // a shared route's body naming no operation: refused before any operation answers
    }
    const contract: OperationContract<z.ZodObject, z.ZodType, z.ZodType> = CONTRACTS[name]
    // A served document is the document itself, not the embedded API's envelope.
    if ('document' in contract) return undefined
    if (status !== 200) {
      const declared = contract.errors[status as ErrorStatus]
      return typeof declared === 'object' ? declared.schema : undefined
    }
    const essence = (type: string) => type.split(';')[0].trim().toLowerCase()
    const media = Object.entries(contract.media ?? {}).find(([type]) => essence(type) === essence(contentType))?.[1]
    return media?.schema ?? contract.response
  }
  return undefined
}

export const TENANT_A = 'token-tenant-a-0123456789'
export const TENANT_B = 'token-tenant-b-0123456789'

export interface Harness {
  url: string
  storage: StorageAdapter
  service: IdentityService
  dbPath?: string
  dir?: string
  /** PostgreSQL: the server's connection string and the harness's schema. */
  postgres?: { url: string; schema: string }
  request(
    method: string,
    path: string,
    init?: RequestInit & { json?: unknown; token?: string | null; didAuth?: string },
  ): Promise<{ status: number; body: any; headers: Headers }>
  close(): Promise<void>
}

/**
 * Storages a harness runs on: memory, SQLite (a real file), PostgreSQL (a real server from
 * `postgres.ts`, a throw-away cluster per harness unless DIDVAULT_TEST_POSTGRES_URL names one) and
 * MongoDB through the real driver against the wire-protocol stand-in of `mongo-wire-server.ts` (a
 * standalone server; not a real MongoDB — see docs/storage.md for what it cannot show).
 */
export type HarnessStorage = 'memory' | 'sqlite' | 'postgres' | 'mongo-stand-in'

/** The backends the service and HTTP suites run on, labelled: the one list they take. */
export const HARNESS_STORAGES: Array<[string, HarnessStorage]> = [
  ['memory', 'memory'],
  ['SQLite (a real file)', 'sqlite'],
  ['PostgreSQL (a real server)', 'postgres'],
  ['MongoDB driver against the wire-protocol stand-in (not a real MongoDB)', 'mongo-stand-in'],
]

/** The same list without the MongoDB stand-in: the backends of suites that exercise a real database's behaviour. */
export const REAL_STORAGES: HarnessStorage[] = HARNESS_STORAGES.map(([, storage]) => storage).filter(
  (storage) => storage !== 'mongo-stand-in',
)

/** A PostgreSQL adapter on a fresh schema of a test server, and how to stop that server. */
async function postgresServer(): Promise<{ storage: StorageAdapter; stop: () => Promise<void>; url: string; schema: string }> {
  const { startTestPostgres } = await import('./postgres.js')
  const { createPostgresStorage } = await import('../../src/storage/postgres/index.js')
  const server = await startTestPostgres('harness')
  const storage = await createPostgresStorage({ connectionString: server.url, schema: server.schema })
  return { storage, stop: () => server.stop(), url: server.url, schema: server.schema }
}

/** A MongoDB adapter on a fresh stand-in server, and how to stop that server. */
async function mongoStandIn(): Promise<{ storage: StorageAdapter; stop: () => Promise<void> }> {
  const { MongoWireServer } = await import('./mongo-wire-server.js')
  const { createMongoStorage } = await import('../../src/storage/mongo/index.js')
  const server = await new MongoWireServer().start()
  return { storage: await createMongoStorage({ url: `${server.url}/harness` }), stop: () => server.stop() }
}

export interface HarnessOptions {
  storage?: HarnessStorage
  service?: Partial<IdentityServiceOptions>
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  let dir: string | undefined
  let dbPath: string | undefined
  let storage: StorageAdapter
  let stopServer = async () => {}
  let postgres: Harness['postgres']
  if (options.storage === 'sqlite') {
    dir = mkdtempSync(join(tmpdir(), 'didvault-test-'))
    dbPath = join(dir, 'test.db')
    storage = createSqliteStorage({ path: dbPath })
  } else if (options.storage === 'mongo-stand-in') {
    const standIn = await mongoStandIn()
    storage = standIn.storage
    stopServer = standIn.stop
  } else if (options.storage === 'postgres') {
    const server = await postgresServer()
    storage = server.storage
    stopServer = server.stop
    postgres = { url: server.url, schema: server.schema }
  } else {
    storage = createMemoryStorage()
  }
  const service = await IdentityService.create({
    storage,
    masterKey: randomMasterKey(),
    tenants: staticTenants({ [TENANT_A]: 'tenant-a', [TENANT_B]: 'tenant-b' }),
    ...options.service,
  })
  const app = express()
  app.use('/identity', createRouter(service))
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s))
  })
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/identity`
  return {
    url,
    service,
    storage,
    dbPath,
    dir,
    postgres,
    async request(method, path, init = {}) {
      const headers = new Headers(init.headers)
      const token = init.token === undefined ? TENANT_A : init.token
      if (token !== null) headers.set('authorization', `Bearer ${token}`)
      if (init.didAuth !== undefined) headers.set('x-did-auth', init.didAuth)
      let body = init.body
      if (init.json !== undefined) {
        headers.set('content-type', 'application/json')
        body = JSON.stringify(init.json)
      }
      const res = await fetch(url + path, { ...init, method, headers, body })
      const text = await res.text()
      let parsed: unknown = text
      try {
        parsed = JSON.parse(text)
      } catch {
        /* not JSON: left as text so tests can see it */
      }
      const checked = responseSchemaOf(method, path, init.json, res.status, res.headers.get('content-type') ?? '')?.safeParse(parsed)
      if (checked && !checked.success)
        throw new Error(`${method} ${path}: the ${res.status} body does not match the published response schema: ${checked.error.message}`)
      return { status: res.status, body: parsed, headers: res.headers }
    },
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await service.close()
      await stopServer()
      if (dir) rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** Creates a wallet for the tenant of `token` and a DID-auth token proving control of it. */
export async function walletWithToken(h: Harness, token = TENANT_A): Promise<{ did: string; _id: string; jwt: string }> {
  const created = await h.request('POST', '/wallet', { json: {}, token })
  if (created.status !== 200) throw new Error(`wallet: ${JSON.stringify(created.body)}`)
  const jwt = await tokenFor(h, created.body.wallet.did, token)
  return { did: created.body.wallet.did, _id: created.body.wallet._id, jwt }
}

/** A DID-auth token for a DID the tenant holds, from `POST /did-auth-jwt`. */
export async function tokenFor(h: Harness, did: string, token = TENANT_A): Promise<string> {
  const res = await h.request('POST', '/did-auth-jwt', { json: { iss: did }, token })
  if (res.status !== 200) throw new Error(`token: ${JSON.stringify(res.body)}`)
  return res.body.jwt
}

/** Expects the spec's error body with this status and errorType. */
export function expectError(res: { status: number; body: any }, status: number, errorType: string) {
  const ok =
    res.status === status &&
    res.body &&
    typeof res.body === 'object' &&
    res.body.statusCode === status &&
    res.body.errorType === errorType &&
    typeof res.body.errorMessage === 'string' &&
    Object.keys(res.body).sort().join(',') === 'errorMessage,errorType,statusCode'
  if (!ok) throw new Error(`expected ${status} ${errorType}, got ${res.status} ${JSON.stringify(res.body)}`)
}

/**
 * A digest of every record of every collection (contents, not just counts): compare before
 * and after a failing request to prove nothing was written — no insert, update or delete. The
 * audit trail is left out: a refused attempt (403) is recorded there, in a transaction of its own.
 */
export async function snapshot(h: Harness): Promise<Record<string, string>> {
  const out: Record<string, string> = {}
  for (const { name } of COLLECTIONS.filter((c) => c !== AUDIT_RECORDS && c !== AUDIT_HEADS && c !== AUDIT_APPENDS)) {
    const hash = createHash('sha256')
    let cursor: string | undefined
    do {
      const page = await h.storage.collection(name).find({ and: [] }, { limit: 1_000, cursor })
      for (const record of page.items) hash.update(JSON.stringify(record)).update('\n')
      cursor = page.nextCursor
    } while (cursor)
    out[name] = hash.digest('hex')
  }
  return out
}
