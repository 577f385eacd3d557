/**
 * The CLI contract, checked from outside on the built CLI (`dist/cli/main.js`): real child
 * processes, real HTTP on loopback, each test in a fresh temporary working directory.
 */
import { createHash, randomBytes } from 'node:crypto'
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { CLI, ensureBuilt } from './helpers/build.js'
import { expectError } from './helpers/harness.js'
import { MongoWireServer } from './helpers/mongo-wire-server.js'
import { http, killAll, spawnNode, type Spawned } from './helpers/spawn.js'

const LISTENING = /^didvault listening on (http:\/\/127\.0\.0\.1:(\d+))$/m
const CREATED_KEY = /API key for tenant "default".*: (\S+)$/m

beforeAll(ensureBuilt, 180_000)

let dir: string

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'didvault-cli-'))
})

afterEach(async () => {
  await killAll()
  rmSync(dir, { recursive: true, force: true })
})

/** Runs `didvault <args>` in the test's directory. */
const cli = (args: string[], env: Record<string, string> = {}) => spawnNode([CLI, ...args], { cwd: dir, env })

/** Starts `didvault serve --port 0 <args>` and waits for its listening line. */
async function serve(args: string[], env: Record<string, string> = {}): Promise<{ proc: Spawned; url: string }> {
  const proc = cli(['serve', '--port', '0', ...args], env)
  const [, url, port] = await proc.waitFor(LISTENING)
  expect(Number(port)).toBeGreaterThan(0)
  return { proc, url }
}

/** Sends `signal` and expects a clean exit (code 0). */
async function stop(proc: Spawned, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  proc.child.kill(signal)
  expect(await proc.exited, proc.stderr()).toEqual({ code: 0, signal: null })
}

/** Expects the process to fail to start: non-zero exit, no listening line. Returns its stderr. */
async function refusesToStart(proc: Spawned): Promise<string> {
  const { code } = await proc.exited
  expect(code).not.toBe(0)
  expect(proc.stdout()).not.toMatch(/listening/)
  return proc.stderr()
}

/** The database file and its WAL, as stored bytes. */
const dbBytes = (db: string) => Buffer.concat([db, `${db}-wal`].filter(existsSync).map((f) => readFileSync(f)))

/** True when the database was closed cleanly: its WAL was checkpointed away. */
const walGone = (db: string) => !existsSync(`${db}-wal`) || statSync(`${db}-wal`).size === 0

const createVault = (url: string, token: string, body: unknown = { name: 'v' }) => http(`${url}/vaults`, { method: 'POST', token, json: body })

/** A DID-auth token for `did`: succeeds only when the wallet's stored private key decrypts. */
const mintToken = (url: string, token: string, did: string) => http(`${url}/did-auth-jwt`, { method: 'POST', token, json: { iss: did } })

/**
 * A POST whose headers and first body bytes are sent now and the rest on `finish()`: the
 * server has it in flight in between. Uses Node's default (keep-alive) agent, like most clients.
 */
async function startSlowRequest(url: string, token: string, json: unknown): Promise<{ finish(): Promise<{ status: number; body: any }> }> {
  const body = JSON.stringify(json)
  const req = request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: `Bearer ${token}` },
  })
  const response = new Promise<{ status: number; body: any }>((resolve, reject) => {
    req.on('response', (res) => {
      let text = ''
      res.setEncoding('utf8').on('data', (c: string) => (text += c))
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }))
    })
    req.on('error', reject)
  })
  req.write(body.slice(0, 10))
  await sleep(300)
  return {
    finish() {
      req.end(body.slice(10))
      return response
    },
  }
}

