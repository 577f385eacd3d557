/**
 * `didvault master-key rotate` beside running `didvault serve` processes (docs/operations.md
 * *Master-key rotation*), on the built CLI: real processes, real HTTP on loopback, a real SQLite
 * file and a real PostgreSQL. While the servers create wallets and sign with them, the rotation
 * refuses (naming them) as long as a server seals with the old key, runs once every server holds
 * the new key (the old one as previous), resumes after it is killed mid-way; afterwards every
 * wallet — made before, during and after — signs, also on servers holding the new key alone. No
 * key reaches any output.
 */
import { randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { Keyring } from '../src/keys/keyring.js'
import { CLI, ensureBuilt } from './helpers/build.js'
import { startTestPostgres, type TestPostgres } from './helpers/postgres.js'
import { http, killAll, spawnNode, type Spawned } from './helpers/spawn.js'

const LISTENING = /didvault listening on (http:\/\/127\.0\.0\.1:\d+)/
const WORKER = /"didvault worker (\d+) listening"/g
const API_KEY = 'acme-key-0123456789abcdef'
const ROTATED = /^rotated the master key to key ([0-9a-f]{16}): (\d+) secrets resealed$/m

beforeAll(ensureBuilt, 180_000)

let dir: string
/** Every process of the test, to search their output for keys. */
let spawned: Spawned[]

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'didvault-rotate-'))
  spawned = []
})

afterEach(async () => {
  await killAll()
  rmSync(dir, { recursive: true, force: true })
})

const cli = (args: string[], env: Record<string, string>) => {
  const proc = spawnNode([CLI, ...args], { cwd: dir, env })
  spawned.push(proc)
  return proc
}

/** Runs a command to its end. */
async function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const proc = cli(args, env)
  const { code } = await proc.exited
  return { code, stdout: proc.stdout(), stderr: proc.stderr() }
}

interface Server {
  proc: Spawned
  url: string
  /** The pids of the processes serving (the workers, or the process itself). */
  pids: number[]
}

/** `didvault serve --port 0 <args>`; waits for the listening line (and, with workers, each worker's). */
async function serve(args: string[], env: Record<string, string>, workers = 1): Promise<Server> {
  const proc = cli(['serve', '--port', '0', ...(workers > 1 ? ['--workers', String(workers)] : []), ...args], env)
  const [, url] = await proc.waitFor(LISTENING, 60_000)
  if (workers === 1) return { proc, url, pids: [proc.child.pid!] }
  for (let waited = 0; [...proc.stdout().matchAll(WORKER)].length < workers; waited += 50) {
    if (waited > 10_000) throw new Error(`no ${workers} worker lines:\n${proc.stdout()}`)
    await sleep(50)
  }
  return { proc, url, pids: [...proc.stdout().matchAll(WORKER)].map((m) => Number(m[1])) }
}

async function stop(server: Server): Promise<void> {
  server.proc.child.kill('SIGTERM')
  expect(await server.proc.exited, server.proc.stderr()).toEqual({ code: 0, signal: null })
}

/** The body of a 200, or a failure naming the answer. */
function ok(res: { status: number; body: any }, what: string): any {
  expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(200)
  return res.body
}

/** A BIP44 vault and a DID-auth token of its root wallet (vault control, for creating its wallets). */
async function setUpVault(url: string): Promise<{ id: string; headers: Record<string, string> }> {
  const { vault } = ok(await http(`${url}/vaults`, { method: 'POST', token: API_KEY, json: { name: 'v', hierarchy: 'BIP44' } }), 'vault')
  const json = { iss: vault.wallets[0].did, expiresIn: 3_600_000 }
  const { jwt } = ok(await http(`${url}/did-auth-jwt`, { method: 'POST', token: API_KEY, json }), 'root token')
  return { id: vault.id, headers: { 'x-did-auth': jwt } }
}

/** A new wallet of the vault (its key derived from the sealed account node, and sealed). */
async function vaultWallet(url: string, vault: { id: string; headers: Record<string, string> }): Promise<string> {
  const res = await http(`${url}/vaults/${vault.id}/wallet`, { method: 'POST', token: API_KEY, json: {}, headers: vault.headers })
  return ok(res, 'vault wallet').wallet.did
}

/** A new wallet of no vault (a random key, sealed). */
async function standaloneWallet(url: string): Promise<string> {
  return ok(await http(`${url}/wallet`, { method: 'POST', token: API_KEY, json: {} }), 'wallet').wallet.did
}

/** Signs with the wallet of `did`: a DID-auth token, then a credential it issues. */
async function expectSigns(url: string, did: string): Promise<void> {
  const { jwt } = ok(await http(`${url}/did-auth-jwt`, { method: 'POST', token: API_KEY, json: { iss: did } }), `token of ${did}`)
  const json = { iss: did, format: 'JWT', claims: [{ id: did, payload: { rotated: true } }] }
  const signed = ok(
    await http(`${url}/claims/sign`, { method: 'POST', token: API_KEY, json, headers: { 'x-did-auth': jwt } }),
    `sign ${did}`,
  )
  expect(signed.vcs[0].jwt).toEqual(expect.any(String))
}

