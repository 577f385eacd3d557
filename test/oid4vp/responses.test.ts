/**
 * The response endpoint (`POST /oid4vp/responses/:id`) over loopback HTTP on a SQLite file: unknown, expired and
 * answered requests; a response encrypted to another key, a plain `vp_token` where encryption is required, a wrong
 * `state`, the wallet's error, bounds and oversized bodies — each refusal writing nothing; the same-device
 * `response_code`; and 20 concurrent responses across two services on one SQLite file and on PostgreSQL: exactly one
 * wins and the record holds its outcome.
 *
 * The requests are written as `createPresentationRequest` writes them (helper vp-core), with the service's keyring.
 * The presentations' evaluation is stubbed (`vi.mock`): it has its own tests (evaluate.test.ts), and the whole flow
 * with real wallets and presentations is serve-e2e.test.ts's.
 */
import type { AddressInfo } from 'node:net'
import type { Server } from 'node:http'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import express from 'express'
import { CompactEncrypt, importJWK } from 'jose'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { IdentityService, randomMasterKey, staticTenants } from '../../src/index.js'
import { createSqliteStorage } from '../../src/storage/sqlite/index.js'
import { createPostgresStorage } from '../../src/storage/postgres/index.js'
import { createRouter } from '../../src/http/router.js'
import { oid4vp } from '../../src/oid4vc.js'
import { generateVpResponseKey } from '../../src/oid4vp/protocol/index.js'
import { sealVpKey } from '../../src/oid4vp/ephemeral-key.js'
import { KeyCustody } from '../../src/custody/key-custody.js'
import { openKeyring } from '../../src/custody/keyring-store.js'
import { collectionOf } from '../../src/storage/declaration.js'
import { OID4VP_REQUESTS, type PresentationRequestRecord } from '../../src/oid4vp/records.js'
import type { MasterKey } from '../../src/keys/keyring.js'
import type { StorageAdapter } from '../../src/storage/port.js'
import type * as Evaluate from '../../src/oid4vp/evaluate.js'
import { TENANT_A, TENANT_B } from '../helpers/harness.js'
import { startTestPostgres, type TestPostgres } from '../helpers/postgres.js'

// The transport is under test here; the evaluation is test/oid4vp/evaluate.test.ts's, and the whole flow with real
// presentations is test/oid4vp/serve-e2e.test.ts's.
const evaluate = vi.hoisted(() => ({ calls: [] as unknown[][] }))
vi.mock('../../src/oid4vp/evaluate.js', async (original) => ({
  ...(await original<typeof Evaluate>()),
  evaluateVpToken: (...args: unknown[]) => {
    evaluate.calls.push(args)
    return Promise.resolve({ status: 'fulfilled', credentials: { pid: [] } })
  },
}))

const PUBLIC_URL = 'https://verifier.test/identity'

/** A service and its router on a loopback port, over `storage`. */
interface Served {
  service: IdentityService
  server: Server
  base: string
}

