/**
 * `didvault serve --console --workers 2` (the built CLI, one SQLite database): each worker serves the console's files
 * with the strict Content-Security-Policy (which worker answered a connection is read from Linux's `/proc`, as
 * test/cli-workers.test.ts does), and in Chromium sign-ins and the screens work — a vault created, the overview
 * sampling the cluster's /metrics, the audit chain verified — while the pages' connections are held by both workers.
 * Every page runs without bypassCSP and fails on a CSP violation, a request to another host or a page error.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CLI, ROOT, ensureBuilt } from '../helpers/build.js'
import { ownerOf, until } from '../helpers/processes.js'
import { killAll, spawnNode, type Spawned } from '../helpers/spawn.js'
import { haveChromium, launchChromium, openScreen, signIn, watchedPage } from './harness.js'

const LISTENING = /didvault listening on (http:\/\/127\.0\.0\.1:(\d+)) \((\d+) workers\)"/
const WORKER = /"didvault worker (\d+) listening"/g
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; " +
  "form-action 'none'; frame-ancestors 'none'"
const ASSETS = ['/console/', '/console/main.js', '/console/main.css']

/** One GET on a fresh connection: status, the security headers, and the worker that answered. */
function get(origin: string, port: number, path: string, workers: number[]) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  return new Promise<{ status: number; csp: unknown; nosniff: unknown; worker: number | undefined }>((resolve, reject) => {
    const req = request(`${origin}${path}`, { agent })
    req.on('response', (res) => {
      const worker = ownerOf(port, res.socket.localPort!, workers)
      res.resume()
      res.on('end', () => {
        agent.destroy()
        resolve({
          status: res.statusCode!,
          csp: res.headers['content-security-policy'],
          nosniff: res.headers['x-content-type-options'],
          worker,
        })
      })
    })
    req.on('error', reject)
    req.end()
  })
}

/** How many established connections to `port` each of `pids` holds (the server side of each). */
function connectionsByWorker(port: number, pids: number[]): Map<number, number> {
  const inodes = new Set<string>()
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').trim().split('\n').slice(1)) {
      const [, local, , state, , , , , , inode] = line.trim().split(/\s+/)
      if (state === '01' && parseInt(local.split(':').at(-1)!, 16) === port) inodes.add(`socket:[${inode}]`)
    }
  }
  const held = (pid: number) =>
    readdirSync(`/proc/${pid}/fd`).filter((fd) => {
      try {
        return inodes.has(readlinkSync(`/proc/${pid}/fd/${fd}`))
      } catch {
        return false
      }
    }).length
  return new Map(pids.map((pid) => [pid, held(pid)]))
}

describe.skipIf(!haveChromium)('didvault serve --console --workers 2', () => {
  let dir: string
  let server: Spawned
  let origin: string
  let port: number
  let workers: number[]
  let browser: Browser
  const key = `dv_test_${randomBytes(24).toString('hex')}`

  beforeAll(async () => {
    ensureBuilt()
    dir = mkdtempSync(join(tmpdir(), 'didvault-console-workers-'))
    server = spawnNode([CLI, 'serve', '--port', '0', '--workers', '2', '--storage', `sqlite:${join(dir, 'x.db')}`, '--console'], {
      cwd: ROOT,
      env: { DIDVAULT_API_KEYS: `acme:${key}` },
    })
    const [, url, listening, count] = await server.waitFor(LISTENING, 60_000)
    origin = url
    port = Number(listening)
    expect(count).toBe('2')
    workers = await until(() => {
      const pids = [...server.stdout().matchAll(WORKER)].map((m) => Number(m[1]))
      return pids.length === 2 ? pids : undefined
    }, 'two worker lines')
    browser = await launchChromium()
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await killAll()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('both workers serve every console file with the strict Content-Security-Policy', async () => {
    for (const path of ASSETS) {
      const answeredBy = new Set<number | undefined>()
      for (let i = 0; i < 20 && answeredBy.size < 2; i++) {
        const answer = await get(origin, port, path, workers)
        expect({ path, status: answer.status, csp: answer.csp, nosniff: answer.nosniff }).toEqual({
          path,
          status: 200,
          csp: CSP,
          nosniff: 'nosniff',
        })
        answeredBy.add(answer.worker)
      }
      expect([...answeredBy].sort(), path).toEqual([...workers].sort())
    }
  })

  it('signs in and shows the screens in Chromium while its connections are held by both workers', { timeout: 120_000 }, async () => {
    // One context per sign-in: its own connections; several, so the cluster hands them to both workers.
    const held = new Map<number, number>(workers.map((pid) => [pid, 0]))
    for (let round = 0; round < 3; round++) {
      const watched = await watchedPage(browser, origin)
      const { page } = watched
      await signIn(page, origin, key)
      await openScreen(page, 'Vaults & wallets')
      await page.getByLabel('Name').fill(`vault ${round}`)
      await page.getByRole('button', { name: 'Create vault' }).click()
      await page.getByRole('table', { name: 'Vaults' }).getByText(`vault ${round}`, { exact: true }).waitFor()
      await openScreen(page, 'Overview')
      await page.getByText('Vaults', { exact: true }).first().waitFor()
      // The cluster serves /metrics on the same origin (every worker's counts summed by the primary): the screen samples it.
      await page.getByText('Sampling /metrics every 5 s…').waitFor()
      await openScreen(page, 'Credentials')
      await openScreen(page, 'Audit trail')
      await page.locator('.timeline li[data-action="vault.create"]').nth(round).waitFor()
      await expect.poll(() => page.locator('.chain').getAttribute('data-ok')).toBe('true')
      for (const [pid, n] of connectionsByWorker(port, workers)) held.set(pid, held.get(pid)! + n)
      watched.assertClean()
      await watched.context.close()
    }
    console.log(`the console's connections held by each worker, summed over 3 sign-ins: ${JSON.stringify(Object.fromEntries(held))}`)
    expect(
      [...held.values()].every((n) => n > 0),
      JSON.stringify(Object.fromEntries(held)),
    ).toBe(true)
  })
})
