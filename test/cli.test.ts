/**
 * The CLI contract, checked from outside on the built CLI (`dist/cli/main.js`): real child
 * processes, real HTTP on loopback, each test in a fresh temporary working directory.
 */
import { execFileSync } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { connect, type AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { storageTargetOf } from '../src/cli/storage-target.js'
import { CLI, ROOT, ensureBuilt } from './helpers/build.js'
import { expectError } from './helpers/harness.js'
import { MongoWireServer } from './helpers/mongo-wire-server.js'
import { startTestPostgres, type TestPostgres } from './helpers/postgres.js'
import { http, killAll, spawnNode, startSlowRequest, type Spawned } from './helpers/spawn.js'
import { freeLoopbackPort } from './helpers/ports.js'

const LISTENING = /didvault listening on (http:\/\/127\.0\.0\.1:(\d+))"/
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

const createVault = (url: string, token: string, body: unknown = { name: 'v' }) =>
  http(`${url}/vaults`, { method: 'POST', token, json: body })

/** A DID-auth token for `did`: succeeds only when the wallet's stored private key decrypts. */
const mintToken = (url: string, token: string, did: string) => http(`${url}/did-auth-jwt`, { method: 'POST', token, json: { iss: did } })

describe('didvault serve: first start and API keys', () => {
  it('prints the real port and one API key for tenant "default", stored only as a keyed hash (not its sha256); a restart reuses it', async () => {
    const db = join(dir, 'x.db')
    const first = await serve(['--storage', `sqlite:${db}`])
    const key = CREATED_KEY.exec(first.proc.stdout())?.[1]
    expect(key, first.proc.stdout()).toBeDefined()
    expect(first.proc.stdout().match(/API key/g)).toHaveLength(1)

    const created = await createVault(first.url, key!)
    expect(created.status).toBe(200)
    const hash = createHash('sha256').update(key!).digest('hex')
    expect(dbBytes(db).includes(key!)).toBe(false)
    expect(dbBytes(db).includes(hash)).toBe(false)
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

    const ids = async (token: string, query = '') =>
      (await http(`${url}/vaults${query}`, { token })).body.vaults.map((v: { id: string }) => v.id)
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

    const wrong = cli(['serve', '--port', '0', '--storage', `sqlite:${db}`], {
      ...env,
      DIDVAULT_MASTER_KEY: randomBytes(32).toString('hex'),
    })
    expect(await refusesToStart(wrong)).toMatch(/master key/i)
  }, 60_000)

  it.each([
    ['64 hex characters', randomBytes(32).toString('hex'), 'a different passphrase'],
    ['a passphrase', 'correct horse battery staple', randomBytes(32).toString('hex')],
  ])(
    'DIDVAULT_MASTER_KEY as %s opens the database on restart; a different key is refused',
    async (_, masterKey, otherKey) => {
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
    },
    60_000,
  )

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
    expect(
      await refusesToStart(cli(['serve', '--port', '0', '--storage', storage], { ...env, DIDVAULT_MASTER_KEY: 'another passphrase' })),
    ).toMatch(/master key/i)
    expect(readdirSync(dir)).toEqual([])
  }, 60_000)

  it('rejects an unknown --storage scheme naming the accepted ones, without the password it was given', async () => {
    const stderr = await refusesToStart(cli(['serve', '--port', '0', '--storage', 'mysql://user:pa55-w0rd@x/y']))
    expect(stderr).toMatch(/mongodb:\/\/host\/db/)
    expect(stderr).toMatch(/postgres:\/\/user@host\/db/)
    expect(stderr).not.toContain('pa55-w0rd')
  })
})