async function serve(storage: StorageAdapter, masterKey: MasterKey, maxResponseBytes = 64 * 1024): Promise<Served> {
  const service = await IdentityService.create({
    storage,
    masterKey,
    tenants: staticTenants({ [TENANT_A]: 'tenant-a', [TENANT_B]: 'tenant-b' }),
    publicUrl: PUBLIC_URL,
    oid4vp: oid4vp({ maxResponseBytes, maxPresentations: 3 }),
  })
  const app = express()
  app.use('/identity', createRouter(service))
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s))
  })
  return { service, server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/identity` }
}

async function stop({ service, server }: Served): Promise<void> {
  await new Promise<void>((resolve) => server.close(() => resolve()))
  await service.close()
}

/** A request as it is made: its id (never stored), its record under the keyed hash, its answer issued once; the key of an encrypted one. */
interface Made {
  id: string
  record: PresentationRequestRecord
  publicJwk?: Record<string, unknown>
  /** For the test of the database's bytes only. */
  privateJwk?: Record<string, unknown>
}

async function makeRequest(
  served: Served,
  storage: StorageAdapter,
  masterKey: MasterKey,
  options: { mode?: 'direct_post' | 'direct_post.jwt'; redirectUri?: string; ttlMs?: number; tenantId?: string } = {},
): Promise<Made> {
  const id = randomBytes(32).toString('base64url')
  const now = Date.now()
  const ttlMs = options.ttlMs ?? 300_000
  const tenantId = options.tenantId ?? 'tenant-a'
  const mode = options.mode ?? 'direct_post'
  const key = mode === 'direct_post.jwt' ? await generateVpResponseKey() : undefined
  const custody = new KeyCustody(await openKeyring(storage, masterKey))
  const recordId = served.service.oneTime.keyed('oid4vp-request', '', id)
  const record: PresentationRequestRecord = {
    id: recordId,
    tenantId,
    clientId: 'decentralized_identifier:did:web:verifier.test',
    clientIdPrefix: 'decentralized_identifier',
    signingKid: 'did:web:verifier.test#key-1',
    dcqlQuery: { credentials: [{ id: 'pid', format: 'dc+sd-jwt', meta: { vct_values: ['https://example.com/pid'] } }] },
    responseMode: mode,
    nonce: randomBytes(32).toString('base64url'),
    state: randomBytes(32).toString('base64url'),
    ...(key && {
      encryption: {
        publicJwk: key.publicJwk,
        sealedPrivateJwk: sealVpKey({ custody }, { tenantId, id: recordId }, key.privateJwk),
        enc: ['A128GCM', 'A256GCM'],
      },
    }),
    ...(options.redirectUri !== undefined && { redirectUri: options.redirectUri }),
    requestObject: 'eyJhbGciOiJub25lIn0.e30.',
    status: 'pending',
    createdBy: { dids: [] },
    createdAt: now,
    expiresAt: now + ttlMs,
    deleteAt: now + 3_600_000,
    updatedAt: now,
  }
  await collectionOf(storage, OID4VP_REQUESTS).insert(record)
  await served.service.oneTime.issue(tenantId, 'oid4vp-answer', id, { ttlMs })
  return { id, record, ...(key && { publicJwk: key.publicJwk, privateJwk: key.privateJwk }) }
}

async function post(served: Served, id: string, body: string | Record<string, string>) {
  const res = await fetch(`${served.base}/oid4vp/responses/${id}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: typeof body === 'string' ? body : new URLSearchParams(body).toString(),
  })
  const text = await res.text()
  return { status: res.status, body: (text === '' ? {} : JSON.parse(text)) as Record<string, any>, headers: res.headers }
}

/** A JWE as a wallet makes it, to `publicJwk`. */
async function jweTo(publicJwk: Record<string, unknown>, payload: object): Promise<string> {
  const key = await importJWK({ ...publicJwk, alg: 'ECDH-ES' }, 'ECDH-ES')
  return new CompactEncrypt(new TextEncoder().encode(JSON.stringify(payload)))
    .setProtectedHeader({ alg: 'ECDH-ES', enc: 'A256GCM', kid: publicJwk.kid as string })
    .encrypt(key)
}

const vpToken = JSON.stringify({ pid: ['eyJhbGciOiJFUzI1NiJ9.e30.sig~'] })