describe('didvault serve: first start and API keys', () => {
  it('prints the real port and one API key for tenant "default", stored only as its sha256; a restart reuses it', async () => {
    const db = join(dir, 'x.db')
    const first = await serve(['--storage', `sqlite:${db}`])
    const key = CREATED_KEY.exec(first.proc.stdout())?.[1]
    expect(key, first.proc.stdout()).toBeDefined()
    expect(first.proc.stdout().match(/API key/g)).toHaveLength(1)

    const created = await createVault(first.url, key!)
    expect(created.status).toBe(200)
    const hash = createHash('sha256').update(key!).digest('hex')
    expect(dbBytes(db).includes(key!)).toBe(false)
    expect(dbBytes(db).includes(hash)).toBe(true)
    await stop(first.proc)
    expect(dbBytes(db).includes(key!)).toBe(false)

    const second = await serve(['--storage', `sqlite:${db}`])
    expect(second.proc.stdout()).not.toMatch(/API key/)
    expect((await createVault(second.url, key!)).status).toBe(200)
    const listed = await http(`${second.url}/vaults`, { token: key! })
    expect(listed.body.vaults.map((v: { id: string }) => v.id)).toContain(created.body.vault.id)
    await stop(second.proc)
  }, 60_000)

  it('DIDVAULT_API_KEYS: every key authenticates as its tenant, tenants are isolated, unknown keys get 403', async () => {
    const env = { DIDVAULT_API_KEYS: 'acme:key-acme-123456789,beta:key-beta-123456789' }
    const { proc, url } = await serve(['--storage', `sqlite:${join(dir, 'x.db')}`], env)
    expect(proc.stdout()).not.toMatch(/API key/)

    const acme = await createVault(url, 'key-acme-123456789', { name: 'acme vault' })
    const beta = await createVault(url, 'key-beta-123456789', { name: 'beta vault' })
    expect([acme.status, beta.status]).toEqual([200, 200])
    const acmeVault = acme.body.vault

    const ids = async (token: string, query = '') => (await http(`${url}/vaults${query}`, { token })).body.vaults.map((v: { id: string }) => v.id)
    expect(await ids('key-acme-123456789')).toEqual([acmeVault.id])
    expect(await ids('key-beta-123456789')).toEqual([beta.body.vault.id])
    expect(await ids('key-beta-123456789', `?id=${acmeVault.id}`)).toEqual([])
    expectError(await mintToken(url, 'key-beta-123456789', acmeVault.wallets[0].did), 422, 'NOT_FOUND')

    expectError(await createVault(url, 'key-unknown-123456789'), 403, 'UNAUTHENTICATED')
    expectError(await http(`${url}/vaults`), 403, 'UNAUTHENTICATED')
    await stop(proc)
  }, 60_000)
})

describe('didvault serve: master key', () => {
  it('without DIDVAULT_MASTER_KEY keeps a 0600 <db>.key next to the database and reuses it; another key is refused', async () => {
    const db = join(dir, 'x.db')
    const env = { DIDVAULT_API_KEYS: 'acme:key-acme-123456789' }
    const first = await serve(['--storage', `sqlite:${db}`], env)
    const keyFile = `${db}.key`
    expect(statSync(keyFile).mode & 0o777).toBe(0o600)
    const masterKey = readFileSync(keyFile, 'utf8')
    expect(masterKey.trim()).toMatch(/^[0-9a-f]{64}$/)
    const { vault } = (await createVault(first.url, 'key-acme-123456789')).body
    await stop(first.proc)

    const second = await serve(['--storage', `sqlite:${db}`], env)
    expect(readFileSync(keyFile, 'utf8')).toBe(masterKey)
    const again = await http(`${second.url}/vaults?id=${vault.id}`, { token: 'key-acme-123456789' })
    expect(again.body.vaults[0].wallets[0].privateKeyHex).toBe(vault.wallets[0].privateKeyHex)
    expect((await mintToken(second.url, 'key-acme-123456789', vault.wallets[0].did)).status).toBe(200)
    await stop(second.proc)

    const wrong = cli(['serve', '--port', '0', '--storage', `sqlite:${db}`], { ...env, DIDVAULT_MASTER_KEY: randomBytes(32).toString('hex') })
    expect(await refusesToStart(wrong)).toMatch(/master key/i)
  }, 60_000)

  it.each([
    ['64 hex characters', randomBytes(32).toString('hex'), 'a different passphrase'],
    ['a passphrase', 'correct horse battery staple', randomBytes(32).toString('hex')],
  ])('DIDVAULT_MASTER_KEY as %s opens the database on restart; a different key is refused', async (_, masterKey, otherKey) => {
    const db = join(dir, 'x.db')
    const env = { DIDVAULT_API_KEYS: 'acme:key-acme-123456789', DIDVAULT_MASTER_KEY: masterKey }
    const first = await serve(['--storage', `sqlite:${db}`], env)
    const { vault } = (await createVault(first.url, 'key-acme-123456789')).body
    await stop(first.proc)
    expect(existsSync(`${db}.key`)).toBe(false)

    const second = await serve(['--storage', `sqlite:${db}`], env)
    expect((await mintToken(second.url, 'key-acme-123456789', vault.wallets[0].did)).status).toBe(200)
    await stop(second.proc)

    const wrong = cli(['serve', '--port', '0', '--storage', `sqlite:${db}`], { ...env, DIDVAULT_MASTER_KEY: otherKey })
    expect(await refusesToStart(wrong)).toMatch(/master key/i)
  }, 60_000)

  it('a database whose key file is gone is refused, and no new key file is made', async () => {
    const db = join(dir, 'x.db')
    const env = { DIDVAULT_API_KEYS: 'acme:key-acme-123456789' }
    const first = await serve(['--storage', `sqlite:${db}`], env)
    await stop(first.proc)
    rmSync(`${db}.key`)
    expect(await refusesToStart(cli(['serve', '--port', '0', '--storage', `sqlite:${db}`], env))).toMatch(/key file/)
    expect(existsSync(`${db}.key`)).toBe(false)
  }, 60_000)

  it('a key file others can read is refused', async () => {
    const db = join(dir, 'x.db')
    const env = { DIDVAULT_API_KEYS: 'acme:key-acme-123456789' }
    await stop((await serve(['--storage', `sqlite:${db}`], env)).proc)
    chmodSync(`${db}.key`, 0o644)
    expect(await refusesToStart(cli(['serve', '--port', '0', '--storage', `sqlite:${db}`], env))).toMatch(/readable by others/)
  }, 60_000)

  it('processes starting together on a new database agree on one key file', async () => {
    const db = join(dir, 'x.db')
    const env = { DIDVAULT_API_KEYS: 'acme:key-acme-123456789' }
    const started = await Promise.all([1, 2, 3].map(() => serve(['--storage', `sqlite:${db}`], env)))
    const { vault } = (await createVault(started[0].url, 'key-acme-123456789')).body
    for (const { url } of started) expect((await mintToken(url, 'key-acme-123456789', vault.wallets[0].did)).status).toBe(200)
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([])
    for (const { proc } of started) await stop(proc)
  }, 60_000)
})

