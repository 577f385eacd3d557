/**
 * `didvault audit verify` through the built CLI: it writes nothing to the database it verifies —
 * a read-only copy (file 0444 in a 0555 directory, verified by a user who cannot write there)
 * verifies, and its bytes and its directory are unchanged; on PostgreSQL it works as a role that
 * may only read. Records committed but not chained are reported as lag (exit 0), never as a break;
 * an unknown `--tenant` is an error. Two `didvault serve` processes on one SQLite file, each with
 * its sequencer, take one tenant's writes at once: the chain they leave verifies, one record per act.
 */
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { IdentityService, randomMasterKey, staticTenants } from '../../src/index.js'
import { createSqliteStorage } from '../../src/storage/sqlite/index.js'
import { createPostgresStorage } from '../../src/storage/postgres/index.js'
import type { StorageAdapter } from '../../src/storage/port.js'
import { CLI, ensureBuilt } from '../helpers/build.js'
import { startTestPostgres } from '../helpers/postgres.js'
import { http, killAll, spawnNode } from '../helpers/spawn.js'

const TOKEN = 'token-tenant-a-0123456789'
/** A sequencer that runs only when told. */
const MANUAL = { delayMs: 3_600_000, sweepMs: 3_600_000 }

let dir: string
beforeAll(() => {
  ensureBuilt()
  dir = mkdtempSync(join(tmpdir(), 'didvault-audit-cli-'))
  chmodSync(dir, 0o755)
}, 180_000)
afterEach(killAll)
afterAll(() => {
  spawnSync('chmod', ['-R', 'u+w', dir])
  rmSync(dir, { recursive: true, force: true })
})

/**
 * Runs `didvault audit verify <args>` to its end; as root, as the unprivileged user `postgres`,
 * for whom file modes hold (root writes whatever the mode says).
 */
function verify(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const command = [process.execPath, CLI, 'audit', 'verify', ...args]
  const [file, argv] = process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', ...command]] : [command[0], command.slice(1)]
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('DIDVAULT_') && name !== 'NODE_OPTIONS'))
  const run = spawnSync(file, argv, { cwd: tmpdir(), env, encoding: 'utf8', timeout: 60_000 })
  return { code: run.status, stdout: run.stdout, stderr: run.stderr }
}

/** 3 wallets whose records are chained, then 2 whose records are committed but not chained (the process "dies" before). */
async function actOn(storage: StorageAdapter): Promise<void> {
  const service = await IdentityService.create({
    storage,
    masterKey: randomMasterKey(),
    tenants: staticTenants({ [TOKEN]: 'tenant-a' }),
    auditChaining: MANUAL,
  })
  const api = service.as({ authorization: `Bearer ${TOKEN}` })
  for (let i = 0; i < 3; i++) await api.generateWallet({})
  await service.chainAuditRecords()
  for (let i = 0; i < 2; i++) await api.generateWallet({})
  // Not service.close(), which would chain them: the storage alone, as a killed process leaves it.
  await storage.close()
}

const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex')
const LAG_LINE =
  /^tenant-a: 3 records, chain intact; 2 committed records not chained yet \(lag, not a break: the oldest appended [\d.]+ s ago\)$/m