describe('POST /oid4vp/responses/:id on a SQLite file', () => {
  let dir: string
  let storage: StorageAdapter
  let served: Served
  const masterKey = randomMasterKey()
  const made: Made[] = []
  const request = async (options: Parameters<typeof makeRequest>[3] = {}) => {
    const m = await makeRequest(served, storage, masterKey, options)
    made.push(m)
    return m
  }
  const stored = async (m: Made) => (await collectionOf(storage, OID4VP_REQUESTS).get(m.record.id))!
  /** Nothing was written: the record as made, its answer still to be consumed. */
  const untouched = async (m: Made) => {
    expect(await stored(m)).toEqual(m.record)
    expect(await served.service.oneTime.peek(m.record.tenantId, 'oid4vp-answer', m.id)).toEqual({})
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'didvault-vp-responses-'))
    storage = createSqliteStorage({ path: join(dir, 'vault.db') })
    served = await serve(storage, masterKey)
  }, 60_000)

  afterAll(async () => {
    await stop(served)
    rmSync(dir, { recursive: true, force: true })
  })

  it('answers 404 (OAuth body) for an unknown request, and for a known one under another id', async () => {
    const res = await post(served, randomBytes(32).toString('base64url'), { vp_token: vpToken, state: 'x' })
    expect(res).toMatchObject({ status: 404, body: { error: 'invalid_request' } })
    expect(res.headers.get('cache-control')).toBe('no-store')
    // The record's own id (the keyed hash) does not name it.
    const m = await request()
    expect((await post(served, m.record.id, { vp_token: vpToken, state: m.record.state })).status).toBe(404)
    await untouched(m)
  })

  it('refuses a response to an expired request with 400 invalid_request, writing nothing', async () => {
    const m = await request({ ttlMs: 50 })
    await new Promise((resolve) => setTimeout(resolve, 80))
    const res = await post(served, m.id, { vp_token: vpToken, state: m.record.state })
    expect(res).toMatchObject({ status: 400, body: { error: 'invalid_request', error_description: 'the presentation request expired' } })
    expect(await stored(m)).toEqual(m.record)
  })

  it('stores a wallet’s error response as failed; a second response is refused and changes nothing', async () => {
    const m = await request()
    const res = await post(served, m.id, { error: 'access_denied', error_description: 'the user declined', state: m.record.state })
    expect(res).toMatchObject({ status: 200, body: {} })
    expect(res.headers.get('cache-control')).toBe('no-store')
    const answered = await stored(m)
    expect(answered).toMatchObject({
      status: 'failed',
      outcome: { status: 'failed', error: 'access_denied', errorDescription: 'the user declined' },
      answeredAt: expect.any(Number),
    })
    expect(answered.updatedAt).toBeGreaterThan(m.record.updatedAt)
    const again = await post(served, m.id, { error: 'server_error', state: m.record.state })
    expect(again).toMatchObject({
      status: 400,
      body: { error: 'invalid_request', error_description: expect.stringMatching(/already answered/) },
    })
    expect(await stored(m)).toEqual(answered)
  })

  it('refuses a wrong state, writing nothing; takes an answer without state (its presentations are nonce-bound)', async () => {
    const m = await request()
    const res = await post(served, m.id, { error: 'access_denied', state: 'another-state' })
    expect(res).toMatchObject({
      status: 400,
      body: { error: 'invalid_request', error_description: 'state does not match the presentation request' },
    })
    await untouched(m)
    expect((await post(served, m.id, { error: 'access_denied' })).status).toBe(200)
    expect((await stored(m)).outcome).toEqual({ status: 'failed', error: 'access_denied' })
  })

  it('refuses a body with a parameter twice, two answers, none; a direct_post request refuses a JWE', async () => {
    const m = await request()
    const state = m.record.state
    expect((await post(served, m.id, `error=access_denied&state=${state}&state=${state}`)).body).toMatchObject({ error: 'invalid_request' })
    expect((await post(served, m.id, { vp_token: vpToken, error: 'access_denied', state })).body.error_description).toMatch(/exactly one/)
    expect((await post(served, m.id, { state })).body.error_description).toMatch(/no vp_token/)
    expect((await post(served, m.id, { response: 'a.b.c.d.e', state })).body.error_description).toMatch(/takes direct_post/)
    await untouched(m)
  })

  it('bounds the vp_token before anything is verified: too many presentations, too deep, too big', async () => {
    const m = await request()
    const state = m.record.state
    const tooMany = JSON.stringify({ pid: ['a', 'b', 'c', 'd'] })
    expect((await post(served, m.id, { vp_token: tooMany, state })).body.error_description).toMatch(/more than 3 presentations/)
    const deep = `{"pid":[${'['.repeat(100)}${']'.repeat(100)}]}`
    expect((await post(served, m.id, { vp_token: deep, state })).body.error_description).toMatch(/deeper than/)
    // Over maxResponseBytes (64 KiB), under the router's body limit.
    const big = await post(served, m.id, { vp_token: `{"pid":["${'x'.repeat(70_000)}"]}`, state })
    expect(big).toMatchObject({
      status: 400,
      body: { error: 'invalid_request', error_description: expect.stringMatching(/over 65536 bytes/) },
    })
    // Over the router's body limit (1 MiB): 413, never read whole.
    const huge = await post(served, m.id, { vp_token: `{"pid":["${'x'.repeat(1_100_000)}"]}`, state })
    expect(huge).toMatchObject({ status: 413, body: { error: 'invalid_request' } })
    expect(evaluate.calls).toHaveLength(0)
    await untouched(m)
  })

  it('direct_post.jwt: refuses a plain vp_token and a JWE to another key, writing nothing', async () => {
    const m = await request({ mode: 'direct_post.jwt' })
    const state = m.record.state
    const plain = await post(served, m.id, { vp_token: vpToken, state })
    expect(plain).toMatchObject({
      status: 400,
      body: { error: 'invalid_request', error_description: expect.stringMatching(/requires an encrypted response/) },
    })
    const other = await generateVpResponseKey()
    const toOther = await jweTo({ ...other.publicJwk, kid: m.publicJwk!.kid }, { vp_token: JSON.parse(vpToken), state })
    const res = await post(served, m.id, { response: toOther })
    expect(res).toMatchObject({
      status: 400,
      body: { error: 'invalid_request', error_description: expect.stringMatching(/could not be decrypted/) },
    })
    const otherKid = await jweTo(other.publicJwk, { vp_token: JSON.parse(vpToken), state })
    expect((await post(served, m.id, { response: otherKid })).body.error_description).toMatch(/kid/)
    // The right key but the wrong state inside.
    const wrongState = await jweTo(m.publicJwk!, { vp_token: JSON.parse(vpToken), state: 'nope' })
    expect((await post(served, m.id, { response: wrongState })).body.error_description).toMatch(/state does not match/)
    expect(evaluate.calls).toHaveLength(0)
    await untouched(m)
  })

  it('direct_post.jwt: a JWE to the request key is decrypted and its presentations evaluated for the request’s tenant', async () => {
    const m = await request({ mode: 'direct_post.jwt', tenantId: 'tenant-b' })
    const response = await jweTo(m.publicJwk!, { vp_token: JSON.parse(vpToken), state: m.record.state })
    const res = await post(served, m.id, { response })
    expect(res).toMatchObject({ status: 200, body: {} })
    const [, caller, record, token] = evaluate.calls.at(-1)!
    expect(caller).toMatchObject({ tenantId: 'tenant-b', dids: [] })
    expect(record).toMatchObject({ id: m.record.id, nonce: m.record.nonce, clientId: m.record.clientId })
    expect(token).toEqual(JSON.parse(vpToken))
    expect(await stored(m)).toMatchObject({ status: 'fulfilled', outcome: { status: 'fulfilled', credentials: { pid: [] } } })
    expect(await served.service.oneTime.peek('tenant-b', 'oid4vp-answer', m.id)).toBeUndefined()
  })

  it('direct_post: a vp_token is evaluated once and its outcome stored; same-device answers a redirect with a one-time response_code', async () => {
    const m = await request({ redirectUri: 'https://rp.example/done' })
    const before = evaluate.calls.length
    const res = await post(served, m.id, { vp_token: vpToken, state: m.record.state })
    expect(res.status).toBe(200)
    expect(evaluate.calls).toHaveLength(before + 1)
    const redirect = new URL(res.body.redirect_uri as string)
    expect(`${redirect.origin}${redirect.pathname}`).toBe('https://rp.example/done')
    const code = /^#response_code=([A-Za-z0-9_-]{43})$/.exec(redirect.hash)?.[1]
    expect(code).toBeDefined()
    expect(await stored(m)).toMatchObject({ status: 'fulfilled' })
    expect(await served.service.oneTime.consume('tenant-a', 'oid4vp-response-code', code!)).toEqual({ request: m.record.id })
    expect(await served.service.oneTime.consume('tenant-a', 'oid4vp-response-code', code!)).toBeUndefined()
  })

  it('keeps no request id, private key or response code in the database’s bytes', async () => {
    const m = await request({ mode: 'direct_post.jwt', redirectUri: 'https://rp.example/cb' })
    const response = await jweTo(m.publicJwk!, { vp_token: JSON.parse(vpToken), state: m.record.state })
    const res = await post(served, m.id, { response })
    const code = /response_code=([A-Za-z0-9_-]{43})/.exec(res.body.redirect_uri as string)![1]
    const file = (name: string) => {
      try {
        return readFileSync(join(dir, name)).toString('latin1')
      } catch {
        return ''
      }
    }
    const bytes = file('vault.db') + file('vault.db-wal')
    expect(bytes).toContain(m.record.id)
    for (const secret of [...made.map((x) => x.id), m.privateJwk!.d as string, code]) expect(bytes).not.toContain(secret)
  })
})

