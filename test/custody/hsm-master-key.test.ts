/**
 * The master key in a real SoftHSM2 token (docs/keys.md *The master key in an HSM*): a service starts with it and its
 * wallets sign; the database holds the data key only wrapped; a wrong or missing token key stops the start naming the
 * setting; the master key moves file → HSM → file with every wallet signing after each step; an interrupted move to the
 * HSM resumes.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { IdentityService, KeyringError, randomMasterKey, staticTenants } from '../../src/index.js'
import { createSqliteStorage } from '../../src/storage/sqlite/index.js'
import { Keyring } from '../../src/keys/keyring.js'
import { COLLECTIONS } from '../../src/service/collections.js'
import { KEYRING_RECORD, type KeyringMeta } from '../../src/custody/keyring-store.js'
import { unwrapDataKey, type HsmMasterKey } from '../../src/custody/hsm-master-key.js'
import { pkcs11, type Pkcs11Module } from '../../src/keys/backends/pkcs11/index.js'
import { softHsmAvailable, startSoftHsm, type SoftHsm } from '../helpers/softhsm.js'

const tenants = staticTenants({ 'token-a-0123456789': 'a' })
const auth = { authorization: 'Bearer token-a-0123456789' }

let hsm: SoftHsm
/** Another token of the same SoftHSM2 configuration (made before the module is loaded: SoftHSM2 reads its tokens then). */
let other: SoftHsm
let token: Pkcs11Module
let dir: string

beforeAll(() => {
  if (!softHsmAvailable()) return
  hsm = startSoftHsm()
  other = startSoftHsm()
  token = pkcs11({ module: hsm.module, tokenLabel: hsm.tokenLabel, pin: hsm.pin })
  dir = mkdtempSync(join(tmpdir(), 'didvault-hsm-master-'))
})
afterAll(async () => {
  await token?.close()
  hsm?.stop()
  rmSync(dir, { recursive: true, force: true })
})

let n = 0
const dbPath = () => join(dir, `db-${++n}.sqlite`)
const open = (
  path: string,
  masterKey: IdentityService['rotateMasterKey'] extends (k: infer K, ...r: never[]) => unknown ? K : never,
  previous: (typeof masterKey)[] = [],
) => IdentityService.create({ storage: createSqliteStorage({ path }), masterKey, previousMasterKeys: previous, tenants })

/** A BIP44 vault and two standalone wallets; their DIDs. */
async function makeWallets(service: IdentityService): Promise<{ vaultId: string; dids: string[] }> {
  const { vault } = await service.createVault({ name: 'v', hierarchy: 'BIP44' }, auth)
  const dids = [vault.wallets[0].did]
  for (let i = 0; i < 2; i++) dids.push((await service.generateWallet({}, auth)).wallet.did)
  return { vaultId: vault.id, dids }
}

/** Every wallet signs: a DID-auth token each, accepted by the service (a vault wallet made with the first). */
async function allSign(service: IdentityService, wallets: { vaultId: string; dids: string[] }): Promise<void> {
  for (const did of wallets.dids) {
    const { jwt } = await service.generateToken({ iss: did }, auth)
    expect(jwt.split('.')).toHaveLength(3)
  }
  const token = await service.generateToken({ iss: wallets.dids[0] }, auth)
  const { wallet } = await service.createVaultWallet({ vaultID: wallets.vaultId }, { ...auth, didAuth: token.jwt })
  expect(wallet.did).toMatch(/^did:/)
}

async function keyringRecord(path: string): Promise<KeyringMeta> {
  const storage = createSqliteStorage({ path })
  try {
    await storage.init(COLLECTIONS)
    return (await storage.collection<KeyringMeta>('meta').get(KEYRING_RECORD.id))!
  } finally {
    await storage.close()
  }
}

/** The database files' bytes (the WAL too). */
function databaseBytes(path: string): Buffer {
  return Buffer.concat([path, `${path}-wal`].filter(existsSync).map((file) => readFileSync(file)))
}

