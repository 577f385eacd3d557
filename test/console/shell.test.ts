/**
 * The console's frame in headless Chromium against a real `didvault serve --console`: the files served with the strict
 * CSP, sign-in with an API key kept in memory only (the field cleared; nothing in storage, cookies, the URL or the DOM),
 * a wrong key refused with the server's errorType, keyboard navigation between the screens, the first load timed
 * (printed, not asserted); and without --console no /console at all. Every page fails on a CSP violation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CLI, ROOT } from '../helpers/build.js'
import { http, spawnNode } from '../helpers/spawn.js'
import { haveChromium, signIn, startConsole, type ConsoleRig } from './harness.js'

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; " +
  "form-action 'none'; frame-ancestors 'none'"

describe.skipIf(!haveChromium)('the console shell in Chromium', () => {
  let rig: ConsoleRig

  beforeAll(async () => {
    rig = await startConsole()
  }, 300_000)
  afterAll(async () => rig?.close())

  it('serves index.html, main.js and main.css with the strict CSP; /console redirects to /console/', async () => {
    for (const [path, type] of [
      ['/console/', 'text/html'],
      ['/console/main.js', 'text/javascript'],
      ['/console/main.css', 'text/css'],
    ]) {
      const res = await fetch(`${rig.origin}${path}`)
      expect(res.status, path).toBe(200)
      expect(res.headers.get('content-type')).toContain(type)
      expect(res.headers.get('content-security-policy')).toBe(CSP)
      expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    }
    const redirect = await fetch(`${rig.origin}/console`, { redirect: 'manual' })
    expect(redirect.status).toBe(301)
    expect(redirect.headers.get('location')).toBe('/console/')
    expect((await fetch(`${rig.origin}/console/other.js`)).status).toBe(404)
  })

  it('signs in: the key field is cleared, the key is in no storage, cookie, URL or DOM; the first load is timed', async () => {
    const watched = await rig.page()
    const { page } = watched
    const started = performance.now()
    await page.goto(`${rig.origin}/console/`, { waitUntil: 'load' })
    await page.getByLabel('API key').waitFor()
    const loaded = performance.now() - started
    const timing = await page.evaluate(() => {
      const { performance } = globalThis as any
      const nav = performance.getEntriesByType('navigation')[0]
      return { load: nav.loadEventEnd - nav.startTime, resources: performance.getEntriesByType('resource').length + 1 }
    })
    console.log(
      `console first load on loopback: ${timing.load.toFixed(0)} ms (navigation timing, ${timing.resources} requests); ` +
        `${loaded.toFixed(0)} ms until the sign-in field showed (test's clock)`,
    )
    const field = page.getByLabel('API key')
    await field.fill(rig.key)
    await page.keyboard.press('Enter')
    await page.getByRole('navigation', { name: 'Screens' }).waitFor()
    const kept = await page.evaluate((key) => {
      const { document, localStorage, sessionStorage, location } = globalThis as any
      return {
        inDom: document.documentElement.outerHTML.includes(key),
        local: localStorage.length,
        session: sessionStorage.length,
        cookie: document.cookie,
        url: location.href.includes(key),
      }
    }, rig.key)
    expect(kept).toEqual({ inDom: false, local: 0, session: 0, cookie: '', url: false })
    expect(await watched.context.cookies()).toEqual([])
    watched.assertClean()
    await watched.context.close()
  }, 60_000)

  it('a wrong API key is refused: the banner shows the server’s errorType, the form stays, its field empty', async () => {
    const watched = await rig.page()
    const { page } = watched
    await page.goto(`${rig.origin}/console/`)
    await page.getByLabel('API key').fill('dv_wrong_key_0123456789abcdef')
    await page.getByRole('button', { name: 'Sign in' }).click()
    const banner = page.getByRole('alert')
    await expect.poll(() => banner.getAttribute('data-error-type')).toBe('UNAUTHENTICATED')
    expect(await page.getByLabel('API key').inputValue()).toBe('')
    expect(await page.getByRole('navigation', { name: 'Screens' }).count()).toBe(0)
    watched.assertClean()
    await watched.context.close()
  }, 60_000)

  it('the screens are reached with the keyboard alone; each link names its screen', async () => {
    const watched = await rig.page()
    const { page } = watched
    await signIn(page, rig.origin, rig.key)
    const links = page.getByRole('navigation', { name: 'Screens' }).getByRole('link')
    const titles = await links.allInnerTexts()
    expect(titles.slice(0, 3)).toEqual(['Overview', 'Vaults & wallets', 'Credentials'])
    await links.nth(1).focus()
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { level: 1, name: 'Vaults & wallets' }).waitFor()
    expect(await links.nth(1).getAttribute('aria-current')).toBe('page')
    watched.assertClean()
    await watched.context.close()
  }, 60_000)

  it('without --console there is no /console', async () => {
    const plain = spawnNode([CLI, 'serve', '--port', '0', '--storage', 'memory'], { cwd: ROOT })
    const [, origin] = await plain.waitFor(/didvault listening on ([^\s"]+)"/, 60_000)
    expect((await http(`${origin}/console/`)).status).toBe(404)
    expect((await http(`${origin}/console/main.js`)).status).toBe(404)
    plain.child.kill('SIGKILL')
    await plain.exited
  }, 60_000)
})
