/**
 * The Roles, Status lists, Issue & verify (OpenID) and Audit trail screens in headless Chromium against a real built
 * `didvault serve --console` with the OID4VCI issuer and the OID4VP verifier on (test/helpers/oid4vci-serve.ts: SQLite,
 * publicUrl behind the test TLS terminator), signed in at /console/ as the shell does. Roles: a grant made in the
 * matrix, a refusal shown with its errorType and nothing written; OpenID: an offer's and a presentation request's QR
 * codes decoded from screenshots back to their URIs, the request's result shown live; Status lists: a revoked
 * credential's bit set in its list's bitmap; Audit: each act in the timeline, filters, the chain verified, the JSON
 * lines export. Every page runs without bypassCSP and fails on a CSP violation, a request to another host or a page
 * error; the axe-core pass (its own bypassCSP context) finds no serious or critical violation. Screenshots into
 * docs/console/.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import jsQRModule from 'jsqr'
import type { Browser, Locator, Page } from 'playwright-core'
import { PNG } from 'pngjs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CLI, ensureBuilt } from '../helpers/build.js'
import { SERVED_CLAIMS, startServedIssuer, type ServedIssuer } from '../helpers/oid4vci-serve.js'
import { makeTestCa, type TestCa } from '../helpers/tls.js'
import { axeViolations, haveChromium, launchChromium, openScreen, screenshot, signIn, watchedPage, type WatchedPage } from './harness.js'

type Decode = (data: Uint8ClampedArray, width: number, height: number) => { data: string } | null
const jsQR = ((jsQRModule as unknown as { default?: Decode }).default ?? jsQRModule) as unknown as Decode

/** The text of the QR code shown by `image` (a screenshot of the element, decoded). */
async function qrText(image: Locator): Promise<string | undefined> {
  const png = PNG.sync.read(await image.screenshot())
  return jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data
}

const actionsOf = (page: Page) =>
  page.locator('.timeline li').evaluateAll((items) => items.map((li) => (li as unknown as { dataset: { action: string } }).dataset.action))

