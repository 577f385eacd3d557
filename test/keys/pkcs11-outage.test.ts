/**
 * The `hsm` backend's start and outage behaviour on real SoftHSM2 tokens (a configuration of its own: the outage moves
 * the whole token directory away): a wrong PIN, a missing token and a module that cannot be loaded stop the start
 * naming the setting (and never the PIN); the token directory moved away mid-load makes signing answer 503
 * SERVICE_UNAVAILABLE and `ready()` false, and moved back the module is re-initialized, logged in again and signs
 * without a restart.
 */
import { renameSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { p256 } from '@noble/curves/nist.js'
import { afterAll, describe, expect, it } from 'vitest'
import { HSM_KEYS, pkcs11, Pkcs11StartError } from '../../src/keys/backends/pkcs11/index.js'
import { BackendKeyManager } from '../../src/keys/port.js'
import { createSqliteStorage } from '../../src/storage/sqlite/index.js'
import { startSoftHsm } from '../helpers/softhsm.js'

const hsm = startSoftHsm()
// A second token, never logged in by this process: what the wrong PIN is tried on (a logged-in token's PIN is
// checked against the process's login instead, see the second case).
const other = startSoftHsm()
afterAll(() => hsm.stop())

const data = new TextEncoder().encode('header.payload')
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('the hsm backend: starting', () => {
  it('a wrong PIN stops the start naming hsm.pinFile, never the PIN', () => {
    const wrong = `${other.pin}x`
    let error: unknown
    try {
      pkcs11({ module: other.module, tokenLabel: other.tokenLabel, pin: wrong })
    } catch (err) {
      error = err
    }
    expect(error).toBeInstanceOf(Pkcs11StartError)
    expect(error).toMatchObject({ setting: 'hsm.pinFile' })
    expect((error as Error).message).toMatch(/refused the PIN \(CKR_PIN_INCORRECT\); check hsm\.pinFile/)
    expect((error as Error).message).not.toContain(wrong)
    // The right PIN still opens it (the failed login was not counted against a later one).
    const opened = pkcs11({ module: other.module, tokenLabel: other.tokenLabel, pin: other.pin })
    // A second open of the logged-in token with another PIN is refused as well (the login is the process's).
    expect(() => pkcs11({ module: other.module, tokenLabel: other.tokenLabel, pin: wrong })).toThrow(/check hsm\.pinFile/)
    return opened.close()
  })

  it('a missing token names hsm.tokenLabel; a module that cannot be loaded names hsm.module', () => {
    expect(() => pkcs11({ module: hsm.module, tokenLabel: 'no-such-token', pin: hsm.pin })).toThrow(
      expect.objectContaining({ setting: 'hsm.tokenLabel', message: expect.stringMatching(/no HSM token labelled "no-such-token"/) }),
    )
    expect(() => pkcs11({ module: '/nonexistent/libpkcs11.so', tokenLabel: hsm.tokenLabel, pin: hsm.pin })).toThrow(
      expect.objectContaining({ setting: 'hsm.module' }),
    )
    expect(() => pkcs11({ module: hsm.module, tokenLabel: hsm.tokenLabel, pin: '' })).toThrow(
      expect.objectContaining({ setting: 'hsm.pinFile' }),
    )
  })
})

describe('the hsm backend: the token goes away and comes back', () => {
  it('signing answers 503 while the token directory is away, ready() is false; back, it recovers without a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'didvault-hsm-outage-'))
    const storage = createSqliteStorage({ path: join(dir, 'db.sqlite') })
    await storage.init([HSM_KEYS])
    const errors: string[] = []
    const module = pkcs11({
      module: hsm.module,
      tokenLabel: hsm.tokenLabel,
      pin: hsm.pin,
      sessions: 4,
      retry: { initialMs: 20, maxMs: 100 },
      onError: (operation) => errors.push(operation),
    })
    try {
      const keys = new BackendKeyManager({ hsm: module.keyBackend(storage) }, 'hsm')
      const { keyRef, publicJwk } = await keys.createKey({ tenantId: 't', type: 'P-256' })
      const point = Buffer.concat([Buffer.from([4]), Buffer.from(publicJwk.x, 'base64url'), Buffer.from(publicJwk.y!, 'base64url')])
      const sign = () => keys.sign({ tenantId: 't', keyRef, alg: 'ES256', data })
      expect(await module.ready()).toBe(true)

      // Load: 8 signers in a loop, each outcome counted.
      const outcomes = { ok: 0, unavailable: 0, other: [] as unknown[] }
      let running = true
      const load = Array.from({ length: 8 }, async () => {
        while (running) {
          try {
            const signature = await sign()
            expect(p256.verify(signature, data, point, { lowS: false })).toBe(true)
            outcomes.ok++
          } catch (err) {
            if ((err as { errorType?: string }).errorType === 'SERVICE_UNAVAILABLE') outcomes.unavailable++
            else outcomes.other.push(err)
            await sleep(5)
          }
        }
      })
      await sleep(100)
      const before = outcomes.ok
      expect(before).toBeGreaterThan(0)

      renameSync(hsm.tokenDir, `${hsm.tokenDir}.away`)
      await expect.poll(() => outcomes.unavailable, { timeout: 5_000 }).toBeGreaterThan(0)
      expect(await module.ready()).toBe(false)
      const away = await sign().catch((err: unknown) => err)
      expect(away).toMatchObject({
        errorType: 'SERVICE_UNAVAILABLE',
        statusCode: 503,
        message: 'the HSM token is unavailable, retry later',
      })
      await sleep(300)
      expect(await module.ready()).toBe(false)

      renameSync(`${hsm.tokenDir}.away`, hsm.tokenDir)
      await expect.poll(() => module.ready(), { timeout: 10_000, interval: 50 }).toBe(true)
      const afterOk = outcomes.ok
      await expect.poll(() => outcomes.ok, { timeout: 5_000 }).toBeGreaterThan(afterOk + 10)
      running = false
      await Promise.all(load)

      expect(outcomes.other).toEqual([])
      expect(p256.verify(await sign(), data, point, { lowS: false })).toBe(true)
      expect(errors.some((e) => e.includes('unavailable'))).toBe(true)
      expect(errors.join('\n')).not.toContain(hsm.pin)
    } finally {
      await module.close()
      await storage.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