describe('--storage postgres://…?schema=', () => {
  it('takes the schema out of the connection string, keeping its other parameters', () => {
    expect(storageTargetOf('postgres://u@h/db?schema=tenant_a')).toEqual({ kind: 'postgres', url: 'postgres://u@h/db', schema: 'tenant_a' })
    expect(storageTargetOf('postgresql://u@h/db?sslmode=require&schema=s1&application_name=x')).toEqual({
      kind: 'postgres',
      url: 'postgresql://u@h/db?sslmode=require&application_name=x',
      schema: 's1',
    })
    expect(storageTargetOf('postgres://u@h/db?sslmode=require')).toEqual({ kind: 'postgres', url: 'postgres://u@h/db?sslmode=require' })
  })

  it('reads sqlite:<path>?synchronous=full|normal (any case), and refuses another level', () => {
    expect(storageTargetOf('sqlite:./d.db')).toEqual({ kind: 'sqlite', path: './d.db' })
    expect(storageTargetOf('sqlite:./d.db?synchronous=normal')).toEqual({ kind: 'sqlite', path: './d.db', synchronous: 'NORMAL' })
    expect(storageTargetOf('sqlite:/x/d.db?synchronous=FULL')).toEqual({ kind: 'sqlite', path: '/x/d.db', synchronous: 'FULL' })
    expect(() => storageTargetOf('sqlite:./d.db?synchronous=off')).toThrow(/synchronous=off is not full or normal/)
  })

  it('takes ?preparedStatements=true|false out of the connection string; the config file’s storage settings apply where the URL is silent', () => {
    expect(storageTargetOf('postgres://u@pgbouncer:6432/db?preparedStatements=false&schema=s1&sslmode=require')).toEqual({
      kind: 'postgres',
      url: 'postgres://u@pgbouncer:6432/db?sslmode=require',
      schema: 's1',
      preparedStatements: false,
    })
    expect(() => storageTargetOf('postgres://u:pa55@h/db?preparedStatements=no')).toThrow(/preparedStatements=no is not true or false/)
    expect(storageTargetOf('postgres://u@h/db', { preparedStatements: false })).toMatchObject({ preparedStatements: false })
    expect(storageTargetOf('postgres://u@h/db?preparedStatements=true', { preparedStatements: false })).toMatchObject({
      preparedStatements: true,
    })
    expect(storageTargetOf('sqlite:./d.db', { synchronous: 'normal' })).toEqual({ kind: 'sqlite', path: './d.db', synchronous: 'NORMAL' })
    expect(storageTargetOf('sqlite:./d.db?synchronous=full', { synchronous: 'normal' })).toMatchObject({ synchronous: 'FULL' })
    expect(() => storageTargetOf('sqlite:./d.db', { preparedStatements: false })).toThrow(/preparedStatements applies to postgres/)
    expect(() => storageTargetOf('postgres://u@h/db', { synchronous: 'full' })).toThrow(/synchronous applies to sqlite/)
  })

  it('takes ?readCache=true|false out of the connection string (docs/storage.md *Read cache*)', () => {
    expect(storageTargetOf('postgres://u@h/db?readCache=false&sslmode=require')).toEqual({
      kind: 'postgres',
      url: 'postgres://u@h/db?sslmode=require',
      readCache: false,
    })
    expect(storageTargetOf('postgres://u@h/db?schema=s1&readCache=true')).toEqual({
      kind: 'postgres',
      url: 'postgres://u@h/db',
      schema: 's1',
      readCache: true,
    })
    expect(() => storageTargetOf('postgres://u:pa55@h/db?readCache=off')).toThrow(/readCache=off is not true or false/)
    expect(() => storageTargetOf('postgres://u:pa55@h/db?readCache=off')).not.toThrow(/pa55/)
  })

  it('refuses a schema that is not a plain identifier, without the password', () => {
    for (const schema of ['', 'a;drop', '"q"', 'x'.repeat(64), '1abc']) {
      expect(() => storageTargetOf(`postgres://u:pa55@h/db?schema=${encodeURIComponent(schema)}`)).toThrow(
        /not a plain PostgreSQL identifier/,
      )
      expect(() => storageTargetOf(`postgres://u:pa55@h/db?schema=${encodeURIComponent(schema)}`)).not.toThrow(/pa55/)
    }
  })
})

