/**
 * `didvault/client` in a real browser: headless Chromium (Debian's `chromium`, driven by
 * playwright-core) opens the example page (`examples/browser`, bundled and served on loopback by
 * esbuild), which creates a vault on a `didvault serve` started with `--cors` naming the page's
 * origin, signs a JSON-LD credential and verifies it; the test reads the result from the page.
 * The same page from an origin `--cors` does not name is refused by the browser, and its request
 * never reaches the service. Skipped, saying how to install Chromium, on a machine without it.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { context, type BuildContext } from 'esbuild'
import { chromium, type BrowserContext } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CLI, ROOT, ensureBuilt } from '../helpers/build.js'
import { http, killAll, spawnNode } from '../helpers/spawn.js'
import { CHROMIUM, CHROMIUM_ARGS, haveChromium, sayWhenNoChromium } from '../helpers/chromium.js'

sayWhenNoChromium('browser end-to-end test')

/** The example page, bundled by esbuild and served from memory on a loopback port of its own (its own origin). */
async function servePage(): Promise<{ origin: string; ctx: BuildContext }> {
  const dir = join(ROOT, 'examples/browser')
  const ctx = await context({
    entryPoints: [join(dir, 'main.ts')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    outdir: dir,
    write: false,
    logLevel: 'silent',
  })
  const { port } = await ctx.serve({ servedir: dir, host: '127.0.0.1', port: 0 })
  return { origin: `http://127.0.0.1:${port}`, ctx }
}

/** What the page shows: its result once done, or the error. */
interface PageResult {
  verified?: boolean
  checks?: Array<{ check: string; verified: boolean }>
  issuer?: string
  credential?: { issuer: string; proof: unknown }
  error?: string
  message?: string
}

describe.skipIf(!haveChromium)('didvault/client in headless Chromium', () => {
  let listed: { origin: string; ctx: BuildContext }
  let unlisted: { origin: string; ctx: BuildContext }
  let api: string
  let key: string
  let profile: string
  let browser: BrowserContext

  beforeAll(async () => {
    ensureBuilt()
    listed = await servePage()
    unlisted = await servePage()
    const server = spawnNode([CLI, 'serve', '--port', '0', '--storage', 'memory', '--cors', listed.origin], { cwd: ROOT })
    ;[, key] = await server.waitFor(/API key for tenant "default".*: (\S+)$/m)
    ;[, api] = await server.waitFor(/didvault listening on ([^\s"]+)"/)
    profile = mkdtempSync(join(tmpdir(), 'didvault-chromium-'))
    browser = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS })
  }, 180_000)

  afterAll(async () => {
    await browser?.close()
    await Promise.all([listed?.ctx.dispose(), unlisted?.ctx.dispose()])
    await killAll()
    if (profile) rmSync(profile, { recursive: true, force: true })
  })

  /** Opens the page at `origin`, runs it against the service and returns what it shows. */
  async function runPage(origin: string, serviceUrl = api): Promise<{ state: string | null; result: PageResult }> {
    const page = await browser.newPage()
    try {
      await page.goto(`${origin}/`)
      await page.fill('#api', serviceUrl)
      await page.fill('#key', key)
      await page.click('button[type=submit]')
      const output = page.locator('output#result:not([data-state="idle"]):not([data-state="running"])')
      await output.waitFor({ timeout: 60_000 })
      return { state: await output.getAttribute('data-state'), result: JSON.parse(await output.innerText()) }
    } finally {
      await page.close()
    }
  }

  const vaultCount = async (): Promise<number> => (await http(`${api}/vaults`, { token: key })).body.vaults.length

  it('a page of a listed origin creates a vault, signs a JSON-LD credential and verifies it', async () => {
    const { state, result } = await runPage(listed.origin)
    expect(state, JSON.stringify(result)).toBe('done')
    expect(result.verified).toBe(true)
    expect(result.credential?.issuer).toBe(result.issuer)
    expect(result.credential?.proof).toMatchObject({ type: 'EcdsaKoblitzSignature2016', creator: `${result.issuer}#controller` })
    expect(result.checks).toContainEqual(expect.objectContaining({ check: 'proof', verified: true }))
    expect(await vaultCount()).toBe(1)
  }, 90_000)

  it('the same page from an unlisted origin is refused by CORS: the client rejects with a TransportError, nothing is created', async () => {
    const { state, result } = await runPage(unlisted.origin)
    expect(state).toBe('failed')
    expect(result).toMatchObject({ error: 'TransportError', message: expect.stringMatching(/^POST \/vaults: no response from /) })
    expect(await vaultCount()).toBe(1)
  }, 90_000)

  it('a redirect to the service is not followed from the page: a TransportError, nothing reaches the service', async () => {
    // A loopback server the page's origin may call (CORS) answering every request with a 307 to the real service.
    const redirector = createServer((request, response) => {
      response.setHeader('access-control-allow-origin', listed.origin)
      if (request.method === 'OPTIONS') {
        response.writeHead(204, {
          'access-control-allow-headers': 'authorization, content-type, x-did-auth',
          'access-control-allow-methods': 'POST, GET',
        })
        return response.end()
      }
      response.writeHead(307, { location: `${api}${request.url}` })
      response.end()
    })
    await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve))
    try {
      const { state, result } = await runPage(listed.origin, `http://127.0.0.1:${(redirector.address() as AddressInfo).port}`)
      expect(state).toBe('failed')
      expect(result).toMatchObject({
        error: 'TransportError',
        message: expect.stringMatching(/^POST \/vaults: the server answered a redirect; /),
      })
      expect(await vaultCount()).toBe(1)
    } finally {
      await new Promise((resolve) => redirector.close(resolve))
    }
  }, 90_000)
})
