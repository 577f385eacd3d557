/**
 * The Credentials screen in headless Chromium against a real built `didvault serve --console` (SQLite, publicUrl
 * behind the test TLS terminator, so credentials carry status entries): each stored format decoded in the page —
 * a VC-JWT's header and payload, an SD-JWT VC's signed claims and its disclosures (claim and value, never the salt), a
 * JSON-LD credential's Data Integrity proof (cryptosuite, verification method, created) — and verified with every named
 * check; revoke / suspend / unsuspend through the screen's own buttons and confirmation dialogs: closing the dialog
 * changes nothing, confirming sets the bit the credential's entry names (read back through the API and in the Status
 * lists screen's bitmap), Verify then shows the failed status check, and each act is in the audit timeline; a status
 * change the server refuses shows its errorType and writes nothing. Every page runs without bypassCSP and fails on a
 * CSP violation, a request to another host or a page error.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DidvaultClient } from '../../src/client/index.js'
import { CLI, ensureBuilt } from '../helpers/build.js'
import { startServedIssuer, type ServedIssuer } from '../helpers/oid4vci-serve.js'
import { makeTestCa, type TestCa } from '../helpers/tls.js'
import { axeViolations, haveChromium, launchChromium, openScreen, signIn, watchedPage, type WatchedPage } from './harness.js'

const V2 = 'https://www.w3.org/ns/credentials/v2'
const VCT = 'https://credentials.example.com/diploma'

type StatusEntry = { statusPurpose: string; statusListCredential: string; statusListIndex: string }

/** The status entries of a VC-JWT (its `vc.credentialStatus`, one or several). */
function entriesOf(jwt: string): StatusEntry[] {
  const status = (JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString()) as { vc: { credentialStatus: unknown } }).vc
    .credentialStatus
  return (Array.isArray(status) ? status : [status]) as StatusEntry[]
}

/** Whether the bit `entry` names is set, as the API's `listStatusLists({ withBits })` reports it. */
async function bitOf(client: DidvaultClient, entry: StatusEntry): Promise<boolean> {
  const id = entry.statusListCredential.split('/').pop()
  const { lists } = await client.listStatusLists({ withBits: true })
  const list = lists.find((l) => l.id === id)
  if (list?.bits === undefined) throw new Error(`no bits for list ${id}`)
  const bits = Buffer.from(list.bits, 'base64url')
  const index = Number(entry.statusListIndex)
  return (bits[index >> 3] & (0x80 >> (index & 7))) !== 0
}

/** The checks Verify listed: name → passed. */
const checksOf = (page: Page) =>
  page
    .locator('[data-check]')
    .evaluateAll((items) =>
      Object.fromEntries(
        items.map((i) => [
          (i as unknown as { dataset: { check: string } }).dataset.check,
          (i as unknown as { className: string }).className,
        ]),
      ),
    )