describe('didvault serve: --storage postgres://', () => {
  let server: TestPostgres
  beforeAll(async () => {
    server = await startTestPostgres('cli')
  })
  afterAll(() => server?.stop())
  const password = 'pa55-w0rd-never-shown'
  /** The test server's URL with a password in it (the throw-away cluster trusts loopback, so any password is accepted). */
  const urlWithPassword = () => server.url.replace('postgres@', `postgres:${password}@`)

  it('refuses to start without DIDVAULT_MASTER_KEY, with a message naming it', async () => {
    expect(await refusesToStart(cli(['serve', '--port', '0', '--storage', server.url]))).toMatch(/DIDVAULT_MASTER_KEY/)
  })

  it('serves on PostgreSQL from DIDVAULT_STORAGE (also postgresql://), reopens with the same key, never prints the password', async () => {
    const env = {
      DIDVAULT_API_KEYS: 'acme:key-acme-123456789',
      DIDVAULT_MASTER_KEY: randomBytes(32).toString('hex'),
      DIDVAULT_STORAGE: urlWithPassword(),
    }
    const first = await serve([], env)
    const { vault } = (await createVault(first.url, 'key-acme-123456789', { name: 'on postgres', hierarchy: 'BIP44' })).body
    await stop(first.proc)
    const second = await serve([], { ...env, DIDVAULT_STORAGE: urlWithPassword().replace('postgres://', 'postgresql://') })
    const listed = await http(`${second.url}/vaults?id=${vault.id}`, { token: 'key-acme-123456789' })
    expect(listed.body.vaults).toHaveLength(1)
    await stop(second.proc)
    for (const proc of [first.proc, second.proc]) expect(proc.stdout() + proc.stderr()).not.toContain(password)
    expect(readdirSync(dir)).toEqual([])
  }, 60_000)

  it('a server that does not answer: tried again until storage.startTimeoutMs, then exit 1 naming host, port and database, never the password', async () => {
    const port = await freeLoopbackPort()
    const storage = { url: `postgres://u:${password}@127.0.0.1:${port}/vaultdb`, startTimeoutMs: 1_500 }
    writeFileSync(join(dir, 'didvault.json'), JSON.stringify({ storage }))
    const proc = cli(['serve', '--port', '0', '--config', 'didvault.json'], { DIDVAULT_MASTER_KEY: randomBytes(32).toString('hex') })
    const stderr = await refusesToStart(proc)
    expect((await proc.exited).code).toBe(1)
    expect(stderr).toMatch(/unavailable .*; trying again in 250 ms/)
    expect(stderr).toMatch(/still unavailable after \d+ s, giving up/)
    expect(stderr).toContain(`127.0.0.1:${port}, database "vaultdb"`)
    expect(stderr).not.toContain(password)
  })
})

