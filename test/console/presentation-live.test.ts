/**
 * The OpenID screen's presentation request, answered by a real wallet while the page stays open (issue 36: "create a
 * presentation request and show its QR code and its result live when the wallet answers"). A real built
 * `didvault serve --console` with its OID4VP verifier on (test/helpers/oid4vci-serve.ts: SQLite, publicUrl behind the
 * test TLS terminator); an SD-JWT VC signed through the client to a holder key the test wallet holds. The request is
 * made through the screen's own form (verifier identified by the tenant's DID), its URI read back from the QR code
 * (decoded from a screenshot), and the openid4vc wallet of test/helpers/oid4vp-wallets.ts answers it. The screen must
 * turn from pending to the result without a reload or a navigation, within a few poll periods: the verified result
 * with its named checks and the disclosed claims; a refused one (a nonce not the request's, the wallet's own
 * `access_denied`) with its state, error and failed check. No CSP violation, no request to another host, no page error;
 * the page shows no disclosure salt, no key. A screenshot of the verified result into docs/console/.
 */
import { mkdtempSync, rmSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as jose from 'jose'
import jsQRModule from 'jsqr'
import type { Browser, Locator, Page } from 'playwright-core'
import { PNG } from 'pngjs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CLI, ensureBuilt } from '../helpers/build.js'
import { SERVED_CLAIMS, SERVED_VCT, startServedIssuer, type ServedIssuer } from '../helpers/oid4vci-serve.js'
import { openid4vcWallet, type HeldCredential, type VpWallet } from '../helpers/oid4vp-wallets.js'
import { makeTestCa, type TestCa } from '../helpers/tls.js'
import { axeViolations, haveChromium, launchChromium, openScreen, screenshot, signIn, watchedPage, type WatchedPage } from './harness.js'

type Decode = (data: Uint8ClampedArray, width: number, height: number) => { data: string } | null
const jsQR = ((jsQRModule as unknown as { default?: Decode }).default ?? jsQRModule) as unknown as Decode

/** The text of the QR code shown by `image` (a screenshot of the element, decoded). */
async function qrText(image: Locator): Promise<string | undefined> {
  const png = PNG.sync.read(await image.screenshot())
  return jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data
}

/** The public JWK a did:jwk (URL) names. */
const jwkOfDidJwk = (did: string) => JSON.parse(Buffer.from(did.slice('did:jwk:'.length).split('#')[0], 'base64url').toString('utf8'))

/** How often the screen reads a pending result again (POLL_MS of src/console/screens/openid-request.tsx). */
const POLL_MS = 2_000

/** The screen shows the answer within this long of the wallet's POST: three poll periods and a second. */
const LIVE_WITHIN_MS = 3 * POLL_MS + 1_000

describe.skipIf(!haveChromium)('the OpenID screen shows a presentation request’s result live in Chromium', () => {
  let ca: TestCa
  let dir: string
  let served: ServedIssuer
  let browser: Browser
  let wallet: VpWallet
  let held: HeldCredential & { format: 'dc+sd-jwt' }
  /** The SD-JWT VC's disclosure salts: never in the page. */
  let salts: string[]

  beforeAll(async () => {
    ensureBuilt()
    ca = makeTestCa()
    dir = mkdtempSync(join(tmpdir(), 'didvault-console-live-'))
    served = await startServedIssuer({ storage: 'sqlite', ca, dir, oid4vp: {}, flags: ['--console'], cli: CLI })
    browser = await launchChromium()
    wallet = openid4vcWallet({ ca: readFileSync(ca.caFile, 'utf8'), resolveDidKey: async (didUrl) => jwkOfDidJwk(didUrl) })

    // The holder's key stays in the wallet; the tenant's issuing DID signs an SD-JWT VC bound to it.
    const { privateKey } = await jose.generateKeyPair('ES256', { extractable: true })
    const holderKey = await jose.exportJWK(privateKey)
    const { d: _d, ...holderPublic } = holderKey
    const signed = await served.client.signClaims({
      iss: served.issuingDid,
      format: 'SD-JWT',
      claims: [
        {
          vct: SERVED_VCT,
          payload: SERVED_CLAIMS,
          disclose: ['/given_name', '/family_name'],
          holderJwk: { kty: 'EC', crv: 'P-256', x: String(holderPublic.x), y: String(holderPublic.y) },
        },
      ],
    })
    const sdjwt = (signed.vcs[0] as { sdjwt: string }).sdjwt
    held = { format: 'dc+sd-jwt', sdjwt, holderKey }
    salts = sdjwt
      .split('~')
      .slice(1)
      .filter((part) => part !== '')
      .map((part) => (JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as [string, ...unknown[]])[0])
    expect(salts).toHaveLength(2)
  }, 300_000)

  afterAll(async () => {
    await browser?.close()
    await served?.stop()
    ca?.remove()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  /** The screen open on a watched page (no bypassCSP), counting the main frame's navigations from now on. */
  async function openOpenId(): Promise<WatchedPage & { navigations: () => number }> {
    const watched = await watchedPage(browser, served.localUrl)
    await signIn(watched.page, served.localUrl, served.apiKey)
    await openScreen(watched.page, 'Issue & verify (OpenID)')
    let navigations = 0
    watched.page.on('framenavigated', (frame) => {
      if (frame === watched.page.mainFrame()) navigations++
    })
    return { ...watched, navigations: () => navigations }
  }

  /**
   * Creates a request through the screen's form (the verifier identified by the tenant's DID, the default DCQL query:
   * given_name of an SD-JWT VC of SERVED_VCT), reads its URI back from the QR code and waits for "pending". Marks the
   * page's global object, so that a reload (which would lose the mark) is seen.
   */
  async function createRequest(page: Page): Promise<{ uri: string; id: string }> {
    await page.getByLabel('Verifier identified by').selectOption('decentralized_identifier')
    const verifier = page.getByLabel('Verifier DID (acts as)')
    await expect.poll(() => verifier.locator(`option[value="${served.issuingDid}"]`).count()).toBe(1)
    await verifier.selectOption(served.issuingDid)
    await page.getByRole('button', { name: 'Create request' }).click()
    const qr = page.locator('img.request-qr')
    await qr.waitFor()
    const uri = await qrText(qr)
    expect(uri).toBe(await page.locator('.request-uri').innerText())
    expect(uri).toMatch(/^openid4vp:\/\/\?client_id=decentralized_identifier%3Adid%3Ajwk%3A/)
    await expect.poll(() => page.locator('.presentation-result').getAttribute('data-status')).toBe('pending')
    await page.evaluate(() => ((globalThis as { __sameDocument?: boolean }).__sameDocument = true))
    const id = new URL(new URL(uri!).searchParams.get('request_uri')!).pathname.split('/').pop()!
    return { uri: uri!, id }
  }

  /** Waits (at most LIVE_WITHIN_MS) for the result to leave "pending"; the same document, no navigation since `before`. */
  async function waitLive(watched: { page: Page; navigations: () => number }, before: number, status: string): Promise<number> {
    const started = Date.now()
    await expect
      .poll(() => watched.page.locator('.presentation-result').getAttribute('data-status'), { timeout: LIVE_WITHIN_MS, interval: 100 })
      .toBe(status)
    const took = Date.now() - started
    expect(watched.navigations()).toBe(before)
    expect(await watched.page.evaluate(() => (globalThis as { __sameDocument?: boolean }).__sameDocument)).toBe(true)
    return took
  }

  /** Neither a disclosure's salt nor the holder's private key, nor the credential itself, anywhere in the page. */
  async function assertNoSecret(page: Page): Promise<void> {
    const html = await page.content()
    for (const salt of salts) expect(html).not.toContain(salt)
    expect(html).not.toContain(String(held.holderKey.d))
    expect(html).not.toContain(held.sdjwt.split('~')[0])
    for (const disclosure of held.sdjwt.split('~').slice(1).filter(Boolean)) expect(html).not.toContain(disclosure)
  }

  it('a wallet’s answer turns the screen from pending to fulfilled with its named checks and the disclosed claims, no reload', async () => {
    const watched = await openOpenId()
    const { page } = watched
    const { uri } = await createRequest(page)
    const before = watched.navigations()
    await page.waitForTimeout(POLL_MS + 200) // at least one read while pending
    expect(await page.locator('.presentation-result').getAttribute('data-status')).toBe('pending')

    const answer = await wallet.answer(uri, [held], { tamper: { extraDisclose: 'family_name' } })
    expect(answer.status, JSON.stringify(answer.body)).toBe(200)
    const took = await waitLive(watched, before, 'fulfilled')
    console.log(`presentation result shown ${took} ms after the wallet's answer (poll period ${POLL_MS} ms)`)

    const result = page.locator('.presentation-result')
    expect(await result.locator('.outcome').innerText()).toBe('fulfilled')
    const presented = result.locator('.presented[data-query="identity"]')
    expect(await presented.count()).toBe(1)
    const facts = await presented.locator('.facts').innerText()
    expect(facts).toContain('dc+sd-jwt')
    expect(facts).toContain(SERVED_VCT)
    expect(facts).toMatch(/a key the wallet proved it holds \(EC P-256\)/)
    // The asked claim, verified; the unasked disclosure named, its value not shown as verified.
    expect(await presented.locator('tr[data-claim="given_name"] td').last().innerText()).toBe(SERVED_CLAIMS.given_name)
    expect(await presented.locator('tr[data-claim]').count()).toBe(1)
    expect(await presented.locator('.unrequested').innerText()).toBe('family_name')
    const checks = presented.locator('.checks li')
    const named = await checks.evaluateAll((items) => items.map((li) => (li as unknown as { dataset: { check: string } }).dataset.check))
    expect(named.length).toBeGreaterThan(2)
    expect(named).toEqual(expect.arrayContaining(['nonce', 'aud']))
    expect(await presented.locator('.checks li.fail').count()).toBe(0)
    expect(await presented.locator('.checks li.pass').count()).toBe(named.length)
    await assertNoSecret(page)
    await screenshot(page, 'openid-result')

    // Answered: the screen no longer reads the result (one more poll period, no change, still no navigation).
    await page.waitForTimeout(POLL_MS + 200)
    expect(await result.getAttribute('data-status')).toBe('fulfilled')
    expect(await page.getByRole('alert').getAttribute('data-error-type')).toBeNull()
    expect(watched.navigations()).toBe(before)
    watched.assertClean()
    await watched.context.close()
  }, 120_000)

  it('refused answers are shown live as such: a nonce not the request’s (verification_failed, the nonce check), then the wallet’s access_denied', async () => {
    const watched = await openOpenId()
    const { page } = watched

    // A presentation bound to a nonce that is not this request's.
    const first = await createRequest(page)
    const before = watched.navigations()
    const answer = await wallet.answer(first.uri, [held], { tamper: { nonce: 'n-not-this-requests-nonce-0123456789' } })
    expect(answer.status).toBe(200) // taken: the outcome says why it failed
    await waitLive(watched, before, 'failed')
    const result = page.locator('.presentation-result')
    expect(await result.locator('.outcome').innerText()).toBe('failed')
    expect(await result.locator('.presentation-error').getAttribute('data-error')).toBe('verification_failed')
    expect(await result.locator('.checks li.fail[data-check="nonce"]').count()).toBe(1)
    expect(await result.locator('.presented').count()).toBe(0)
    expect((await served.client.getPresentationResult({ id: first.id })).status).toBe('failed')
    await assertNoSecret(page)

    // A second request on the same page: the wallet declines (its own error response, the request's state echoed).
    const second = await createRequest(page)
    expect(await result.locator('.presentation-error').count()).toBe(0)
    const beforeSecond = watched.navigations()
    const object = await fetch(`${served.localUrl}/oid4vp/request-objects/${second.id}`)
    expect(object.status).toBe(200)
    const { state } = jose.decodeJwt(await object.text())
    const declined = await fetch(`${served.localUrl}/oid4vp/responses/${second.id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        error: 'access_denied',
        error_description: 'the holder declined',
        ...(typeof state === 'string' ? { state } : {}),
      }).toString(),
    })
    expect(declined.status).toBe(200)
    await waitLive(watched, beforeSecond, 'failed')
    expect(await result.locator('.presentation-error').getAttribute('data-error')).toBe('access_denied')
    expect(await result.locator('.presentation-error').innerText()).toBe('access_denied: the holder declined')
    expect(await result.locator('.presented').count()).toBe(0)
    expect(await page.getByRole('alert').getAttribute('data-error-type')).toBeNull()
    watched.assertClean()
    await watched.context.close()
  }, 120_000)

  it('axe-core finds no serious or critical violation with a fulfilled result shown', async () => {
    const violations = await axeViolations({ browser, origin: served.localUrl }, served.apiKey, 'Issue & verify (OpenID)', async (page) => {
      const { uri } = await createRequest(page)
      expect((await wallet.answer(uri, [held])).status).toBe(200)
      await expect
        .poll(() => page.locator('.presentation-result').getAttribute('data-status'), { timeout: LIVE_WITHIN_MS })
        .toBe('fulfilled')
    })
    expect(violations).toEqual([])
  }, 120_000)
})