describe.skipIf(!haveChromium)('the Credentials screen in Chromium', () => {
  let ca: TestCa
  let dir: string
  let issuer: ServedIssuer
  let browser: Browser
  let origin: string
  /** A P-256 wallet of the tenant, acting as itself, that signs and stores every credential here. */
  let did: string
  let as: ReturnType<DidvaultClient['as']>
  let jwt: string
  let sdjwt: string
  let jsonld: Record<string, unknown>

  beforeAll(async () => {
    ensureBuilt()
    ca = makeTestCa()
    dir = mkdtempSync(join(tmpdir(), 'didvault-console-credentials-'))
    issuer = await startServedIssuer({ storage: 'sqlite', ca, dir, flags: ['--console'], cli: CLI })
    origin = issuer.localUrl
    browser = await launchChromium()
    const api = issuer.client
    did = (await api.generateWallet({ wallet: { alias: 'registrar' }, walletConfig: { didMethod: 'key', keyType: 'P-256' } })).wallet.did
    as = api.as({ authorization: `Bearer ${issuer.apiKey}`, didAuth: (await api.generateToken({ iss: did })).jwt })
    jwt = (
      (
        await as.signClaims({
          iss: did,
          format: 'JWT',
          status: { purposes: ['revocation', 'suspension'] },
          claims: [{ payload: { degree: 'BSc' } }],
        })
      ).vcs[0] as { jwt: string }
    ).jwt
    sdjwt = (
      (
        await as.signClaims({
          iss: did,
          format: 'SD-JWT',
          sub: (await api.generateWallet({ walletConfig: { didMethod: 'jwk', keyType: 'P-256' } })).wallet.did,
          claims: [{ vct: VCT, payload: { given_name: 'Erika', family_name: 'Mustermann' } }],
        })
      ).vcs[0] as { sdjwt: string }
    ).sdjwt
    jsonld = (
      (await as.signClaims({ iss: did, context: [V2], cryptosuite: 'ecdsa-jcs-2019', claims: [{ payload: { degree: 'MSc' } }] }))
        .vcs[0] as {
        jsonld: Record<string, unknown>
      }
    ).jsonld
    await as.storeClaims({ claims: [{ jwt }, { sdjwt }, { jsonld }] })
  }, 300_000)

  afterAll(async () => {
    await browser?.close()
    await issuer?.stop()
    ca?.remove()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  /** A watched page signed in, on the Credentials screen, reading as the wallet, showing the one credential of `format`. */
  async function openCredential(format: string): Promise<WatchedPage> {
    const watched = await watchedPage(browser, origin)
    const { page } = watched
    await signIn(page, origin, issuer.apiKey)
    await openScreen(page, 'Credentials')
    await page.getByLabel('Read as DID').selectOption(did)
    await page.getByLabel('Format').selectOption(format)
    await page.getByRole('button', { name: 'Search' }).click()
    const open = page.getByRole('button', { name: /^Open credential / })
    await expect.poll(() => open.count()).toBe(1)
    await open.click()
    await page.getByRole('heading', { level: 2, name: /^Credential / }).waitFor()
    return watched
  }

  it('lists nothing until a DID to read as is picked, and says why', async () => {
    const watched = await watchedPage(browser, origin)
    const { page } = watched
    await signIn(page, origin, issuer.apiKey)
    await openScreen(page, 'Credentials')
    await page.getByText('Pick a DID to read as', { exact: false }).waitFor()
    expect(await page.getByRole('button', { name: /^Open credential / }).count()).toBe(0)
    watched.assertClean()
    await watched.context.close()
  }, 60_000)

  it('a VC-JWT: header and payload decoded; Verify lists its named checks, all passed', async () => {
    const watched = await openCredential('JWT')
    const { page } = watched
    expect(JSON.parse(await page.getByLabel('JWT header').innerText())).toMatchObject({ alg: 'ES256', typ: 'JWT' })
    const payload = JSON.parse(await page.getByLabel('JWT payload').innerText())
    expect(payload).toMatchObject({ iss: did, vc: { credentialSubject: { degree: 'BSc' } } })
    await page.getByRole('button', { name: 'Verify' }).click()
    await page.locator('[data-verified="true"]').waitFor()
    const checks = await checksOf(page)
    expect(Object.keys(checks)).toEqual(expect.arrayContaining(['signature', 'status']))
    expect(Object.values(checks).every((c) => c === 'pass')).toBe(true)
    watched.assertClean()
    await watched.context.close()
  }, 90_000)

  it('an SD-JWT VC: its signed claims, each disclosure as claim and value, never a salt; Verify passes', async () => {
    const watched = await openCredential('SD-JWT')
    const { page } = watched
    const payload = JSON.parse(await page.getByLabel('SD-JWT payload').innerText())
    expect(payload).toMatchObject({ iss: did, vct: VCT })
    expect(payload._sd).toHaveLength(2)
    const table = page.getByRole('table', { name: /^Disclosures/ })
    const rows = await table
      .locator('tbody tr')
      .evaluateAll((trs) =>
        trs.map((tr) => Array.from((tr as unknown as { cells: Array<{ textContent: string }> }).cells, (c) => c.textContent)),
      )
    expect(rows.sort()).toEqual([
      ['family_name', '"Mustermann"'],
      ['given_name', '"Erika"'],
    ])
    // The salts (each disclosure's first element) are secrets of the holder: nowhere in the page.
    const salts = sdjwt
      .split('~')
      .slice(1)
      .filter((d) => d !== '')
      .map((d) => (JSON.parse(Buffer.from(d, 'base64url').toString()) as string[])[0])
    expect(salts).toHaveLength(2)
    const html = await page.content()
    for (const salt of salts) expect(html).not.toContain(salt)
    await page.getByRole('button', { name: 'Verify' }).click()
    await page.locator('[data-verified="true"]').waitFor()
    expect(Object.keys(await checksOf(page))).toContain('signature')
    watched.assertClean()
    await watched.context.close()
  }, 90_000)

  it('a JSON-LD credential: the document and its Data Integrity proof (cryptosuite, method, created); Verify passes', async () => {
    const watched = await openCredential('JSON-LD')
    const { page } = watched
    const document = JSON.parse(await page.getByLabel('Credential document').innerText())
    expect(document).toMatchObject({ credentialSubject: { degree: 'MSc' } })
    expect(document).not.toHaveProperty('proof')
    const [proof] = JSON.parse(await page.getByLabel(/^Proofs/).innerText()) as Array<Record<string, string>>
    expect(proof).toMatchObject({ type: 'DataIntegrityProof', cryptosuite: 'ecdsa-jcs-2019' })
    expect(proof.verificationMethod.startsWith(did)).toBe(true)
    expect(proof.created).toMatch(/^\d{4}-\d\d-\d\dT/)
    const summary = page.locator('[data-proof-summary]')
    expect(await summary.innerText()).toContain('ecdsa-jcs-2019')
    await page.getByRole('button', { name: 'Verify' }).click()
    await page.locator('[data-verified="true"]').waitFor()
    expect(Object.keys(await checksOf(page)).length).toBeGreaterThan(0)
    watched.assertClean()
    await watched.context.close()
  }, 90_000)

  it('revoke, suspend and unsuspend through the buttons: a closed dialog changes nothing; confirmed, the bits follow', async () => {
    const [revocation, suspension] = ['revocation', 'suspension'].map((p) => entriesOf(jwt).find((e) => e.statusPurpose === p)!)
    expect(await bitOf(issuer.client, revocation)).toBe(false)
    const watched = await openCredential('JWT')
    const { page } = watched
    const view = page.getByRole('region', { name: /^Credential / })

    // Asked, then closed: nothing changes.
    await view.getByRole('button', { name: 'Revoke', exact: true }).click()
    const dialog = page.getByRole('dialog', { name: 'Revoke?' })
    await dialog.waitFor()
    await dialog.getByRole('button', { name: 'Close' }).click()
    await dialog.waitFor({ state: 'detached' })
    expect(await bitOf(issuer.client, revocation)).toBe(false)

    // Suspended, then unsuspended.
    await view.getByRole('button', { name: 'Suspend', exact: true }).click()
    await page.getByRole('dialog', { name: 'Suspend?' }).getByRole('button', { name: 'Yes, suspend' }).click()
    await view.getByRole('status').getByText('Suspended.').waitFor()
    expect(await bitOf(issuer.client, suspension)).toBe(true)
    await view.getByRole('button', { name: 'Unsuspend', exact: true }).click()
    await page.getByRole('dialog', { name: 'Unsuspend?' }).getByRole('button', { name: 'Yes, unsuspend' }).click()
    await view.getByRole('status').getByText('Unsuspended.').waitFor()
    expect(await bitOf(issuer.client, suspension)).toBe(false)

    // Revoked: the bit set, Verify shows the failed status check.
    await view.getByRole('button', { name: 'Revoke', exact: true }).click()
    await page.getByRole('dialog', { name: 'Revoke?' }).getByRole('button', { name: 'Yes, revoke' }).click()
    await view.getByRole('status').getByText('Revoked.').waitFor()
    expect(await bitOf(issuer.client, revocation)).toBe(true)
    expect(await bitOf(issuer.client, suspension)).toBe(false)
    await view.getByRole('button', { name: 'Verify' }).click()
    await page.locator('[data-verified="false"]').waitFor()
    expect(await page.locator('[data-verified="false"]').innerText()).toMatch(
      new RegExp(`^Not verified: status: revoked: entry ${revocation.statusListIndex} of its status list is set`),
    )

    // The Status lists screen's bitmap shows the bit.
    await openScreen(page, 'Status lists')
    const listId = revocation.statusListCredential.split('/').pop()!
    const card = page.locator(`[data-list-id="${listId}"]`)
    await card.waitFor()
    expect(await card.locator('.set-entries').innerText()).toBe(`Set entries: ${Number(revocation.statusListIndex)}`)

    // Each act in the audit timeline.
    await openScreen(page, 'Audit trail')
    await expect
      .poll(() => page.locator('.timeline li[data-action="credential.status"]').count(), { timeout: 20_000 })
      .toBeGreaterThanOrEqual(3)
    watched.assertClean()
    await watched.context.close()
  }, 120_000)

  it('a status change the server refuses shows its errorType and message; nothing is written', async () => {
    const before = (await issuer.client.listStatusLists({ withBits: true })).lists.map((l) => [l.id, l.bits])
    // The SD-JWT VC was signed without status entries: it has nothing to revoke.
    const watched = await openCredential('SD-JWT')
    const { page } = watched
    const view = page.getByRole('region', { name: /^Credential / })
    await view.getByRole('button', { name: 'Revoke', exact: true }).click()
    await page.getByRole('dialog', { name: 'Revoke?' }).getByRole('button', { name: 'Yes, revoke' }).click()
    const banner = page.getByRole('alert')
    await expect.poll(() => banner.getAttribute('data-error-type')).not.toBeNull()
    expect(await banner.getAttribute('data-error-type')).toMatch(/^[A-Z_]+$/)
    expect((await banner.locator('.banner-message').innerText()).length).toBeGreaterThan(0)
    expect(await view.getByRole('status').innerText()).toBe('')
    expect((await issuer.client.listStatusLists({ withBits: true })).lists.map((l) => [l.id, l.bits])).toEqual(before)
    watched.assertClean()
    await watched.context.close()
  }, 90_000)

  it('axe-core finds no serious or critical violation with a credential open and its checks shown', async () => {
    const violations = await axeViolations({ browser, origin }, issuer.apiKey, 'Credentials', async (page) => {
      await page.getByLabel('Read as DID').selectOption(did)
      await page.getByLabel('Format').selectOption('SD-JWT')
      await page.getByRole('button', { name: 'Search' }).click()
      const open = page.getByRole('button', { name: /^Open credential / })
      await expect.poll(() => open.count()).toBe(1)
      await open.click()
      await page.getByRole('button', { name: 'Verify' }).click()
      await page.locator('[data-verified]').waitFor()
    })
    expect(violations).toEqual([])
  }, 90_000)
})