describe('didvault serve: --cors', () => {
  const preflight = (url: string, origin: string) => {
    const asks = { 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' }
    return fetch(`${url}/vaults`, { method: 'OPTIONS', headers: { origin, ...asks } })
  }

  it('answers the preflights of the listed origins only (repeatable, any spelling of them), and none by default', async () => {
    const { proc, url } = await serve(['--storage', 'memory', '--cors', 'http://127.0.0.1:5173', '--cors', 'HTTPS://App.Example.com:443'])
    for (const origin of ['http://127.0.0.1:5173', 'https://app.example.com']) {
      const res = await preflight(url, origin)
      expect(res.status).toBe(204)
      expect(res.headers.get('access-control-allow-origin')).toBe(origin)
      expect(res.headers.get('access-control-allow-headers')).toContain('x-did-auth')
    }
    const unlisted = await preflight(url, 'http://127.0.0.1:5174')
    expect(unlisted.headers.get('access-control-allow-origin')).toBeNull()
    expect(unlisted.headers.get('access-control-allow-methods')).toBeNull()
    await stop(proc)

    const plain = await serve(['--storage', 'memory'])
    expect((await preflight(plain.url, 'http://127.0.0.1:5173')).headers.get('access-control-allow-origin')).toBeNull()
    await stop(plain.proc)
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
    const answered = await inFlight.finish()
    expect(answered.status).toBe(200)
    // The answer closes its connection: the client cannot keep it alive (before the fix: `keep-alive`,
    // and the process waited out the 5 s keep-alive timeout), so nothing is left to hold the server open.
    expect(answered.connection).toBe('close')
    expect(await proc.exited, proc.stderr()).toEqual({ code: 0, signal: null })
  })

  it('JSON-LD credentials larger than the inline size are signed and verified in the worker pool; SIGTERM still exits 0', async () => {
    const key = 'key-acme-123456789'
    const { proc, url } = await serve(['--storage', 'memory'], { DIDVAULT_API_KEYS: `acme:${key}` })
    const { did } = (await http(`${url}/wallet`, { method: 'POST', token: key, json: {} })).body.wallet
    const headers = { 'x-did-auth': (await mintToken(url, key, did)).body.jwt }
    // 80 values in one member: past the inline size (64), so canonicalized by the built worker module.
    const alsoKnownAs = Array.from({ length: 80 }, (_, i) => `https://example.com/${i}`)
    const claims = [{ id: 'urn:example:pooled', payload: { alsoKnownAs } }]
    const post = (path: string, json: unknown) => http(`${url}${path}`, { method: 'POST', token: key, headers, json })
    const signed = await post('/claims/sign', { iss: did, context: 'https://www.w3.org/ns/did/v1', claims })
    expect(signed.status, JSON.stringify(signed.body)).toBe(200)
    const vc = signed.body.vcs[0].jsonld
    const altered = { ...vc, credentialSubject: { ...vc.credentialSubject, alsoKnownAs: [...alsoKnownAs, 'https://example.com/x'] } }
    const checked = await post('/claims/verify', { claims: [{ jsonld: vc }, { jsonld: altered }] })
    expect(checked.body.vcs.map((v: { verified: boolean }) => v.verified)).toEqual([true, false])
    await stop(proc)
  })

  it('on SIGINT exits 0 and closes the database', async () => {
    const db = join(dir, 'x.db')
    const { proc, url } = await serve(['--storage', `sqlite:${db}`], { DIDVAULT_API_KEYS: 'acme:key-acme-123456789' })
    expect((await createVault(url, 'key-acme-123456789')).status).toBe(200)
    await stop(proc, 'SIGINT')
    expect(walGone(db)).toBe(true)
  })
})

describe('didvault serve --context <url>=<file>', () => {
  const KEY = 'key-acme-123456789'
  const COURSE_URL = 'https://example.com/contexts/course/v1?version=1'
  const COURSE = {
    '@context': {
      '@version': 1.1,
      CourseCredential: 'https://example.com/vocab#CourseCredential',
      course: 'https://example.com/vocab#course',
      grade: 'https://example.com/vocab#grade',
    },
  }
  /** Writes `content` (JSON unless a string) to `name` in the test's directory; returns its path. */
  const file = (name: string, content: unknown) => {
    const path = join(dir, name)
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content))
    return path
  }

  it('registers each file under its URL (the path after the last "="), in the worker pool too; undefined terms are signed by default', async () => {
    const course = file('course.jsonld', COURSE)
    const other = file('other.jsonld', { '@context': { nickname: 'https://example.com/vocab#nickname' } })
    const flags = [
      '--context',
      `${COURSE_URL}=${course}`,
      '--context',
      `urn:example:other=${other}`,
      '--context',
      `${COURSE_URL}=${course}`,
    ]
    const { proc, url } = await serve(['--storage', 'memory', ...flags], { DIDVAULT_API_KEYS: `acme:${KEY}` })
    const { did } = (await http(`${url}/wallet`, { method: 'POST', token: KEY, json: {} })).body.wallet
    const headers = { 'x-did-auth': (await mintToken(url, KEY, did)).body.jwt }
    const post = (path: string, json: unknown) => http(`${url}${path}`, { method: 'POST', token: KEY, headers, json })
    // 70 grades: past the inline size, so a worker meets the registered context and learns it
    const grades = Array.from({ length: 70 }, (_, i) => `A${i}`)
    const signed = await post('/claims/sign', {
      iss: did,
      context: [COURSE_URL, 'urn:example:other'],
      type: 'CourseCredential',
      claims: [{ payload: { course: 'Chemistry', grade: grades, nickname: 'bob' } }, { payload: { email: 'bob@example.com' } }],
    })
    expect(signed.status, JSON.stringify(signed.body)).toBe(200)
    const [defined, spec] = signed.body.vcs.map((v: { jsonld: Record<string, unknown> }) => v.jsonld)
    const contexts = ['https://www.w3.org/2018/credentials/v1', COURSE_URL, 'urn:example:other']
    expect(defined['@context']).toEqual(contexts)
    expect(spec['@context']).toEqual([...contexts, 'https://www.w3.org/ns/credentials/undefined-terms/v2'])
    const altered = { ...defined, credentialSubject: { ...defined.credentialSubject, course: 'Physics' } }
    const checked = await post('/claims/verify', { claims: [{ jsonld: defined }, { jsonld: spec }, { jsonld: altered }] })
    expect(checked.body.vcs.map((v: { verified: boolean }) => v.verified)).toEqual([true, true, false])
    await stop(proc)
  })

  const scoped = { '@context': { course: { '@id': 'https://example.com/course', '@context': 'https://evil.example/x' } } }
  it.each([
    [
      'a file that does not exist',
      () => `https://example.com/c=${join(dir, 'missing.jsonld')}`,
      /--context https:\/\/example\.com\/c=.*missing\.jsonld: cannot read the file \(ENOENT\)/,
    ],
    [
      'a file that is not JSON',
      () => `https://example.com/c=${file('broken.jsonld', '{"@context": ')}`,
      /broken\.jsonld: the file is not JSON/,
    ],
    [
      'JSON without "@context"',
      () => `https://example.com/c=${file('plain.json', { course: 'x' })}`,
      /plain\.json: the file is not a JSON-LD context/,
    ],
    ['an array', () => `https://example.com/c=${file('array.json', [COURSE])}`, /array\.json: the file is not a JSON-LD context document/],
    [
      'an invalid JSON-LD context',
      () => `https://example.com/c=${file('bad-term.jsonld', { '@context': { course: 42 } })}`,
      /bad-term\.jsonld: not a valid JSON-LD context: JSON-LD processing failed/,
    ],
    [
      'a context referencing one that is not known',
      () => `https://example.com/c=${file('scoped.jsonld', scoped)}`,
      /scoped\.jsonld: not a valid JSON-LD context: unknown JSON-LD context "https:\/\/evil\.example\/x"/,
    ],
    [
      'another document under a bundled URL',
      () => `https://www.w3.org/2018/credentials/v1=${file('fake-v1.jsonld', COURSE)}`,
      /fake-v1\.jsonld: didvault bundles another document under this URL/,
    ],
  ])('%s stops the start (exit 1) with a message naming the file, before the storage is opened', async (_what, arg, message) => {
    const value = arg()
    const before = readdirSync(dir)
    const proc = cli(['serve', '--port', '0', '--context', value])
    expect((await proc.exited).code).toBe(1)
    expect(proc.stderr()).toMatch(message)
    expect(proc.stdout()).toBe('')
    expect(readdirSync(dir)).toEqual(before)
  })

  it('two files for one URL with different documents stop the start, naming both', async () => {
    const a = file('a.jsonld', COURSE)
    const b = file('b.jsonld', { '@context': { course: 'https://example.com/other#course' } })
    const proc = cli(['serve', '--port', '0', '--context', `${COURSE_URL}=${a}`, '--context', `${COURSE_URL}=${b}`])
    expect((await proc.exited).code).toBe(1)
    expect(proc.stderr()).toContain(`--context ${COURSE_URL}=${b}: ${a} gives another document for this URL`)
    expect(readdirSync(dir).sort()).toEqual(['a.jsonld', 'b.jsonld'])
  })

  it.each([
    [['--context', 'no-equals-sign'], /--context must be <url>=<file\.jsonld>, got "no-equals-sign"/],
    [['--context', 'https://example.com/c='], /--context must be <url>=<file\.jsonld>/],
    [['--context', 'relative/path=./c.jsonld'], /--context relative\/path: not an absolute http\(s\) or urn URL/],
    [['--context'], /--context/],
  ])('malformed %j: a usage error (exit 2)', async (args, message) => {
    const proc = cli(['serve', '--port', '0', ...args])
    expect((await proc.exited).code).toBe(2)
    expect(proc.stderr()).toMatch(message)
    expect(proc.stderr()).toContain('see: didvault serve --help')
    expect(readdirSync(dir)).toEqual([])
  })
})