describe('didvault serve: storage', () => {
  it('DIDVAULT_STORAGE stands in for --storage (a mongodb:// password stays out of the process list)', async () => {
    const db = join(dir, 'from-env.db')
    const { proc } = await serve([], { DIDVAULT_STORAGE: `sqlite:${db}`, DIDVAULT_API_KEYS: 'acme:key-acme-123456789' })
    expect(existsSync(db)).toBe(true)
    expect(existsSync(join(dir, 'didvault.db'))).toBe(false)
    await stop(proc)
  }, 60_000)

  it('--storage memory serves without touching the disk', async () => {
    const { proc, url } = await serve(['--storage', 'memory'])
    const key = CREATED_KEY.exec(proc.stdout())?.[1]
    expect(key).toBeDefined()
    expect((await createVault(url, key!)).status).toBe(200)
    await stop(proc)
    expect(readdirSync(dir)).toEqual([])
  })

  it('defaults to sqlite:./didvault.db in the working directory', async () => {
    const { proc, url } = await serve([])
    expect(existsSync(join(dir, 'didvault.db'))).toBe(true)
    expect(statSync(join(dir, 'didvault.db.key')).mode & 0o777).toBe(0o600)
    expect((await createVault(url, CREATED_KEY.exec(proc.stdout())![1])).status).toBe(200)
    await stop(proc)
  })
})

describe('didvault serve: --storage mongodb://', () => {
  const standIn = new MongoWireServer()
  beforeAll(() => standIn.start())
  afterAll(() => standIn.stop())

  it('refuses to start without DIDVAULT_MASTER_KEY, with a message naming it', async () => {
    const proc = cli(['serve', '--port', '0', '--storage', `${standIn.url}/cli_nokey`])
    expect(await refusesToStart(proc)).toMatch(/DIDVAULT_MASTER_KEY/)
  })

  it('serves on MongoDB (the wire-protocol stand-in), warns that a standalone server is single-process, and reopens with the same key', async () => {
    const storage = `${standIn.url}/cli_serve`
    const env = { DIDVAULT_API_KEYS: 'acme:key-acme-123456789', DIDVAULT_MASTER_KEY: randomBytes(32).toString('hex') }
    const first = await serve(['--storage', storage], env)
    expect(first.proc.stderr()).toMatch(/standalone server/)
    const { vault } = (await createVault(first.url, 'key-acme-123456789', { name: 'on mongo', hierarchy: 'BIP44' })).body
    await stop(first.proc)

    const second = await serve(['--storage', storage], env)
    const listed = await http(`${second.url}/vaults?id=${vault.id}`, { token: 'key-acme-123456789' })
    expect(listed.body.vaults).toHaveLength(1)
    expect((await mintToken(second.url, 'key-acme-123456789', vault.wallets[0].did)).status).toBe(200)
    await stop(second.proc)
    expect(await refusesToStart(cli(['serve', '--port', '0', '--storage', storage], { ...env, DIDVAULT_MASTER_KEY: 'another passphrase' }))).toMatch(/master key/i)
    expect(readdirSync(dir)).toEqual([])
  }, 60_000)

  it('rejects an unknown --storage scheme naming the accepted ones', async () => {
    expect(await refusesToStart(cli(['serve', '--port', '0', '--storage', 'postgres://x/y']))).toMatch(/mongodb:\/\/host\/db/)
  })
})