/** Wallets made and signed with in `lanes` concurrent loops through `urls`, until `running()` is false (each loop runs once at least). */
async function load(urls: string[], vault: { id: string; headers: Record<string, string> }, lanes: number, running: () => boolean) {
  const dids: string[] = []
  await Promise.all(
    Array.from({ length: lanes }, async (_, lane) => {
      for (let i = 0; i === 0 || running(); i++) {
        const url = urls[(lane + i) % urls.length]
        const did = await vaultWallet(url, vault)
        await expectSigns(urls[(lane + i + 1) % urls.length], did)
        dids.push(did)
      }
    }),
  )
  return dids
}

/** A key file (64 hex characters, mode 0600). */
function keyFile(name: string, hex: string): string {
  const path = join(dir, name)
  writeFileSync(path, `${hex}\n`, { mode: 0o600 })
  return path
}

const keyIdOf = (hex: string) => Keyring.idOf(Buffer.from(hex, 'hex'))

/** No output of any process of the test holds one of `keys`. */
function expectNoKeyInOutputs(keys: string[]): void {
  for (const proc of spawned) {
    const output = `${proc.stdout()}\n${proc.stderr()}`.toLowerCase()
    for (const key of keys)
      expect(output.includes(key.toLowerCase()), `a key in the output of ${proc.child.spawnargs.join(' ')}`).toBe(false)
  }
}

describe('didvault master-key rotate on SQLite, the key in <db>.key, one serve process', () => {
  it('installs the new key and refuses while the server holds the old one; after a restart it reseals under load; every wallet signs', async () => {
    const db = join(dir, 'x.db')
    const storage = ['--storage', `sqlite:${db}`]
    const env = { DIDVAULT_API_KEYS: `acme:${API_KEY}` }
    const first = await serve(storage, env)
    const oldHex = readFileSync(`${db}.key`, 'utf8').trim()
    const vault = await setUpVault(first.url)
    const before = [await vaultWallet(first.url, vault), await vaultWallet(first.url, vault), await standaloneWallet(first.url)]
    const newHex = randomBytes(32).toString('hex')
    const newKey = keyFile('new.key', newHex)

    const refused = await run(['master-key', 'rotate', '--new-key-file', newKey, ...storage], {})
    expect(refused.code, refused.stderr).toBe(1)
    expect(refused.stderr).toContain(`1 running process seals with another key: pid ${first.pids[0]} on ${hostname()}`)
    expect(refused.stderr).toContain(`(seals with key ${keyIdOf(oldHex)}`)
    expect(refused.stderr).toMatch(/x\.db\.key holds the new key and .*x\.db\.previous\.key the current one/)
    expect(readFileSync(`${db}.key`, 'utf8').trim()).toBe(newHex)
    expect(readFileSync(`${db}.previous.key`, 'utf8').trim()).toBe(oldHex)
    // The refused rotation left the server alone.
    before.push(await vaultWallet(first.url, vault))
    await expectSigns(first.url, before[3])
    await stop(first)

    // Restarted, the server seals with the new key and opens the old.
    const second = await serve(storage, env)
    const mixed = await vaultWallet(second.url, vault)
    let rotating = true
    const during = load([second.url], vault, 2, () => rotating)
    const rotated = await run(['master-key', 'rotate', '--new-key-file', newKey, ...storage], {})
    rotating = false
    expect(rotated.code, rotated.stderr).toBe(0)
    expect(rotated.stdout).toMatch(ROTATED)
    expect(ROTATED.exec(rotated.stdout)![1]).toBe(keyIdOf(newHex))
    expect(Number(ROTATED.exec(rotated.stdout)![2])).toBeGreaterThanOrEqual(before.length)
    expect(rotated.stderr).toMatch(/master-key rotate: wallets \d+\/\d+ records, \d+ secrets resealed so far/)
    expect(existsSync(`${db}.previous.key`)).toBe(false)
    const after = [await vaultWallet(second.url, vault), await standaloneWallet(second.url)]
    const all = [...before, mixed, ...(await during), ...after]
    for (const did of all) await expectSigns(second.url, did)
    await stop(second)

    // The new key alone opens every secret.
    const third = await serve(storage, env)
    for (const did of all) await expectSigns(third.url, did)
    await stop(third)
    expectNoKeyInOutputs([oldHex, newHex])
  }, 120_000)
})