describe.skipIf(!haveChromium)('the Roles, Status lists, OpenID and Audit screens in Chromium', () => {
  let ca: TestCa
  let dir: string
  let issuer: ServedIssuer
  let browser: Browser
  let origin: string

  beforeAll(async () => {
    ensureBuilt()
    ca = makeTestCa()
    dir = mkdtempSync(join(tmpdir(), 'didvault-console-ops-'))
    issuer = await startServedIssuer({ storage: 'sqlite', ca, dir, oid4vp: {}, flags: ['--console'], cli: CLI })
    origin = issuer.localUrl
    browser = await launchChromium()
  }, 300_000)

  afterAll(async () => {
    await browser?.close()
    await issuer?.stop()
    ca?.remove()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  /** A watched page (no bypassCSP) signed in with the tenant's key, showing the screen `title`. */
  async function open(title: string): Promise<WatchedPage> {
    const watched = await watchedPage(browser, origin)
    await signIn(watched.page, origin, issuer.apiKey)
    await openScreen(watched.page, title)
    return watched
  }

  it('Roles: ticking a cell grants the role (in the matrix and through the API); a refused grant shows its errorType, nothing written', async () => {
    const { role } = await issuer.client.createRole({ description: 'Auditors', permissions: ['Read'] })
    const { wallet: member } = await issuer.client.generateWallet({ wallet: { alias: 'member' } })
    const watched = await open('Roles')
    const { page } = watched
    await page.getByLabel('Act as', { exact: true }).selectOption(issuer.issuingDid)
    const cell = page.locator(`tr[data-did="${member.did}"] input[data-role="${role.did}"]`)
    await cell.waitFor()
    expect(await cell.isChecked()).toBe(false)
    await cell.click()
    await page.getByText(`Granted Auditors to ${member.did}`).waitFor()
    await expect.poll(() => page.locator(`tr[data-did="${member.did}"] input[data-role="${role.did}"]`).isChecked()).toBe(true)
    const { assignments } = await issuer.client.getRoleAssignments({ role: role.did })
    expect(assignments.map((a) => a.did)).toEqual([member.did])
    await screenshot(page, 'roles')

    // Acting as the member (it holds the role, did not create it): granting it to the issuer is refused by the service.
    await page.getByLabel('Act as', { exact: true }).selectOption(member.did)
    const other = page.locator(`tr[data-did="${issuer.issuingDid}"] input[data-role="${role.did}"]`)
    await other.waitFor()
    await other.click()
    await expect.poll(() => page.getByRole('alert').getAttribute('data-error-type')).toBe('FORBIDDEN')
    const after = await issuer.client.getRoleAssignments({ role: role.did })
    expect(after.assignments.map((a) => a.did)).toEqual([member.did])
    watched.assertClean()
    await watched.context.close()
  }, 120_000)

  it('OpenID: an offer shows a QR code that decodes to its openid-credential-offer:// URI; a presentation request its QR and its result live', async () => {
    const watched = await open('Issue & verify (OpenID)')
    const { page } = watched
    await page.locator('#offer-configuration').waitFor()
    await page.fill('#offer-claims', JSON.stringify(SERVED_CLAIMS))
    await page.getByRole('button', { name: 'Create offer' }).click()
    const qr = page.locator('img.offer-qr')
    await qr.waitFor()
    const uri = await page.locator('.offer-uri').innerText()
    expect(uri).toMatch(/^openid-credential-offer:\/\/\?credential_offer_uri=/)
    expect(await qrText(qr)).toBe(uri)
    expect(await qr.getAttribute('src')).toMatch(/^data:image\/svg\+xml;base64,/)

    await page.getByRole('button', { name: 'Create request' }).click()
    const requestQr = page.locator('img.request-qr')
    await requestQr.waitFor()
    const requestUri = await page.locator('.request-uri').innerText()
    expect(requestUri).toMatch(/^openid4vp:\/\//)
    expect(await qrText(requestQr)).toBe(requestUri)
    await expect.poll(() => page.locator('.presentation-result .outcome').innerText()).toBe('pending')
    await screenshot(page, 'openid')
    expect(await page.getByRole('alert').getAttribute('data-error-type')).toBeNull()
    watched.assertClean()
    await watched.context.close()
  }, 120_000)

  it('Status lists: a revoked credential’s bit is set in its list’s bitmap, the others not; signature date and ETag shown', async () => {
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
    const [kept, revoked] = entries
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
    const watched = await open('Status lists')
    const { page } = watched
    const card = page.locator(`[data-list-id="${listId}"]`)
    await card.waitFor()
    expect(await card.locator('.set-entries').innerText()).toBe(`Set entries: ${index}`)
    const pixel = await page.evaluate(
      ([id, set, unset]) => {
        const canvas = (globalThis as any).document.getElementById(`bitmap-${id}`)
        const columns = Number(canvas.dataset.columns)
        const cell = Number(canvas.dataset.cell)
        const at = (n: number): number[] =>
          Array.from<number>(canvas.getContext('2d').getImageData((n % columns) * cell, Math.floor(n / columns) * cell, 1, 1).data)
        return { set: at(set), unset: at(unset) }
      },
      [listId, index, Number(kept.statusListIndex)] as const,
    )
    expect(pixel.set.slice(0, 3)).toEqual([0xc6, 0x28, 0x28])
    expect(pixel.unset.slice(0, 3)).toEqual([0xe8, 0xec, 0xf1])
    // The list is signed again within the publication interval: reload until the signed list's ETag shows.
    await expect
      .poll(
        async () => {
          await page.getByRole('button', { name: 'Reload' }).click()
          await card.waitFor()
          return card.locator('.etag').innerText()
        },
        { timeout: 30_000, interval: 1_000 },
      )
      .not.toBe('—')
    expect(await card.locator('.signed-at').innerText()).toMatch(/^\d{4}-\d\d-\d\dT/)
    await screenshot(page, 'status-lists')
    watched.assertClean()
    await watched.context.close()
  }, 120_000)

  it('Audit trail: each act above in the timeline; filters by action and outcome; the chain verified; JSON lines exported', async () => {
    const watched = await open('Audit trail')
    const { page } = watched
    await page.locator('.timeline li').first().waitFor()
    expect(await actionsOf(page)).toEqual(
      expect.arrayContaining([
        'role.create',
        'assignment.grant',
        'credentialOffer.create',
        'presentationRequest.create',
        'token.generate',
        'credential.sign',
        'credential.status',
      ]),
    )
    await expect.poll(() => page.locator('.chain').getAttribute('data-ok')).toBe('true')
    expect(await page.locator('.chain').innerText()).toMatch(/^Chain: verified \(\d+ record\(s\) sound/)
    await page.getByLabel('Action', { exact: true }).selectOption('assignment.grant')
    await page.getByRole('button', { name: 'Apply filters' }).click()
    await expect.poll(async () => new Set(await actionsOf(page))).toEqual(new Set(['assignment.grant']))
    const filtered = await actionsOf(page)
    // The refused grant of the Roles test is there, and the outcome filter keeps it alone.
    await page.getByLabel('Outcome', { exact: true }).selectOption('refused')
    expect(await page.locator('.timeline li').count()).toBeGreaterThan(0)
    expect(await page.locator('.timeline li.refused').count()).toBe(await page.locator('.timeline li').count())
    await page.getByLabel('Outcome', { exact: true }).selectOption('')
    const download = page.waitForEvent('download')
    await page.getByRole('button', { name: /^Export JSON lines/ }).click()
    const lines = readFileSync(await (await download).path(), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { action: string })
    expect(lines.map((l) => l.action)).toEqual(filtered)
    await page.getByLabel('Action', { exact: true }).selectOption('')
    await page.getByRole('button', { name: 'Apply filters' }).click()
    await expect.poll(async () => (await actionsOf(page)).length).toBeGreaterThan(filtered.length)
    await screenshot(page, 'audit')
    watched.assertClean()
    await watched.context.close()
  }, 120_000)

  it('axe-core finds no serious or critical violation on the four screens', async () => {
    const rig = { browser, origin }
    for (const title of ['Roles', 'Status lists', 'Issue & verify (OpenID)', 'Audit trail']) {
      const violations = await axeViolations(rig, issuer.apiKey, title, async (page) => {
        if (title === 'Roles') await page.locator('table').first().waitFor()
        if (title === 'Status lists') await page.locator('.status-list').first().waitFor()
        if (title === 'Issue & verify (OpenID)') await page.locator('#offer-configuration').waitFor()
        if (title === 'Audit trail') await page.locator('.timeline li').first().waitFor()
      })
      expect(violations, title).toEqual([])
    }
  }, 120_000)
})