/** 20 responses at once, from two services on one database: exactly one wins, and the record holds its outcome. */
async function race(servers: [Served, Served], storage: StorageAdapter, masterKey: MasterKey): Promise<void> {
  const m = await makeRequest(servers[0], storage, masterKey)
  const answers = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      post(servers[i % 2], m.id, { error: 'access_denied', error_description: `response ${i}`, state: m.record.state }),
    ),
  )
  const won = answers.flatMap((a, i) => (a.status === 200 ? [i] : []))
  expect(won).toHaveLength(1)
  for (const a of answers.filter((x) => x.status !== 200))
    expect(a).toMatchObject({
      status: 400,
      body: { error: 'invalid_request', error_description: expect.stringMatching(/already answered/) },
    })
  const record = await collectionOf(storage, OID4VP_REQUESTS).get(m.record.id)
  expect(record).toMatchObject({ status: 'failed', outcome: { error: 'access_denied', errorDescription: `response ${won[0]}` } })
}

describe('concurrent responses to one request', () => {
  it('on one SQLite file, across two services: exactly one wins', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'didvault-vp-race-'))
    const masterKey = randomMasterKey()
    const storages = [createSqliteStorage({ path: join(dir, 'vault.db') }), createSqliteStorage({ path: join(dir, 'vault.db') })]
    const first = await serve(storages[0], masterKey)
    const second = await serve(storages[1], masterKey)
    try {
      for (let round = 0; round < 3; round++) await race([first, second], storages[0], masterKey)
    } finally {
      await stop(first)
      await stop(second)
      rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)

  describe('on PostgreSQL', () => {
    let postgres: TestPostgres
    beforeAll(async () => {
      postgres = await startTestPostgres('oid4vp responses')
    }, 120_000)
    afterAll(async () => {
      await postgres?.stop()
    })

    it('across two services: exactly one wins', async () => {
      const masterKey = randomMasterKey()
      const connect = () => createPostgresStorage({ connectionString: postgres.url, schema: postgres.schema })
      const storages = [await connect(), await connect()]
      const first = await serve(storages[0], masterKey)
      const second = await serve(storages[1], masterKey)
      try {
        for (let round = 0; round < 3; round++) await race([first, second], storages[0], masterKey)
      } finally {
        await stop(first)
        await stop(second)
      }
    }, 60_000)
  })
})