describe('didvault: arguments', () => {
  it.each(['abc', '70000', '-1', '1.5'])('rejects --port %s with a non-zero exit and a message naming --port', async (port) => {
    const proc = cli(['serve', '--port', port, '--storage', 'memory'])
    expect(await refusesToStart(proc)).toMatch(/--port/)
  })

  it.each([
    [[], /no command given/, 'didvault --help'],
    [['frobnicate'], /unknown command "frobnicate"/, 'didvault --help'],
    [['serve', '--bogus'], /--bogus/, 'didvault serve --help'],
    [['serve', '--port', '70000'], /--port must be 0\.\.65535/, 'didvault serve --help'],
    [['serve', '--cors', 'https://app.example.com/'], /--cors: not an origin/, 'didvault serve --help'],
    [['serve', '--cors', '*'], /--cors: not an origin/, 'didvault serve --help'],
    [['serve', '--status-list-origin', 'http://lists.example'], /--status-list-origin: .*https/, 'didvault serve --help'],
    [['keys'], /needs a subcommand/, 'didvault keys --help'],
    [['keys', 'rotate'], /unknown keys subcommand "rotate"/, 'didvault keys --help'],
    [['keys', 'create'], /needs --tenant/, 'didvault keys --help'],
    [['keys', 'revoke'], /takes one key id/, 'didvault keys --help'],
    [['keys', 'list', '--storage', 'memory'], /memory storage lives inside one serve process/, 'didvault keys --help'],
  ])('usage error %j: exit 2, the message and where help is on stderr, nothing on stdout', async (args, message, help) => {
    const proc = cli(args)
    expect((await proc.exited).code).toBe(2)
    expect(proc.stderr()).toMatch(message)
    expect(proc.stderr()).toContain(`see: ${help}`)
    expect(proc.stdout()).toBe('')
    expect(readdirSync(dir)).toEqual([])
  })

  it.each([
    [['--help'], /usage: didvault <command>/],
    [['-h'], /usage: didvault <command>/],
    [['help'], /usage: didvault <command>/],
    [['serve', '--help'], /usage: didvault serve/],
    [['serve', '-h'], /usage: didvault serve/],
    [['serve', '--help'], /--context <url>=<file\.jsonld>\n.*JSON-LD context document/],
    [['keys', '--help'], /usage: didvault keys/],
    [['keys', 'create', '--help'], /didvault keys create --tenant/],
    [['keys', 'revoke', '-h'], /didvault keys revoke <id>/],
  ])('%j prints help to stdout and exits 0 without touching storage', async (args, text) => {
    const proc = cli(args)
    expect(await proc.exited).toEqual({ code: 0, signal: null })
    expect(proc.stdout()).toMatch(text)
    expect(proc.stderr()).toBe('')
    expect(readdirSync(dir)).toEqual([])
  })

  it('--version and -v print the package version', async () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
    for (const flag of ['--version', '-v']) {
      const proc = cli([flag])
      expect(await proc.exited).toEqual({ code: 0, signal: null })
      expect(proc.stdout()).toBe(`${version}\n`)
    }
  })

  it('the CHANGELOG has a section for the version --version prints, the newest released, with its Upgrading note', () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }
    const changelog = readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8')
    const releases = [...changelog.matchAll(/^## (.+)$/gm)].map((m) => m[1])
    expect(releases[0]).toBe('Unreleased')
    expect(releases[1]).toMatch(new RegExp(`^${version.replaceAll('.', '\\.')} — \\d{4}-\\d{2}-\\d{2}$`))
    const section = changelog.slice(changelog.indexOf(`## ${releases[1]}`), changelog.indexOf(`## ${releases[2] ?? '\u0000'}`))
    expect(section).toMatch(/^### Upgrading from \d+\.\d+\.\d+$/m)
  })
})

