import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createMemoryStorage, IdentityError, IdentityService, KeyringError, randomMasterKey, staticTenants } from '../src/index.js'
import { createSqliteStorage } from '../src/storage/sqlite/index.js'
import { Keyring } from '../src/keys/keyring.js'

const tenants = staticTenants({ 'token-a-0123456789': 'a' })
const auth = { authorization: 'Bearer token-a-0123456789' }
const dirs: string[] = []
function dbPath() {
  const dir = mkdtempSync(join(tmpdir(), 'didvault-svc-'))
  dirs.push(dir)
  return join(dir, 'db.sqlite')
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

describe('IdentityService start-up and master keys', () => {
  it('refuses to start with a master key that does not match the database', async () => {
    const path = dbPath()
    const s1 = await IdentityService.create({ storage: createSqliteStorage({ path }), masterKey: randomMasterKey(), tenants })
    await s1.createVault({ name: 'v' }, auth)
    await s1.close()
    await expect(IdentityService.create({ storage: createSqliteStorage({ path }), masterKey: randomMasterKey(), tenants })).rejects.toThrow(
      KeyringError,
    )
    await expect(IdentityService.create({ storage: createSqliteStorage({ path }), masterKey: 'a passphrase', tenants })).rejects.toThrow(
      /does not match/,
    )
  })

  it('a passphrase master key reopens the same database', async () => {
    const path = dbPath()
    const s1 = await IdentityService.create({ storage: createSqliteStorage({ path }), masterKey: 'correct horse battery staple', tenants })
    const { vault } = await s1.createVault({ name: 'v', hierarchy: 'BIP44' }, auth)
    await s1.close()
    const s2 = await IdentityService.create({ storage: createSqliteStorage({ path }), masterKey: 'correct horse battery staple', tenants })
    const did = vault.wallets[0].did
    const token = await s2.generateToken({ iss: did }, auth)
    const { wallet } = await s2.createVaultWallet({ vaultID: vault.id }, { ...auth, didAuth: token.jwt })
    expect(wallet.index).toBe(1)
    await s2.close()
  })

  it('rotateMasterKey reseals every secret with progress; afterwards only the new key opens the database', async () => {
    const path = dbPath()
    const oldKey = randomMasterKey()
    const newKey = randomMasterKey()
    const s1 = await IdentityService.create({ storage: createSqliteStorage({ path }), masterKey: oldKey, tenants })
    const { vault } = await s1.createVault({ name: 'v', hierarchy: 'BIP44' }, auth)
    for (let i = 0; i < 5; i++) await s1.generateWallet({}, auth)
    const progress: string[] = []
    const result = await s1.rotateMasterKey(newKey, (p) => progress.push(`${p.collection}:${p.processed}/${p.total}`))
    // 6 wallet keys + mnemonic + the three account nodes (BIP32 secp256k1, SLIP-0010 Ed25519 and P-256) + the keyring check
    // + the one-time values' hashing key
    expect(result.resealed).toBe(12)
    expect(progress).toContain('wallets:6/6')
    const { vaults } = await s1.getVaults({ id: vault.id }, auth)
    expect(Keyring.keyIdOf(vaults[0].wallets[0].privateKeyHex!)).toBe(new Keyring(newKey).currentKeyId)
    // resumable: a second run finds nothing to do
    expect((await s1.rotateMasterKey(newKey)).resealed).toBe(0)
    await s1.close()
    await expect(IdentityService.create({ storage: createSqliteStorage({ path }), masterKey: oldKey, tenants })).rejects.toThrow(
      KeyringError,
    )
    const s2 = await IdentityService.create({ storage: createSqliteStorage({ path }), masterKey: newKey, tenants })
    const token = await s2.generateToken({ iss: vault.wallets[0].did }, auth)
    expect((await s2.createVaultWallet({ vaultID: vault.id }, { ...auth, didAuth: token.jwt })).wallet.index).toBe(1)
    await s2.close()
  })
})

describe('interrupted master-key rotation', () => {
  it('a restart with only the old key refuses to start instead of failing later on resealed secrets', async () => {
    const path = dbPath()
    const oldKey = randomMasterKey()
    const newKey = randomMasterKey()
    const s1 = await IdentityService.create({ storage: createSqliteStorage({ path }), masterKey: oldKey, tenants })
    const { vault } = await s1.createVault({ name: 'v' }, auth)
    for (let i = 0; i < 3; i++) await s1.generateWallet({}, auth)
    // interrupted: the progress callback throws once the wallets are resealed
    await expect(
      s1.rotateMasterKey(newKey, (p) => {
        if (p.collection === 'wallets' && p.processed === p.total) throw new Error('power cut')
      }),
    ).rejects.toThrow('power cut')
    await s1.close()
    await expect(IdentityService.create({ storage: createSqliteStorage({ path }), masterKey: oldKey, tenants })).rejects.toThrow(
      /rotation .* is unfinished/,
    )
    // resume: the new key, the old one as previous
    const s2 = await IdentityService.create({
      storage: createSqliteStorage({ path }),
      masterKey: newKey,
      previousMasterKeys: [oldKey],
      tenants,
    })
    await s2.rotateMasterKey(newKey)
    expect((await s2.generateToken({ iss: vault.wallets[0].did }, auth)).jwt).toEqual(expect.any(String))
    await s2.close()
    const s3 = await IdentityService.create({ storage: createSqliteStorage({ path }), masterKey: newKey, tenants })
    expect((await s3.generateToken({ iss: vault.wallets[0].did }, auth)).jwt).toEqual(expect.any(String))
    await s3.close()
  })
})

describe('IdentityService as an SDK', () => {
  it('as(auth) binds the headers; errors are IdentityError with the spec body', async () => {
    const s = await IdentityService.create({ storage: createSqliteStorage({ path: dbPath() }), masterKey: randomMasterKey(), tenants })
    const api = s.as(auth)
    const { wallet } = await api.generateWallet({ wallet: { alias: 'me' } })
    expect((await api.getWallets({ alias: 'me' })).wallets[0].did).toBe(wallet.did)
    const err = await api.createVault({} as never).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(IdentityError)
    expect((err as IdentityError).toJSON()).toEqual({
      statusCode: 422,
      errorType: 'VALIDATION_ERROR',
      errorMessage: expect.stringContaining('name'),
    })
    const denied = await s
      .as({})
      .getWallets()
      .catch((e: unknown) => e)
    expect((denied as IdentityError).statusCode).toBe(403)
    await s.close()
  })

  it('create() without a master key or a storage fails with an error naming the option', async () => {
    await expect(IdentityService.create({ storage: createMemoryStorage() } as never)).rejects.toThrow(/options\.masterKey is required/)
    await expect(IdentityService.create({ storage: createMemoryStorage(), masterKey: '' })).rejects.toThrow(
      /options\.masterKey is required/,
    )
    await expect(IdentityService.create({ masterKey: randomMasterKey() } as never)).rejects.toThrow(/options\.storage is required/)
  })

  it('embedded errors name the missing token, not an HTTP header', async () => {
    const s = await IdentityService.create({ storage: createMemoryStorage(), masterKey: randomMasterKey(), tenants })
    const noTenant = (await s.getWallets({}, {}).catch((e: unknown) => e)) as IdentityError
    expect(noTenant.toJSON()).toEqual({ statusCode: 403, errorType: 'UNAUTHENTICATED', errorMessage: 'missing Base Auth Token' })
    const noDid = (await s
      .renameWallets({ wallets: [{ did: 'did:ethr:dev:0x8ba1f109551bD432803012645Ac136ddd64DBA72', alias: 'x' }] }, auth)
      .catch((e: unknown) => e)) as IdentityError
    expect(noDid.errorMessage).toBe('missing DID Auth Token')
    await s.close()
  })
})
