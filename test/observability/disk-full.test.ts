/**
 * A full disk under a running `didvault serve` on SQLite, for real: the database lives on a tmpfs
 * of a few MiB mounted for the test (needs root and `mount`; where that is refused the test is
 * skipped saying so), which a filler file then fills. Writes get 503 `SERVICE_UNAVAILABLE` with
 * `Retry-After` (never a 500), reads still work, `/health/ready` says 503 `storage cannot write:
 * disk full`; once space is freed, readiness comes back to 200 by itself and writes succeed.
 */
import { execFileSync } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { CLI, ensureBuilt } from '../helpers/build.js'
import { http, killAll, spawnNode } from '../helpers/spawn.js'

const TOKEN = 'disk-full-key-0123456789'
let dir: string
let mounted = false

beforeAll(() => {
  ensureBuilt()
  dir = mkdtempSync(join(tmpdir(), 'didvault-diskfull-'))
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=6m,mode=0700', 'tmpfs', dir], { stdio: 'pipe' })
    mounted = true
  } catch (err) {
    console.warn(`[disk full] cannot mount a tmpfs here (${(err as Error).message.split('\n')[0]}): the test is skipped`)
  }
}, 180_000)
afterEach(killAll)
afterAll(() => {
  if (mounted) execFileSync('umount', ['-l', dir])
  rmSync(dir, { recursive: true, force: true })
})

/** Writes zeros to `file` until the filesystem has no space left. */
function fill(file: string): void {
  const fd = openSync(file, 'w')
  const chunk = Buffer.alloc(64 * 1024)
  try {
    for (;;) writeSync(fd, chunk)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err
  } finally {
    closeSync(fd)
  }
}

const createVault = (url: string, name: string) => http(`${url}/vaults`, { method: 'POST', token: TOKEN, json: { name } })

describe('SQLite on a full disk', () => {
  it('writes are 503 with Retry-After, reads work, readiness says why; freed space brings both back by itself', async (context) => {
    if (!mounted) return context.skip()
    const proc = spawnNode([CLI, 'serve', '--port', '0', '--storage', `sqlite:${join(dir, 'didvault.db')}`], {
      cwd: dir,
      env: { DIDVAULT_MASTER_KEY: 'cd'.repeat(32), DIDVAULT_API_KEYS: `acme:${TOKEN}` },
    })
    const [, url] = await proc.waitFor(/didvault listening on (http:\/\/127\.0\.0\.1:\d+)/, 30_000)
    expect((await createVault(url, 'before')).status).toBe(200)
    expect((await http(`${url}/health/ready`)).status).toBe(200)

    const filler = join(dir, 'filler')
    fill(filler)
    // SQLite reuses the space its files already have: writes go on until the WAL must grow.
    let refused: Awaited<ReturnType<typeof http>> | undefined
    for (let i = 0; i < 2_000 && refused === undefined; i++) {
      const res = await createVault(url, `while full ${i}`)
      if (res.status !== 200) refused = res
    }
    expect(refused?.body).toEqual({
      statusCode: 503,
      errorType: 'SERVICE_UNAVAILABLE',
      errorMessage: 'Create Identity Vault failed: storage unavailable, retry later',
    })
    expect(refused?.headers.get('retry-after')).toBe('1')
    expect(refused?.headers.get('x-request-id')).toBeTruthy()
    expect((await createVault(url, 'still full')).status).toBe(503)
    expect(await http(`${url}/health/ready`)).toMatchObject({
      status: 503,
      body: { status: 'unavailable', reason: 'storage cannot write: disk full' },
    })
    const listed = await http(`${url}/vaults`, { token: TOKEN })
    expect(listed.status).toBe(200)
    expect(listed.body.vaults.map((v: { name: string }) => v.name)).toContain('before')

    rmSync(filler)
    let ready = await http(`${url}/health/ready`)
    for (let i = 0; i < 50 && ready.status !== 200; i++) {
      await sleep(100)
      ready = await http(`${url}/health/ready`)
    }
    expect(ready).toMatchObject({ status: 200, body: { status: 'ok' } })
    expect((await createVault(url, 'after')).status).toBe(200)
    expect(proc.stderr()).not.toMatch(/INTERNAL_ERROR/)
  }, 120_000)
})