describe('didvault serve: shutdown', () => {
  it('on SIGTERM finishes the in-flight request, exits 0 and closes the database', async () => {
    const db = join(dir, 'x.db')
    const env = { DIDVAULT_API_KEYS: 'acme:key-acme-123456789' }
    const { proc, url } = await serve(['--storage', `sqlite:${db}`], env)

    const inFlight = await startSlowRequest(`${url}/vaults`, 'key-acme-123456789', { name: 'in flight', hierarchy: 'BIP44' })
    proc.child.kill('SIGTERM')
    await proc.waitFor(/SIGTERM/)
    const res = await inFlight.finish()
    expect(res.status).toBe(200)
    expect(await proc.exited, proc.stderr()).toEqual({ code: 0, signal: null })
    expect(walGone(db)).toBe(true)

    const again = await serve(['--storage', `sqlite:${db}`], env)
    const listed = await http(`${again.url}/vaults?id=${res.body.vault.id}`, { token: 'key-acme-123456789' })
    expect(listed.body.vaults).toHaveLength(1)
    await stop(again.proc)
  }, 60_000)

  it('after SIGTERM, a keep-alive client does not hold the process open once the in-flight request is answered', async () => {
    const { proc, url } = await serve(['--storage', 'memory'], { DIDVAULT_API_KEYS: 'acme:key-acme-123456789' })
    const inFlight = await startSlowRequest(`${url}/vaults`, 'key-acme-123456789', { name: 'in flight' })
    proc.child.kill('SIGTERM')
    await proc.waitFor(/SIGTERM/)
    expect((await inFlight.finish()).status).toBe(200)
    const answered = Date.now()
    expect(await proc.exited, proc.stderr()).toEqual({ code: 0, signal: null })
    expect(Date.now() - answered).toBeLessThan(3_500) // before the fix: the 5 s keep-alive timeout
  })

  it('on SIGINT exits 0 and closes the database', async () => {
    const db = join(dir, 'x.db')
    const { proc, url } = await serve(['--storage', `sqlite:${db}`], { DIDVAULT_API_KEYS: 'acme:key-acme-123456789' })
    expect((await createVault(url, 'key-acme-123456789')).status).toBe(200)
    await stop(proc, 'SIGINT')
    expect(walGone(db)).toBe(true)
  })
})

describe('didvault: arguments', () => {
  it.each(['abc', '70000', '-1', '1.5'])('rejects --port %s with a non-zero exit and a message naming --port', async (port) => {
    const proc = cli(['serve', '--port', port, '--storage', 'memory'])
    expect(await refusesToStart(proc)).toMatch(/--port/)
  })

  it('exits 2 with the usage when no command is given', async () => {
    const proc = cli([])
    expect((await proc.exited).code).toBe(2)
    expect(proc.stderr()).toMatch(/usage: didvault serve/)
  })

  it('exits 2 with the usage on an unknown command', async () => {
    const proc = cli(['frobnicate'])
    expect((await proc.exited).code).toBe(2)
    expect(proc.stderr()).toMatch(/usage: didvault serve/)
  })
})

describe('didvault serve: HTTP errors are JSON error bodies', () => {
  it('malformed JSON is 422, a body over 1 MiB is 413, an unknown route is 404', async () => {
    const { proc, url } = await serve(['--storage', 'memory'], { DIDVAULT_API_KEYS: 'acme:key-acme-123456789' })
    const token = 'key-acme-123456789'

    expectError(await http(`${url}/vaults`, { method: 'POST', token, body: '{"name": ' }), 422, 'VALIDATION_ERROR')
    const huge = JSON.stringify({ name: 'x'.repeat(1024 * 1024) })
    expectError(await http(`${url}/vaults`, { method: 'POST', token, body: huge }), 413, 'PAYLOAD_TOO_LARGE')
    const missing = await http(`${url}/no-such-route`, { token })
    expect(missing.status).toBe(404)
    expect(missing.body).toEqual({ statusCode: 404, errorType: 'NOT_FOUND', errorMessage: expect.any(String) })
    await stop(proc)
  })
})