describe('didvault keys', () => {
  const run = async (args: string[], env: Record<string, string> = {}) => {
    const proc = cli(['keys', ...args], env)
    return { ...(await proc.exited), stdout: proc.stdout(), stderr: proc.stderr() }
  }

  it('create prints a key once that a running server accepts at once; list never shows it; revoke refuses it on that server from the next request', async () => {
    const db = join(dir, 'x.db')
    const storage = ['--storage', `sqlite:${db}`]
    const { proc, url } = await serve(storage, { DIDVAULT_API_KEYS: 'ops:ops-key-0123456789' })

    const created = await run(['create', '--tenant', 'acme', '--label', 'ci', ...storage])
    expect(created.code, created.stderr).toBe(0)
    const [, id, key] = /created key (key_\S+) for tenant "acme".*\n(dvk_\S+)$/m.exec(created.stdout)!
    const json = await run(['create', '--tenant', 'acme', '--json', ...storage])
    const second = JSON.parse(json.stdout)
    expect(second).toEqual({
      id: expect.stringMatching(/^key_/),
      tenantId: 'acme',
      createdAt: expect.any(String),
      key: expect.stringMatching(/^dvk_/),
    })

    expect((await createVault(url, key)).status).toBe(200)
    expect((await createVault(url, second.key)).status).toBe(200)

    const listed = await run(['list', '--json', ...storage])
    const keys = JSON.parse(listed.stdout) as Array<Record<string, string>>
    expect(keys.map((k) => k.tenantId)).toEqual(['ops', 'acme', 'acme'])
    expect(keys.find((k) => k.id === id)).toMatchObject({ tenantId: 'acme', label: 'ci', lastUsedAt: expect.any(String) })
    const table = await run(['list', '--tenant', 'acme', ...storage])
    expect(table.stdout).toMatch(/^ID +TENANT +CREATED +LAST USED +LABEL$/m)
    expect(table.stdout.trim().split('\n')).toHaveLength(3)
    for (const out of [listed.stdout, table.stdout]) {
      expect(out).not.toContain(key)
      expect(out).not.toContain(createHash('sha256').update(key).digest('hex'))
    }

    expect(await run(['revoke', id, ...storage])).toMatchObject({ code: 0, stdout: `revoked key ${id}\n` })
    expectError(await createVault(url, key), 403, 'UNAUTHENTICATED')
    expect((await createVault(url, second.key)).status).toBe(200)
    const again = await run(['revoke', id, ...storage])
    expect(again.code).toBe(1)
    expect(again.stderr).toMatch(new RegExp(`no API key with id ${id}`))
    expect(dbBytes(db).includes(key)).toBe(false)
    await stop(proc)
  }, 60_000)

  it('list and revoke on a database that does not exist fail without creating it', async () => {
    for (const args of [['list'], ['revoke', 'key_x']]) {
      const r = await run([...args, '--storage', `sqlite:${join(dir, 'none.db')}`])
      expect(r.code).toBe(1)
      expect(r.stderr).toMatch(/no didvault database at .*none\.db/)
    }
    expect(readdirSync(dir)).toEqual([])
  })

  it('create before the first start: the server then prints no key of its own and accepts the created one', async () => {
    const storage = ['--storage', `sqlite:${join(dir, 'x.db')}`]
    const created = JSON.parse((await run(['create', '--tenant', 'acme', '--json', '--create', ...storage])).stdout)
    const { proc, url } = await serve(storage)
    expect(proc.stdout()).not.toMatch(/API key/)
    expect((await createVault(url, created.key)).status).toBe(200)
    await stop(proc)
  })

  it('a wrong DIDVAULT_MASTER_KEY is refused before anything is written', async () => {
    const storage = ['--storage', `sqlite:${join(dir, 'x.db')}`]
    expect((await run(['create', '--tenant', 'acme', '--create', ...storage])).code).toBe(0)
    const r = await run(['create', '--tenant', 'acme', ...storage], { DIDVAULT_MASTER_KEY: 'ab'.repeat(32) })
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/master key does not match/)
    expect(JSON.parse((await run(['list', '--json', ...storage])).stdout)).toHaveLength(1)
  })
})