describe('didvault master-key rotate on PostgreSQL, keys from the environment and files, serve --workers 2', () => {
  let postgres: TestPostgres
  beforeAll(async () => {
    postgres = await startTestPostgres('master-key rotation')
  }, 120_000)
  afterAll(() => postgres?.stop())

  it('refuses naming both workers; with the new key everywhere it resumes after a kill mid-way; every wallet signs', async () => {
    const storage = `${postgres.url}?schema=${postgres.schema}`
    const oldHex = randomBytes(32).toString('hex')
    const newHex = randomBytes(32).toString('hex')
    const newKey = keyFile('new.key', newHex)
    const oldKey = keyFile('old.key', oldHex)
    const base = { DIDVAULT_STORAGE: storage, DIDVAULT_API_KEYS: `acme:${API_KEY}` }
    // (A schema no server has used is no didvault database: `keys create` does not make one there.)
    const early = await run(['keys', 'create', '--tenant', 'acme'], { DIDVAULT_STORAGE: storage, DIDVAULT_MASTER_KEY: oldHex })
    expect(early.code).toBe(1)
    expect(early.stderr).toMatch(new RegExp(`no didvault database at postgres://\\S+ \\(schema ${postgres.schema}\\).*--create`))
    const first = await serve([], { ...base, DIDVAULT_MASTER_KEY: oldHex }, 2)
    const vault = await setUpVault(first.url)
    const before = [await vaultWallet(first.url, vault), await standaloneWallet(first.url), await vaultWallet(first.url, vault)]

    const refused = await run(['master-key', 'rotate', '--new-key-file', newKey], {
      DIDVAULT_STORAGE: storage,
      DIDVAULT_MASTER_KEY: oldHex,
    })
    expect(refused.code, refused.stderr).toBe(1)
    expect(refused.stderr).toContain('2 running processes seal with another key')
    for (const pid of first.pids) expect(refused.stderr).toContain(`pid ${pid} on ${hostname()} (seals with key ${keyIdOf(oldHex)}`)
    await stop(first)

    // Every worker with the new key, the old one from a file.
    const second = await serve(['--previous-master-key-file', oldKey], { ...base, DIDVAULT_MASTER_KEY: newHex }, 2)
    const mixed = await vaultWallet(second.url, vault)
    const rotateEnv = { DIDVAULT_STORAGE: storage, DIDVAULT_MASTER_KEY: newHex, DIDVAULT_PREVIOUS_MASTER_KEYS: oldHex }

    // Killed mid-way: held on the key-port row of the last wallet's key made before, it has resealed the keys before that one.
    const [locker, watcher] = [new pg.Client({ connectionString: postgres.url }), new pg.Client({ connectionString: postgres.url })]
    await Promise.all([locker.connect(), watcher.connect()])
    let midway: string[]
    try {
      await locker.query('BEGIN')
      const wallet = await locker.query(`SELECT data->>'keyRef' AS "keyRef" FROM "${postgres.schema}".wallets WHERE data->>'did' = $1`, [
        before[2],
      ])
      const thumbprint = String(wallet.rows[0].keyRef).replace(/^sealed:/, '')
      const locked = await locker.query(`SELECT id FROM "${postgres.schema}".keys WHERE data->>'thumbprint' = $1 FOR UPDATE`, [thumbprint])
      expect(locked.rowCount).toBe(1)
      const interrupted = cli(['master-key', 'rotate', '--new-key-file', newKey], rotateEnv)
      for (let waited = 0; ; waited += 100) {
        // (Outside the locker's transaction, which would see one snapshot of pg_stat_activity.)
        const waiting = await watcher.query(`SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock'`)
        if (waiting.rowCount! > 0) break
        if (waited > 30_000)
          throw new Error(`the rotation never waited on the row lock:
${interrupted.stderr()}`)
        await sleep(100)
      }
      // Created and signed with while the rotation is half done.
      midway = await load([second.url], vault, 2, () => false)
      interrupted.child.kill('SIGKILL')
      await interrupted.exited
    } finally {
      await locker.query('ROLLBACK')
      await Promise.all([locker.end(), watcher.end()])
    }
    const oldOnly = await run(['keys', 'list'], { DIDVAULT_STORAGE: storage, DIDVAULT_MASTER_KEY: oldHex })
    expect(oldOnly.code).toBe(1)
    expect(oldOnly.stderr).toContain(`rotation to key ${keyIdOf(newHex)} is unfinished`)

    let rotating = true
    const during = load([second.url], vault, 2, () => rotating)
    const resumed = await run(['master-key', 'rotate', '--new-key-file', newKey], rotateEnv)
    rotating = false
    expect(resumed.code, resumed.stderr).toBe(0)
    expect(resumed.stdout).toMatch(ROTATED)
    expect(Number(ROTATED.exec(resumed.stdout)![2])).toBeGreaterThanOrEqual(1)
    const after = [await vaultWallet(second.url, vault), await standaloneWallet(second.url)]
    const all = [...before, mixed, ...midway, ...(await during), ...after]
    for (const did of all) await expectSigns(second.url, did)
    await stop(second)

    const third = await serve([], { ...base, DIDVAULT_MASTER_KEY: newHex }, 2)
    for (const did of all) await expectSigns(third.url, did)
    await stop(third)
    expectNoKeyInOutputs([oldHex, newHex])
  }, 150_000)
})