describe('audit verify on SQLite', () => {
  let live: string
  let backup: string
  beforeAll(async () => {
    mkdirSync(join(dir, 'live'))
    live = join(dir, 'live', 'didvault.db')
    await actOn(createSqliteStorage({ path: live }))
    chmodSync(join(dir, 'live'), 0o777)
    chmodSync(live, 0o666)
    const backups = join(dir, 'backup')
    mkdirSync(backups)
    backup = join(backups, 'didvault.db')
    copyFileSync(live, backup)
    chmodSync(backup, 0o444)
    chmodSync(backups, 0o555)
  }, 60_000)

  it('verifies a read-only backup, reporting the lag, and changes nothing there', () => {
    const before = { bytes: sha256(backup), files: readdirSync(join(dir, 'backup')) }
    const run = verify(['--storage', `sqlite:${backup}`])
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(LAG_LINE)
    expect({ bytes: sha256(backup), files: readdirSync(join(dir, 'backup')) }).toEqual(before)
  })

  it('never writes to the database it verifies (a writable one keeps its bytes)', () => {
    const before = sha256(live)
    const run = verify(['--storage', `sqlite:${live}`, '--tenant', 'tenant-a'])
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(LAG_LINE)
    expect(sha256(live)).toBe(before)
  })

  it('an unknown --tenant is an error, not an intact chain', () => {
    const run = verify(['--storage', `sqlite:${backup}`, '--tenant', 'tenant-x'])
    expect(run.code).toBe(1)
    expect(run.stdout).toBe('')
    expect(run.stderr).toContain('no tenant "tenant-x" in this storage')
  })
})

describe('audit verify on PostgreSQL', () => {
  it('works as a role that may only read, reporting the lag', async () => {
    const server = await startTestPostgres('audit verify')
    try {
      await actOn(await createPostgresStorage({ connectionString: server.url, schema: server.schema }))
      const admin = new pg.Client({ connectionString: server.url })
      await admin.connect()
      try {
        await admin.query('CREATE ROLE auditor LOGIN')
        await admin.query(`GRANT USAGE ON SCHEMA "${server.schema}" TO auditor`)
        await admin.query(`GRANT SELECT ON ALL TABLES IN SCHEMA "${server.schema}" TO auditor`)
      } finally {
        await admin.end()
      }
      const url = new URL(server.url)
      url.username = 'auditor'
      url.searchParams.set('schema', server.schema)
      const run = verify(['--storage', url.toString()])
      expect(run.stderr).toBe('')
      expect(run.code).toBe(0)
      expect(run.stdout).toMatch(LAG_LINE)
    } finally {
      await server.stop()
    }
  }, 60_000)
})

describe('two didvault serve processes on one SQLite file', () => {
  it('each chains with its own sequencer, at once: the chain verifies with exactly one record per act', async () => {
    const db = join(dir, 'two.db')
    const env = { DIDVAULT_MASTER_KEY: Buffer.from(randomMasterKey()).toString('hex'), DIDVAULT_API_KEYS: `tenant-a:${TOKEN}` }
    const start = async () => {
      const proc = spawnNode([CLI, 'serve', '--port', '0', '--storage', `sqlite:${db}`], { cwd: dir, env })
      const [, url] = await proc.waitFor(/didvault listening on (http:\/\/127\.0\.0\.1:\d+)"/)
      return { proc, url }
    }
    const servers = [await start(), await start()]
    const dids: string[] = []
    await Promise.all(
      Array.from({ length: 8 }, async (_, client) => {
        for (let i = 0; i < 8; i++) {
          const res = await http(`${servers[(client + i) % 2].url}/wallet`, { method: 'POST', token: TOKEN, json: {} })
          expect(res.status).toBe(200)
          dids.push(res.body.wallet.did)
        }
      }),
    )
    // GET /audit chains the tenant's records first (whichever process appended them).
    const page = await http(`${servers[0].url}/audit?limit=100`, { token: TOKEN })
    expect(page.status).toBe(200)
    expect(page.body.records.map((r: any) => r.seq)).toEqual(Array.from({ length: 64 }, (_, i) => i + 1))
    expect(page.body.records.map((r: any) => r.target.id).sort()).toEqual([...dids].sort())
    for (const { proc } of servers) {
      proc.child.kill('SIGTERM')
      expect((await proc.exited).code, proc.stderr()).toBe(0)
    }
    chmodSync(db, 0o644)
    const run = verify(['--storage', `sqlite:${db}`])
    expect(run.stdout.split('\n')).toContain('tenant-a: 64 records, chain intact')
    expect(run.code).toBe(0)
  }, 60_000)
})