describe('didvault serve: first key and signals', () => {
  it('a start that cannot bind its port creates no key; the next start that listens prints one', async () => {
    const busy = createServer()
    busy.listen(0, '127.0.0.1')
    await once(busy, 'listening')
    const port = (busy.address() as AddressInfo).port
    const storage = ['--storage', `sqlite:${join(dir, 'x.db')}`]
    const failed = cli(['serve', '--port', String(port), ...storage])
    expect(await refusesToStart(failed)).toMatch(/EADDRINUSE/)
    expect(failed.stdout()).not.toMatch(/API key/)
    busy.close()

    const started = await serve(storage)
    expect(started.proc.stdout()).toMatch(CREATED_KEY)
    expect(started.proc.stdout().match(/API key/g)).toHaveLength(1)
    await stop(started.proc)
  }, 60_000)

  it('npm start runs node in place of the shell: SIGTERM to npm reaches the server, which shuts down cleanly', async () => {
    const npmCli = join(dirname(realpathSync(execFileSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim())), 'npm-cli.js')
    const proc = spawnNode([npmCli, 'start', '--silent', '--', '--port', '0', '--storage', 'memory'], {
      cwd: ROOT,
      env: { DIDVAULT_API_KEYS: 'acme:key-acme-123456789' },
    })
    const [, url] = await proc.waitFor(LISTENING)
    expect((await createVault(url, 'key-acme-123456789')).status).toBe(200)
    proc.child.kill('SIGTERM')
    await proc.waitFor(/didvault: SIGTERM, finishing in-flight requests/)
    await proc.exited
    await expect(fetch(url)).rejects.toThrow()
  }, 60_000)

  it('a request whose headers exceed the limit gets the JSON error body (431)', async () => {
    const { proc, url } = await serve(['--storage', 'memory'], { DIDVAULT_API_KEYS: 'acme:key-acme-123456789' })
    const { port } = new URL(url)
    const socket = connect(Number(port), '127.0.0.1')
    await once(socket, 'connect')
    socket.write(`GET /vaults HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer key-acme-123456789\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`)
    let text = ''
    socket.setEncoding('utf8').on('data', (c: string) => (text += c))
    await once(socket, 'close')
    const [head, body] = text.split('\r\n\r\n')
    expect(head).toMatch(/^HTTP\/1\.1 431 /)
    expect(head).toMatch(/content-type: application\/json/i)
    expect(JSON.parse(body)).toEqual({ statusCode: 431, errorType: 'PAYLOAD_TOO_LARGE', errorMessage: 'request headers too large' })
    expect((await createVault(url, 'key-acme-123456789')).status).toBe(200)
    await stop(proc)
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