describe.skipIf(!softHsmAvailable())('the master key in a SoftHSM2 token', () => {
  const inHsm = (): HsmMasterKey => ({ hsm: token })

  it('a new database: the data key is wrapped by a key made in the token, wallets sign, and the database bytes never hold it', async () => {
    const path = dbPath()
    const service = await open(path, inHsm())
    const wallets = await makeWallets(service)
    await allSign(service, wallets)
    await service.close()

    const record = await keyringRecord(path)
    expect(record.hsmWrapped).toHaveLength(1)
    const [wrapped] = record.hsmWrapped!
    expect(wrapped.label).toMatch(/^didvault-master-[0-9a-f]{8}$/)
    expect(Keyring.keyIdOf(record.check)).toBe(wrapped.keyId)
    // The data key, unwrapped here through the token, is nowhere in the database's bytes (hex, base64 or raw).
    const dataKey = Buffer.from(await unwrapDataKey(inHsm(), wrapped, 'test'))
    const bytes = databaseBytes(path)
    for (const form of [dataKey, Buffer.from(dataKey.toString('hex')), Buffer.from(dataKey.toString('base64'))])
      expect(bytes.includes(form)).toBe(false)

    // The token key is sensitive and never extractable (read by OpenSC's pkcs11-tool).
    const listed = execFileSync(
      'pkcs11-tool',
      ['--module', hsm.module, '--token-label', hsm.tokenLabel, '--login', '--pin', hsm.pin, '--list-objects', '--type', 'secrkey'],
      { env: hsm.env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
    )
    const block = listed.split(/\n(?=Secret Key Object)/).find((b) => b.includes(wrapped.label))!
    expect(block).toMatch(/AES length 32/)
    expect(block).toMatch(/sensitive/)
    expect(block).toMatch(/never extractable/)

    // Restarted with the HSM alone: every wallet still signs.
    const again = await open(path, inHsm())
    await allSign(again, wallets)
    await again.close()
  })

  it('a wrong or missing token key stops the start, naming the setting', async () => {
    const path = dbPath()
    await (await open(path, inHsm())).close()
    await expect(open(path, { hsm: token, label: 'didvault-master-other' })).rejects.toThrow(
      /masterKey: the database's master key is wrapped by the HSM key labelled didvault-master-[0-9a-f]{8}, not didvault-master-other/,
    )
    // Another token, which does not hold the key.
    const otherToken = pkcs11({ module: other.module, tokenLabel: other.tokenLabel, pin: other.pin })
    try {
      await expect(open(path, { hsm: otherToken })).rejects.toThrow(
        /masterKey \(the master key in the HSM\) does not open this database: the HSM token holds no key labelled didvault-master-/,
      )
    } finally {
      await otherToken.close()
    }
    // A file key on a database whose key is in the HSM.
    await expect(open(path, randomMasterKey())).rejects.toThrow(/does not match this database/)
    // A database whose key is a file, opened with the HSM alone.
    const filePath = dbPath()
    await (await open(filePath, randomMasterKey())).close()
    await expect(open(filePath, inHsm())).rejects.toThrow(/masterKey is the HSM but this database's master key is not in it/)
    // Wrong PIN (on the other token, which no session of this process is logged in to any more), unknown token.
    expect(() => pkcs11({ module: other.module, tokenLabel: other.tokenLabel, pin: '000000' })).toThrow(
      /refused the PIN .*check hsm\.pinFile/,
    )
    expect(() => pkcs11({ module: hsm.module, tokenLabel: 'no-such-token', pin: hsm.pin })).toThrow(
      /no HSM token labelled "no-such-token".*check hsm\.tokenLabel/,
    )
  })

  it('file → HSM → file: every wallet signs after each move, and afterwards only the new key opens the database', async () => {
    const path = dbPath()
    const fileKey = randomMasterKey()
    const s1 = await open(path, fileKey)
    const wallets = await makeWallets(s1)
    const toHsm = await s1.rotateMasterKey(inHsm())
    expect(toHsm.resealed).toBeGreaterThanOrEqual(8)
    await allSign(s1, wallets)
    await s1.close()
    const onHsm = await keyringRecord(path)
    expect(onHsm.hsmWrapped).toHaveLength(1)
    expect(onHsm.rotatingTo).toBeUndefined()
    expect(Keyring.keyIdOf(onHsm.check)).toBe(onHsm.hsmWrapped![0].keyId)
    await expect(open(path, fileKey)).rejects.toThrow(KeyringError)

    const s2 = await open(path, inHsm())
    await allSign(s2, wallets)
    const newFileKey = randomMasterKey()
    const toFile = await s2.rotateMasterKey(newFileKey)
    expect(toFile.resealed).toBe(toHsm.resealed + 2) // and the two vault wallets made by allSign
    await allSign(s2, wallets)
    await s2.close()
    expect((await keyringRecord(path)).hsmWrapped).toBeUndefined()
    await expect(open(path, inHsm())).rejects.toThrow(/not in it/)
    const s3 = await open(path, newFileKey)
    await allSign(s3, wallets)
    await s3.close()
  })

  it('an interrupted move to the HSM: a start with the old key alone refuses; with the HSM (old key previous) it resumes', async () => {
    const path = dbPath()
    const fileKey = randomMasterKey()
    const s1 = await open(path, fileKey)
    const wallets = await makeWallets(s1)
    await expect(
      s1.rotateMasterKey(inHsm(), (p) => {
        if (p.collection === 'wallets' && p.processed === p.total) throw new Error('power cut')
      }),
    ).rejects.toThrow('power cut')
    await s1.close()
    const midway = await keyringRecord(path)
    expect(midway.rotatingTo).toBe(midway.hsmWrapped![0].keyId)
    await expect(open(path, fileKey)).rejects.toThrow(/rotation .* is unfinished/)

    const s2 = await open(path, inHsm(), [fileKey])
    await allSign(s2, wallets)
    const resumed = await s2.rotateMasterKey(inHsm())
    expect(resumed.resealed).toBeGreaterThan(0)
    await s2.close()
    const done = await keyringRecord(path)
    expect(done.hsmWrapped).toHaveLength(1)
    expect(done.hsmWrapped![0].keyId).toBe(midway.hsmWrapped![0].keyId)
    expect(done.rotatingTo).toBeUndefined()
    const s3 = await open(path, inHsm())
    await allSign(s3, wallets)
    await s3.close()
  })

  it('a process started with the HSM (the file key previous) before the move records the data key the move then takes', async () => {
    const path = dbPath()
    const fileKey = randomMasterKey()
    const s1 = await open(path, fileKey)
    const wallets = await makeWallets(s1)
    await s1.close()
    const s2 = await open(path, inHsm(), [fileKey])
    const pending = (await keyringRecord(path)).hsmWrapped!
    expect(pending).toHaveLength(1)
    // Sealed meanwhile under the data key in the HSM: a new wallet.
    wallets.dids.push((await s2.generateWallet({}, auth)).wallet.did)
    await s2.rotateMasterKey(inHsm())
    expect((await keyringRecord(path)).hsmWrapped).toEqual(pending)
    await s2.close()
    const s3 = await open(path, inHsm())
    await allSign(s3, wallets)
    await s3.close()
  })
})
