/**
 * Helper ui2's console screens in headless Chromium (Debian's, driven by playwright-core) against a real `didvault
 * serve` with the OID4VCI issuer and OID4VP verifier on (test/helpers/oid4vci-serve.ts: SQLite, publicUrl behind a
 * TLS terminator). Until the shell is merged the screens are mounted by a test harness page (./ui2-harness) served
 * with the console's CSP on its own loopback origin (the service names it in `--cors`); every page fails the test on
 * a `securitypolicyviolation`. Roles: grant in the matrix, a refusal shown with its errorType; OpenID: an offer's QR
 * code decoded from a screenshot back to its URI; Status lists: a revoked credential's bit set in the bitmap; Audit:
 * each act in the timeline, the chain verified. Screenshots to docs/console/<screen>.png.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { build } from 'esbuild'
import jsQRModule from 'jsqr'
import { chromium, type Browser, type Page } from 'playwright-core'
import { PNG } from 'pngjs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hasRoute, SERVED_CLAIMS, startServedIssuer, type ServedIssuer } from '../helpers/oid4vci-serve.js'
import { makeTestCa, type TestCa } from '../helpers/tls.js'
import { freeLoopbackPort } from '../helpers/ports.js'

const ROOT = join(import.meta.dirname, '../..')
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const haveChromium = existsSync(CHROMIUM)
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync']
const SHOTS = join(ROOT, 'docs/console')
const HAS_LIST_STATUS_LISTS = hasRoute('get', '/status-lists')
const HAS_VERIFY_CHAIN = hasRoute('get', '/audit/verify')

describe.skipIf(!haveChromium)('console screens of helper ui2 in headless Chromium', () => {
  let ca: TestCa
  let dir: string
  let issuer: ServedIssuer
  let harness: Server
  let origin: string
  let browser: Browser
  let bundle: string

  beforeAll(async () => {
    ca = makeTestCa()
    dir = mkdtempSync(join(tmpdir(), 'didvault-console-ui2-'))
    const built = await build({
      entryPoints: [join(import.meta.dirname, 'ui2-harness/main.tsx')],
      bundle: true,
      format: 'esm',
      platform: 'browser',
      jsx: 'automatic',
      jsxImportSource: 'preact',
      write: false,
      minify: false,
      logLevel: 'silent',
    })
    bundle = built.outputFiles[0].text
    const html = readFileSync(join(import.meta.dirname, 'ui2-harness/index.html'), 'utf8')
    const port = await freeLoopbackPort()
    origin = `http://127.0.0.1:${port}`
    issuer = await startServedIssuer({ storage: 'sqlite', ca, dir, oid4vp: {}, flags: ['--cors', origin] })
    const csp =
      `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self' ${issuer.localUrl}; ` +
      `base-uri 'none'; form-action 'none'; frame-ancestors 'none'`
    harness = createServer((request, response) => {
      const js = request.url === '/main.js'
      response.writeHead(js || request.url === '/' ? 200 : 404, {
        'content-type': js ? 'text/javascript' : 'text/html; charset=utf-8',
        'content-security-policy': csp,
      })
      response.end(js ? bundle : request.url === '/' ? html : '')
    })
    await new Promise<void>((resolve) => harness.listen(port, '127.0.0.1', resolve))
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS })
    mkdirSync(SHOTS, { recursive: true })
  }, 240_000)

  afterAll(async () => {
    await browser?.close()
    await issuer?.stop()
    await new Promise((resolve) => harness?.close(resolve))
    ca?.remove()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  /** A page with `screen` mounted, signed in with the tenant's key; CSP violations collected. */
  async function open(screen: string): Promise<{ page: Page; violations: () => Promise<string[]> }> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    await page.addInitScript(() => {
      const seen: string[] = []
      ;(window as unknown as { __csp: string[] }).__csp = seen
      document.addEventListener('securitypolicyviolation', (e) =>
        seen.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}:${e.columnNumber}`),
      )
    })
    await page.goto(`${origin}/`)
    await page.evaluate(
      ([id, base, key]) => (window as unknown as { mountScreen: (...a: string[]) => void }).mountScreen(id, base, key),
      [screen, issuer.localUrl, issuer.apiKey],
    )
    return { page, violations: () => page.evaluate(() => (window as unknown as { __csp: string[] }).__csp) }
  }

  const errorsOf = (page: Page) => page.locator('#errors li').allInnerTexts()

  it('Roles: ticking a cell grants the role (seen in the matrix and through the API); a refused grant shows its errorType', async () => {
    const { role } = await issuer.client.createRole({ description: 'Auditors', permissions: ['Read'] })
    const { wallet: member } = await issuer.client.generateWallet({ wallet: { alias: 'member' } })
    const { page, violations } = await open('roles')
    await page.selectOption('#roles-acting', issuer.issuingDid)
    const cell = page.locator(`tr[data-did="${member.did}"] input[data-role="${role.did}"]`)
    await cell.waitFor()
    expect(await cell.isChecked()).toBe(false)
    await cell.click()
    await page.getByText(`Granted Auditors to ${member.did}`).waitFor()
    await expect.poll(() => page.locator(`tr[data-did="${member.did}"] input[data-role="${role.did}"]`).isChecked()).toBe(true)
    const { assignments } = await issuer.client.getRoleAssignments({ role: role.did })
    expect(assignments.map((a) => a.did)).toEqual([member.did])
    await page.screenshot({ path: join(SHOTS, 'roles.png'), fullPage: true })

    // Acting as the member (it holds the role, did not create it): granting it to the issuer is refused by the service.
    await page.selectOption('#roles-acting', member.did)
    const other = page.locator(`tr[data-did="${issuer.issuingDid}"] input[data-role="${role.did}"]`)
    await other.waitFor()
    await other.click()
    await expect.poll(() => errorsOf(page)).toEqual([expect.stringMatching(/^FORBIDDEN: /)])
    const after = await issuer.client.getRoleAssignments({ role: role.did })
    expect(after.assignments.map((a) => a.did)).toEqual([member.did])
    expect(await violations()).toEqual([])
    await page.close()
  }, 120_000)

  it('OpenID: an offer made in the screen shows a QR code that decodes (from a screenshot) to its openid-credential-offer:// URI', async () => {
    const { page, violations } = await open('openid')
    await page.locator('#offer-configuration').waitFor()
    await page.fill('#offer-claims', JSON.stringify(SERVED_CLAIMS))
    await page.click('text=Create offer')
    const qr = page.locator('img.offer-qr')
    await qr.waitFor()
    const uri = await page.locator('.offer-uri').innerText()
    expect(uri).toMatch(/^openid-credential-offer:\/\/\?credential_offer_uri=/)
    const png = PNG.sync.read(await qr.screenshot())
    const jsQR = (jsQRModule as unknown as { default?: typeof jsQRModule }).default ?? jsQRModule
    const decoded = (jsQR as unknown as (d: Uint8ClampedArray, w: number, h: number) => { data: string } | null)(
      new Uint8ClampedArray(png.data),
      png.width,
      png.height,
    )
    expect(decoded?.data).toBe(uri)
    expect(await page.locator('img.offer-qr').getAttribute('src')).toMatch(/^data:image\/svg\+xml;base64,/)
    await page.screenshot({ path: join(SHOTS, 'openid.png'), fullPage: true })
    expect(await errorsOf(page)).toEqual([])
    expect(await violations()).toEqual([])
    await page.close()
  }, 120_000)

  it.skipIf(!HAS_LIST_STATUS_LISTS)(
    'Status lists: a revoked credential’s bit is set in its list’s bitmap',
    async () => {
      const { vcs } = await issuer.client.signClaims({
        iss: issuer.issuingDid,
        format: 'JWT',
        status: { purposes: ['revocation'] },
        claims: [{ payload: { n: 1 } }, { payload: { n: 2 } }],
      })
      const entries = (vcs as Array<{ jwt: string }>).map(
        (vc) =>
          (JSON.parse(Buffer.from(vc.jwt.split('.')[1], 'base64url').toString()) as { vc: { credentialStatus: Record<string, string> } }).vc
            .credentialStatus,
      )
      const revoked = entries[1]
      await issuer.client.changeStatus({
        items: [
          {
            statusListCredential: revoked.statusListCredential,
            statusListIndex: revoked.statusListIndex,
            purpose: 'revocation',
            value: true,
          },
        ],
      })
      const listId = revoked.statusListCredential.split('/').pop()!
      const index = Number(revoked.statusListIndex)
      const { page, violations } = await open('status-lists')
      const card = page.locator(`[data-list-id="${listId}"]`)
      await card.waitFor()
      // The list is signed again within the publication interval: reload until the published bits show the change.
      await expect
        .poll(
          async () => {
            await page.click('text=Reload')
            return page.locator(`[data-list-id="${listId}"] .set-entries`).innerText()
          },
          { timeout: 60_000, interval: 1_000 },
        )
        .toContain(String(index))
      const pixel = await page.evaluate(
        ([id, i]) => {
          const canvas = document.getElementById(`bitmap-${id}`) as HTMLCanvasElement
          const columns = Number(canvas.dataset.columns)
          const cell = Number(canvas.dataset.cell)
          const at = (n: number) =>
            Array.from(canvas.getContext('2d')!.getImageData((n % columns) * cell, Math.floor(n / columns) * cell, 1, 1).data)
          return { set: at(Number(i)), unset: at(Number(i) === 0 ? 1 : 0) }
        },
        [listId, String(index)],
      )
      expect(pixel.set.slice(0, 3)).toEqual([0xc6, 0x28, 0x28])
      expect(pixel.unset.slice(0, 3)).toEqual([0xe8, 0xec, 0xf1])
      expect(await card.locator('.etag').innerText()).not.toBe('—')
      await page.screenshot({ path: join(SHOTS, 'status-lists.png'), fullPage: true })
      expect(await violations()).toEqual([])
      await page.close()
    },
    120_000,
  )

  it('Audit trail: each act of the tests above is in the timeline; filters by action; the chain verified', async () => {
    const { page, violations } = await open('audit')
    await page.locator('.timeline li').first().waitFor()
    const actions = await page.locator('.timeline li').evaluateAll((items) => items.map((li) => (li as HTMLElement).dataset.action))
    expect(actions).toEqual(expect.arrayContaining(['role.create', 'assignment.grant', 'credentialOffer.create', 'token.generate']))
    if (HAS_LIST_STATUS_LISTS) expect(actions).toContain('credential.status')
    await page.selectOption('#audit-action', 'assignment.grant')
    await page.click('text=Apply filters')
    await expect
      .poll(() => page.locator('.timeline li').evaluateAll((items) => items.map((li) => (li as HTMLElement).dataset.action)))
      .toEqual(expect.arrayContaining(['assignment.grant']))
    const filtered = await page.locator('.timeline li').evaluateAll((items) => items.map((li) => (li as HTMLElement).dataset.action))
    expect(new Set(filtered)).toEqual(new Set(['assignment.grant']))
    await page.selectOption('#audit-outcome', 'refused')
    expect(await page.locator('.timeline li.refused').count()).toBe(await page.locator('.timeline li').count())
    await page.selectOption('#audit-outcome', '')
    if (HAS_VERIFY_CHAIN) await expect.poll(() => page.locator('.chain').getAttribute('data-ok')).toBe('true')
    const download = page.waitForEvent('download')
    await page.click('text=Export JSON lines')
    const file = await (await download).path()
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { action: string })
    expect(lines.map((l) => l.action)).toEqual(filtered)
    await page.screenshot({ path: join(SHOTS, 'audit.png'), fullPage: true })
    expect(await violations()).toEqual([])
    await page.close()
  }, 120_000)
})
