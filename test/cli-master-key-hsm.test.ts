/**
 * `didvault master-key rotate --to-hsm` and `--to-file` on the built CLI against a real SoftHSM2 token (docs/keys.md
 * *The master key in an HSM*): a SQLite database whose key is `<db>.key` moves into the token (the file removed), runs
 * again with nothing to do, moves back out to a new key file; every wallet signs after each move, and neither the PIN
 * nor a key reaches the output.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { IdentityService, staticTenants } from '../src/index.js'
import { createSqliteStorage } from '../src/storage/sqlite/index.js'
import { pkcs11, type Pkcs11Module } from '../src/keys/backends/pkcs11/index.js'
import { CLI } from './helpers/build.js'
import { killAll, spawnNode } from './helpers/spawn.js'
import { softHsmAvailable } from './helpers/softhsm.js'
import { softHsmForCli } from './helpers/softhsm-cli.js'

const tenants = staticTenants({ 'token-a-0123456789': 'a' })
const auth = { authorization: 'Bearer token-a-0123456789' }

const hsm = softHsmForCli()
let dir: string

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'didvault-hsm-rotate-'))
})
afterEach(async () => {
  await killAll()
  rmSync(dir, { recursive: true, force: true })
})

async function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const proc = spawnNode([CLI, ...args], { cwd: dir, env: { SOFTHSM2_CONF: hsm().conf, ...env } })
  const { code } = await proc.exited
  return { code, stdout: proc.stdout(), stderr: proc.stderr() }
}

/** Every wallet signs a DID-auth token, and the vault makes its next wallet with the first's. */
async function allSign(service: IdentityService, vaultId: string, dids: string[]): Promise<void> {
  for (const did of dids) expect((await service.generateToken({ iss: did }, auth)).jwt.split('.')).toHaveLength(3)
  const token = await service.generateToken({ iss: dids[0] }, auth)
  await service.createVaultWallet({ vaultID: vaultId }, { ...auth, didAuth: token.jwt })
}

describe.skipIf(!softHsmAvailable())('didvault master-key rotate --to-hsm / --to-file (SoftHSM2)', () => {
  it('moves a SQLite database’s master key into the token and back out to a new key file; every wallet signs after each', async () => {
    const db = join(dir, 'db.sqlite')
    const fileKey = 'ab'.repeat(32)
    writeFileSync(`${db}.key`, `${fileKey}\n`, { mode: 0o600 })
    const pinFile = join(dir, 'pin')
    writeFileSync(pinFile, `${hsm().pin}\n`, { mode: 0o600 })
    const s1 = await IdentityService.create({ storage: createSqliteStorage({ path: db }), masterKey: fileKey, tenants })
    const { vault } = await s1.createVault({ name: 'v', hierarchy: 'BIP44' }, auth)
    const dids = [vault.wallets[0].did, (await s1.generateWallet({}, auth)).wallet.did]
    await s1.close()

    const token = ['--hsm-module', hsm().module, '--hsm-token-label', hsm().tokenLabel]
    const refused = await run(['master-key', 'rotate', '--to-hsm', '--storage', `sqlite:${db}`, ...token])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(/hsm\.pinFile \(--hsm-pin-file.*\) or DIDVAULT_HSM_PIN/)

    const toHsm = await run(['master-key', 'rotate', '--to-hsm', '--storage', `sqlite:${db}`, ...token, '--hsm-pin-file', pinFile])
    expect(toHsm.code, toHsm.stderr).toBe(0)
    expect(toHsm.stdout).toMatch(
      /^rotated the master key to the HSM \(token key didvault-master-[0-9a-f]{8}, data key [0-9a-f]{16}\): \d+ secrets resealed$/m,
    )
    expect(toHsm.stderr).toMatch(/removed .*db\.sqlite\.key: the master key is in the HSM now/)
    expect(existsSync(`${db}.key`)).toBe(false)
    // Run again on a database in the HSM: a new data key, wrapped by the same token key (the PIN from DIDVAULT_HSM_PIN).
    const again = await run(['master-key', 'rotate', '--to-hsm', '--storage', `sqlite:${db}`, ...token], { DIDVAULT_HSM_PIN: hsm().pin })
    expect(again.code, again.stderr).toBe(0)
    const dataKey = (out: string) => /token key (\S+), data key ([0-9a-f]{16})/.exec(out)!.slice(1)
    const [label, first] = dataKey(toHsm.stdout)
    expect(dataKey(again.stdout)[0]).not.toBe(label) // no --hsm-key-label: a new token key too
    expect(dataKey(again.stdout)[1]).not.toBe(first)

    let module: Pkcs11Module = pkcs11({ module: hsm().module, tokenLabel: hsm().tokenLabel, pin: hsm().pin })
    const s2 = await IdentityService.create({ storage: createSqliteStorage({ path: db }), masterKey: { hsm: module }, tenants })
    await allSign(s2, vault.id, dids)
    await s2.close()
    await module.close()

    const keyFile = join(dir, 'new.key')
    const toFile = await run([
      'master-key',
      'rotate',
      '--to-file',
      keyFile,
      '--storage',
      `sqlite:${db}`,
      ...token,
      '--hsm-pin-file',
      pinFile,
    ])
    expect(toFile.code, toFile.stderr).toBe(0)
    expect(toFile.stdout).toMatch(/^rotated the master key to key [0-9a-f]{16} in .*new\.key: \d+ secrets resealed$/m)
    expect(statSync(keyFile).mode & 0o777).toBe(0o600)
    const newKey = readFileSync(keyFile, 'utf8').trim()
    const s3 = await IdentityService.create({ storage: createSqliteStorage({ path: db }), masterKey: newKey, tenants })
    await allSign(s3, vault.id, dids)
    await s3.close()
    module = pkcs11({ module: hsm().module, tokenLabel: hsm().tokenLabel, pin: hsm().pin })
    await expect(
      IdentityService.create({ storage: createSqliteStorage({ path: db }), masterKey: { hsm: module }, tenants }),
    ).rejects.toThrow(/not in it/)
    await module.close()

    for (const out of [refused, toHsm, again, toFile]) {
      for (const secret of [hsm().pin, fileKey, newKey]) expect(out.stdout + out.stderr).not.toContain(secret)
    }
  }, 120_000)
})
