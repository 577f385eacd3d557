/**
 * Master-key rotation beside running services (option `heartbeat`, src/custody/instances.ts), in
 * one process on a real SQLite file: the rotation refuses while a live service seals with the old
 * key and names it; a service gone for 30 s is passed over; one that comes back after the rotation
 * refuses to seal instead of sealing under a key about to be dropped.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { IdentityService, KeyringError, randomMasterKey, staticTenants, type IdentityServiceOptions } from '../../src/index.js'
import { RotationBlockedError } from '../../src/custody/rotation.js'
import { Keyring } from '../../src/keys/keyring.js'
import { createSqliteStorage } from '../../src/storage/sqlite/index.js'

const tenants = staticTenants({ 'token-a-0123456789': 'a' })
const auth = { authorization: 'Bearer token-a-0123456789' }
let dir: string

afterEach(() => {
  vi.useRealTimers()
  rmSync(dir, { recursive: true, force: true })
})

function open(options: Omit<IdentityServiceOptions, 'storage' | 'tenants'>): Promise<IdentityService> {
  return IdentityService.create({ storage: createSqliteStorage({ path: join(dir, 'db.sqlite') }), tenants, ...options })
}

/** Whether the wallet of `did` signs (a DID-auth token needs its private key opened). */
const signs = async (service: IdentityService, did: string) => (await service.generateToken({ iss: did }, auth)).jwt.length > 0

describe('master-key rotation beside running services', () => {
  it('refuses, naming the service that seals with the old key, and leaves it working; after its restart with both keys it rotates', async () => {
    dir = mkdtempSync(join(tmpdir(), 'didvault-instances-'))
    const oldKey = randomMasterKey()
    const newKey = randomMasterKey()
    const running = await open({ masterKey: oldKey, heartbeat: true })
    const before = (await running.generateWallet({}, auth)).wallet.did
    const rotator = await open({ masterKey: newKey, previousMasterKeys: [oldKey] })

    const refused = await rotator.rotateMasterKey(newKey).catch((err: unknown) => err)
    expect(refused).toBeInstanceOf(RotationBlockedError)
    expect((refused as Error).message).toContain(`pid ${process.pid} on ${hostname()} (seals with key ${new Keyring(oldKey).currentKeyId}`)
    // Nothing was marked: the service goes on sealing, and a service with only the old key still starts.
    const during = (await running.generateWallet({}, auth)).wallet.did
    await (await open({ masterKey: oldKey })).close()

    await running.close()
    const restarted = await open({ masterKey: newKey, previousMasterKeys: [oldKey], heartbeat: true })
    const mixed = (await restarted.generateWallet({}, auth)).wallet.did
    expect((await rotator.rotateMasterKey(newKey)).resealed).toBeGreaterThan(0)
    for (const did of [before, during, mixed]) expect(await signs(restarted, did)).toBe(true)
    await restarted.close()
    await rotator.close()
    const newOnly = await open({ masterKey: newKey })
    for (const did of [before, during, mixed]) expect(await signs(newOnly, did)).toBe(true)
    await newOnly.close()
  })

  it('passes over a service not seen for 30 s; when it beats again it finds the rotation done and refuses to seal', async () => {
    dir = mkdtempSync(join(tmpdir(), 'didvault-instances-'))
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] })
    const oldKey = randomMasterKey()
    const newKey = randomMasterKey()
    const errors: Array<[string, unknown]> = []
    const cutOff = await open({ masterKey: oldKey, heartbeat: true, onError: (operation, error) => errors.push([operation, error]) })
    const before = (await cutOff.generateWallet({}, auth)).wallet.did
    // The rotator's clock is 31 s ahead of the last beat, for its first run.
    let ahead = 31_000
    const rotator = await open({ masterKey: newKey, previousMasterKeys: [oldKey], now: () => Date.now() + ahead })
    const gone: string[] = []
    await rotator.rotateMasterKey(newKey, undefined, (described) => gone.push(described))
    expect(gone).toEqual([expect.stringContaining(`pid ${process.pid} on ${hostname()}`)])
    ahead = 0

    await vi.advanceTimersByTimeAsync(5_000)
    expect(errors).toEqual([['master-key rotation', expect.any(KeyringError)]])
    expect(String((errors[0][1] as Error).message)).toMatch(/does not hold/)
    const refused = await cutOff.generateWallet({}, auth).catch((err: unknown) => err)
    expect(refused).toMatchObject({ statusCode: 500 })
    // Back in the records, fenced (from its next beat on): a rotation run again names it.
    await vi.advanceTimersByTimeAsync(5_000)
    await expect(rotator.rotateMasterKey(newKey)).rejects.toThrow(/refusing to seal/)
    await cutOff.close()
    expect((await rotator.rotateMasterKey(newKey)).resealed).toBe(0)
    expect(await signs(rotator, before)).toBe(true)
    await rotator.close()
  })
})
