/**
 * What `didvault keys` and the start of `serve` must never do silently, on the built CLI (real
 * processes, a real SQLite file): bring a revoked API key back because `DIDVAULT_API_KEYS` still
 * lists it, or make a new database for a mistyped `--storage`.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { CLI, ensureBuilt } from './helpers/build.js'
import { expectError } from './helpers/harness.js'
import { http, killAll, spawnNode, type Spawned } from './helpers/spawn.js'

const LISTENING = /didvault listening on (http:\/\/127\.0\.0\.1:\d+)/
const API_KEY = 'acme-key-0123456789abcdef'

beforeAll(ensureBuilt, 180_000)

let dir: string

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'didvault-keys-'))
})

afterEach(async () => {
  await killAll()
  rmSync(dir, { recursive: true, force: true })
})

const cli = (args: string[], env: Record<string, string> = {}) => spawnNode([CLI, ...args], { cwd: dir, env })

async function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const proc = cli(args, env)
  const { code } = await proc.exited
  return { code, stdout: proc.stdout(), stderr: proc.stderr() }
}

async function serve(args: string[], env: Record<string, string>): Promise<{ proc: Spawned; url: string }> {
  const proc = cli(['serve', '--port', '0', ...args], env)
  const [, url] = await proc.waitFor(LISTENING, 60_000)
  return { proc, url }
}

async function stop(proc: Spawned): Promise<void> {
  proc.child.kill('SIGTERM')
  expect(await proc.exited, proc.stderr()).toEqual({ code: 0, signal: null })
}

const listVaults = (url: string) => http(`${url}/vaults`, { token: API_KEY })

describe('a revoked API key still listed in DIDVAULT_API_KEYS', () => {
  it('stays refused after a restart (one process, then --workers 2), and each start warns naming its id, never the key', async () => {
    const storage = ['--storage', `sqlite:${join(dir, 'x.db')}`]
    const env = { DIDVAULT_API_KEYS: `acme:${API_KEY}` }
    const first = await serve(storage, env)
    expect((await listVaults(first.url)).status).toBe(200)
    const [key] = JSON.parse((await run(['keys', 'list', '--json', ...storage])).stdout) as Array<{ id: string }>
    expect(await run(['keys', 'revoke', key.id, ...storage])).toMatchObject({ code: 0 })
    expectError(await listVaults(first.url), 403, 'UNAUTHENTICATED')
    await stop(first.proc)

    for (const workers of [[], ['--workers', '2']]) {
      const again = await serve([...storage, ...workers], env)
      expectError(await listVaults(again.url), 403, 'UNAUTHENTICATED')
      expect(again.proc.stderr()).toContain(`"didvault: DIDVAULT_API_KEYS lists API key ${key.id} (tenant \\"acme\\"), which was revoked`)
      await stop(again.proc)
      for (const output of [again.proc.stdout(), again.proc.stderr()]) expect(output).not.toContain(API_KEY)
    }
    expect(JSON.parse((await run(['keys', 'list', '--json', ...storage])).stdout)).toEqual([])
  }, 90_000)
})

describe('didvault keys create on a storage no server has used', () => {
  it('refuses a mistyped SQLite path without creating it, unless --create; list and revoke take no --create', async () => {
    const typo = join(dir, 'didvualt.db')
    const refused = await run(['keys', 'create', '--tenant', 'acme', '--storage', `sqlite:${typo}`])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain(
      `no didvault database at ${typo} (check --storage or DIDVAULT_STORAGE, or add --create to set up a new one)`,
    )
    expect(refused.stdout).toBe('')
    expect(readdirSync(dir)).toEqual([])

    const created = await run(['keys', 'create', '--tenant', 'acme', '--create', '--json', '--storage', `sqlite:${typo}`])
    expect(created.code, created.stderr).toBe(0)
    expect(JSON.parse(created.stdout)).toMatchObject({ tenantId: 'acme', key: expect.stringMatching(/^dvk_/) })
    expect(readdirSync(dir).sort()).toEqual(expect.arrayContaining(['didvualt.db', 'didvualt.db.key']))
    // Now a database a service set up: no --create needed.
    expect((await run(['keys', 'create', '--tenant', 'acme', '--storage', `sqlite:${typo}`])).code).toBe(0)

    for (const args of [['list'], ['revoke', 'key_x']]) {
      const r = await run(['keys', ...args, '--create', '--storage', `sqlite:${typo}`])
      expect(r).toMatchObject({ code: 2, stderr: expect.stringContaining('--create goes with keys create') })
    }
  }, 60_000)
})
