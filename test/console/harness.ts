/**
 * The console's browser tests' harness: a real `didvault serve --console` (memory storage, two tenants' API keys from
 * DIDVAULT_API_KEYS), Debian's Chromium driven by playwright-core, pages that record every `securitypolicyviolation`
 * (tests fail on any) and run WITHOUT bypassCSP, a sign-in helper, the accessibility pass (axe-core injected in a
 * context of its own with bypassCSP: true, the only one) and screenshots into docs/console/.
 */
import { randomBytes } from 'node:crypto'
import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createRequire } from 'node:module'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
import { expect } from 'vitest'
import { createClient, type DidvaultClient } from '../../src/client/index.js'
import { CLI, ROOT, ensureBuilt } from '../helpers/build.js'
import { killAll, spawnNode, type Spawned } from '../helpers/spawn.js'
import { CHROMIUM, CHROMIUM_ARGS, haveChromium, sayWhenNoChromium } from '../helpers/chromium.js'

export { CHROMIUM, haveChromium }
sayWhenNoChromium('console browser tests')

/** A running console: the service's origin, two tenants' API keys, their clients, the browser. */
export interface ConsoleRig {
  origin: string
  /** Tenant "acme"'s API key and client. */
  key: string
  client: DidvaultClient
  /** Tenant "globex"'s. */
  otherKey: string
  otherClient: DidvaultClient
  server: Spawned
  browser: Browser
  /** A fresh context (no bypassCSP) and page recording CSP violations, requests to other hosts and page errors. */
  page(): Promise<WatchedPage>
  close(): Promise<void>
}

/** A page and what it saw that a test must not see. */
export interface WatchedPage {
  page: Page
  context: BrowserContext
  /** `securitypolicyviolation` events of the page: directive and blocked URI. */
  violations: string[]
  /** Requests to any origin but the service's. */
  foreign: string[]
  /** Uncaught errors of the page. */
  errors: string[]
  /** Fails the test on any of the above. */
  assertClean(): void
}

const apiKey = () => `dv_test_${randomBytes(24).toString('hex')}`

/** Where {@link startConsole}'s server keeps its records. */
export interface ConsoleStorage {
  /** `--storage` (default `memory`): e.g. `sqlite:<path>` of a database a test seeded before the start. */
  storage?: string
  /** More environment of the server (e.g. `DIDVAULT_MASTER_KEY` for a seeded database without its key file). */
  env?: Record<string, string>
}

/** Starts `didvault serve --console` (memory storage unless `options.storage`) and Chromium. */
export async function startConsole(extraArgs: string[] = [], options: ConsoleStorage = {}): Promise<ConsoleRig> {
  ensureBuilt()
  const key = apiKey()
  const otherKey = apiKey()
  const server = spawnNode([CLI, 'serve', '--port', '0', '--storage', options.storage ?? 'memory', '--console', ...extraArgs], {
    cwd: ROOT,
    env: { ...options.env, DIDVAULT_API_KEYS: `acme:${key},globex:${otherKey}` },
  })
  const [, origin] = await server.waitFor(/didvault listening on ([^\s"]+)"/, 60_000)
  const browser = await launchChromium()
  return {
    origin,
    key,
    otherKey,
    client: createClient({ baseUrl: origin, apiKey: key }),
    otherClient: createClient({ baseUrl: origin, apiKey: otherKey }),
    server,
    browser,
    page: () => watchedPage(browser, origin),
    async close() {
      await browser.close()
      await killAll()
    },
  }
}

/** Debian's Chromium, headless, without network chatter. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS })
}

/** A fresh context (no bypassCSP) and page on `origin`'s service, recording CSP violations, requests to other hosts and page errors. */
export async function watchedPage(browser: Browser, origin: string): Promise<WatchedPage> {
  const context = await browser.newContext({ bypassCSP: false, viewport: { width: 1280, height: 860 } })
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin })
  const page = await context.newPage()
  const violations: string[] = []
  const foreign: string[] = []
  const errors: string[] = []
  await page.exposeFunction('__cspViolation', (v: string) => violations.push(v))
  // In the page (the test's tsconfig has no DOM types: the page's globals are reached through globalThis).
  await page.addInitScript(() => {
    const page = globalThis as any
    page.document.addEventListener('securitypolicyviolation', (e: any) => page.__cspViolation(`${e.violatedDirective} ${e.blockedURI}`))
  })
  page.on('request', (r) => {
    const url = r.url()
    if (!url.startsWith(`${origin}/`) && !url.startsWith('data:')) foreign.push(url)
  })
  page.on('pageerror', (e) => errors.push(e.message))
  return {
    page,
    context,
    violations,
    foreign,
    errors,
    assertClean() {
      expect(violations, 'Content-Security-Policy violations').toEqual([])
      expect(foreign, 'requests to other hosts').toEqual([])
      expect(errors, 'page errors').toEqual([])
    },
  }
}

/** Opens /console/ and signs in with `key`; resolves once the navigation shows. */
export async function signIn(page: Page, origin: string, key: string): Promise<void> {
  await page.goto(`${origin}/console/`)
  await page.getByLabel('API key').fill(key)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('navigation', { name: 'Screens' }).waitFor()
}

/** Shows the screen `id` (by its link in the navigation) and waits for its heading. */
export async function openScreen(page: Page, title: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: title }).click()
  await page.getByRole('heading', { level: 1, name: title }).waitFor()
}

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

/** An axe-core violation: rule, impact, where. */
export interface AxeViolation {
  id: string
  impact: string | null
  help: string
  nodes: string[]
}

/**
 * The accessibility pass: the screen `title` opened in a context of its own with bypassCSP: true (axe-core is injected
 * as a script, which the console's CSP refuses otherwise) and checked; the serious and critical violations.
 */
export async function axeViolations(
  rig: Pick<ConsoleRig, 'browser' | 'origin'>,
  key: string,
  title: string,
  prepare?: (page: Page) => Promise<void>,
) {
  const context = await rig.browser.newContext({ bypassCSP: true, viewport: { width: 1280, height: 860 } })
  try {
    const page = await context.newPage()
    await signIn(page, rig.origin, key)
    await openScreen(page, title)
    if (prepare) await prepare(page)
    await page.addScriptTag({ content: AXE })
    const result = await page.evaluate(async () => {
      const axe = (globalThis as any).axe as { run(): Promise<{ violations: any[] }> }
      const { violations } = await axe.run()
      return violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n: any) => n.target.join(' ')) }))
    })
    return (result as AxeViolation[]).filter((v) => v.impact === 'serious' || v.impact === 'critical')
  } finally {
    await context.close()
  }
}

/** Writes a screenshot of the page to docs/console/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  const dir = join(ROOT, 'docs/console')
  mkdirSync(dir, { recursive: true })
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true })
}
