/**
 * The Credentials screen pages through 100,000 stored credentials without loading them all: a SQLite database seeded,
 * before `didvault serve --console` opens it, with 100,000 public VC-JWTs of one tenant (the records the service writes:
 * signed, parsed by the JWT format, built by Store's `credentialRecord`, inserted with the adapter's `insertMany`); in
 * Chromium the first page shows the 20 oldest, Next and Previous show the next and earlier 20 in the stored order, the
 * page only ever asks Fetch for 20 (`limit=20` and a cursor; each answer holds at most 20) and the DOM holds at most 20
 * rows. The first load of /console/ and a page turn at 100,000 are printed, not asserted. Runs without bypassCSP and
 * fails on a CSP violation, a request to another host or a page error.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ensureBuilt } from '../helpers/build.js'
import { seedCredentials, seededId, type SeededCredentials } from '../helpers/seed-credentials.js'
import { haveChromium, openScreen, startConsole, type ConsoleRig } from './harness.js'

const COUNT = 100_000
const PAGE = 20

/** What the page asked of Fetch (`GET /claims`): its query and how many credentials the answer held. */
interface FetchCall {
  limit: string | null
  cursor: string | null
  answered?: number
}

/** The credential ids of the rows the table shows, in order. */
const shownIds = (page: Page) =>
  page
    .getByRole('table')
    .first()
    .locator('tbody tr button.link')
    .evaluateAll((buttons) => buttons.map((b) => (b as unknown as { textContent: string }).textContent))

const ids = (from: number) => Array.from({ length: PAGE }, (_, i) => seededId(from + i))

describe.skipIf(!haveChromium)('the Credentials screen pages through 100,000 stored credentials', () => {
  let dir: string
  let rig: ConsoleRig
  let seeded: SeededCredentials
  let did: string

  beforeAll(async () => {
    ensureBuilt()
    dir = mkdtempSync(join(tmpdir(), 'didvault-console-paging-'))
    const path = join(dir, 'didvault.db')
    const started = performance.now()
    seeded = await seedCredentials(path, 'acme', COUNT)
    const { sign, parse, insert } = seeded.ms
    console.log(
      `seeded ${COUNT} VC-JWTs in ${((performance.now() - started) / 1000).toFixed(1)} s ` +
        `(sign ${(sign / 1000).toFixed(1)} s, parse and build ${(parse / 1000).toFixed(1)} s, insertMany ${(insert / 1000).toFixed(1)} s)`,
    )
    rig = await startConsole([], { storage: `sqlite:${path}`, env: { DIDVAULT_MASTER_KEY: randomBytes(32).toString('hex') } })
    // The DID the screen reads as: a wallet of the tenant (the seeded credentials are public).
    did = (await rig.client.generateWallet({ wallet: { alias: 'reader' }, walletConfig: { didMethod: 'key', keyType: 'Ed25519' } })).wallet
      .did
  }, 240_000)

  afterAll(async () => {
    await rig?.close()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('the seeded records are what the service stores: Fetch finds them in order, and one verifies', async () => {
    const as = rig.client.as({ authorization: `Bearer ${rig.key}`, didAuth: (await rig.client.generateToken({ iss: did })).jwt })
    const first = await as.getClaims({ limit: 3 })
    expect(first.vcs.map((c) => c.id)).toEqual([seededId(0), seededId(1), seededId(2)])
    expect(first.vcs[0]).toMatchObject({ format: 'JWT', issuer: seeded.issuer, jwt: seeded.first, isPublicAccess: true })
    expect(first.nextCursor).toBeTypeOf('string')
    const { vcs } = await as.verifyClaims({ vcs: [{ jwt: seeded.first }] })
    expect(vcs[0].verified, JSON.stringify(vcs[0])).toBe(true)
  })

  it('pages 20 at a time by cursor, forward and back, never asking for more; first load and page turn timed', async () => {
    const watched = await rig.page()
    const { page } = watched
    const calls: FetchCall[] = []
    const callOf = new Map<object, FetchCall>()
    page.on('request', (r) => {
      const url = new URL(r.url())
      if (url.pathname !== '/claims' || r.method() !== 'GET') return
      const call = { limit: url.searchParams.get('limit'), cursor: url.searchParams.get('cursor') }
      calls.push(call)
      callOf.set(r, call)
    })
    page.on('response', (r) => {
      const call = callOf.get(r.request())
      if (call)
        r.json().then(
          (body: { vcs: unknown[] }) => (call.answered = body.vcs.length),
          () => (call.answered = -1),
        )
    })

    const started = performance.now()
    await page.goto(`${rig.origin}/console/`, { waitUntil: 'load' })
    await page.getByLabel('API key').waitFor()
    const loaded = performance.now() - started
    const load = await page.evaluate(() => {
      const nav = (globalThis as any).performance.getEntriesByType('navigation')[0]
      return nav.loadEventEnd - nav.startTime
    })
    await page.getByLabel('API key').fill(rig.key)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('navigation', { name: 'Screens' }).waitFor()
    await openScreen(page, 'Credentials')

    const caption = (n: number) => page.getByText(`Stored credentials, page ${n}`, { exact: true })
    const showing = async (n: number, from: number) => {
      await caption(n).waitFor()
      await expect.poll(() => shownIds(page)).toEqual(ids(from))
      expect(await page.locator('tbody tr').count()).toBeLessThanOrEqual(PAGE)
    }
    const firstPageAt = performance.now()
    await page.getByLabel('Read as DID').selectOption(did)
    await showing(1, 0)
    const firstPage = performance.now() - firstPageAt

    const next = page.getByRole('button', { name: 'Next page' })
    const previous = page.getByRole('button', { name: 'Previous page' })
    expect(await previous.isDisabled()).toBe(true)
    const turns: number[] = []
    for (let n = 2; n <= 5; n++) {
      const at = performance.now()
      await next.click()
      await showing(n, (n - 1) * PAGE)
      turns.push(performance.now() - at)
    }
    await previous.click()
    await showing(4, 3 * PAGE)
    await previous.click()
    await showing(3, 2 * PAGE)
    await next.click()
    await showing(4, 3 * PAGE)

    // Every ask of Fetch was one page by cursor (the first without), and every answer held one page.
    await expect.poll(() => calls.every((c) => c.answered !== undefined)).toBe(true)
    expect(calls).toHaveLength(8)
    for (const call of calls) {
      expect(call.limit).toBe(String(PAGE))
      expect(call.answered).toBeLessThanOrEqual(PAGE)
    }
    expect(calls[0].cursor).toBeNull()
    expect(calls.slice(1).every((c) => c.cursor !== null)).toBe(true)
    expect(await page.locator('tbody tr').count()).toBe(PAGE)
    watched.assertClean()

    const mean = turns.reduce((a, b) => a + b, 0) / turns.length
    console.log(
      `console at ${COUNT} stored credentials: first load ${load.toFixed(0)} ms (navigation timing; ${loaded.toFixed(0)} ms until ` +
        `the sign-in field showed), first page ${firstPage.toFixed(0)} ms, a page turn ${mean.toFixed(0)} ms on average ` +
        `(${turns.map((t) => t.toFixed(0)).join(', ')} ms; click to the 20 rows shown)`,
    )
    await watched.context.close()
  })
})
