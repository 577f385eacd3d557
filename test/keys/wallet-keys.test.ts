/**
 * Wallets whose keys the key port holds, through the service on a real SQLite file: a generated
 * wallet's record names its key (`keyRef`, `keyType`, `publicKeyJwk`) and holds no private key,
 * the key's envelope lives in the `keys` collection, the wallet signs DID-auth tokens through the
 * port, and master-key rotation re-seals the keys collection so that the new key alone signs.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { IdentityService, KeyringError, randomMasterKey, staticTenants } from '../../src/index.js'
import { Keyring } from '../../src/keys/keyring.js'
import { jwkThumbprint } from '../../src/keys/thumbprint.js'
import { createSqliteStorage } from '../../src/storage/sqlite/index.js'
import { storedRecords } from '../helpers/stored-records.js'

const tenants = staticTenants({ 'token-a-0123456789': 'a' })
const auth = { authorization: 'Bearer token-a-0123456789' }
let dir: string

afterEach(() => rmSync(dir, { recursive: true, force: true }))

describe('wallets with keys of the key port', () => {
  it('a generated wallet names its sealed key, holds no private key, signs through the port, and survives rotation', async () => {
    dir = mkdtempSync(join(tmpdir(), 'didvault-wallet-keys-'))
    const path = join(dir, 'db.sqlite')
    const oldKey = randomMasterKey()
    const s1 = await IdentityService.create({ storage: createSqliteStorage({ path }), masterKey: oldKey, tenants })
    const { wallet } = await s1.generateWallet({}, auth)
    expect((await s1.generateToken({ iss: wallet.did }, auth)).jwt).toMatch(/^eyJ/)
    await s1.close()

    const { wallets, keys } = await storedRecords(path)
    expect(wallets).toHaveLength(1)
    const [record] = wallets
    expect(record.privateKey).toBeUndefined()
    expect(record.keyType).toBe('secp256k1')
    expect(record.keyRef).toBe(`sealed:${jwkThumbprint(record.publicKeyJwk!)}`)
    const point = Buffer.concat([
      Buffer.from([4]),
      Buffer.from(record.publicKeyJwk!.x, 'base64url'),
      Buffer.from(record.publicKeyJwk!.y!, 'base64url'),
    ])
    expect(point.toString('hex')).toBe(wallet.publicKeyHex)
    expect(keys).toHaveLength(1)
    expect(keys[0]).toMatchObject({ tenantId: 'a', thumbprint: record.keyRef!.slice('sealed:'.length), type: 'secp256k1' })
    expect(Keyring.keyIdOf(keys[0].privateKey)).toBe(new Keyring(oldKey).currentKeyId)
    expect(readFileSync(path).includes(Buffer.from(keys[0].privateKey))).toBe(true) // the envelope is what is stored

    const newKey = randomMasterKey()
    const s2 = await IdentityService.create({ storage: createSqliteStorage({ path }), masterKey: oldKey, tenants })
    // the wallet's key, the keyring check and the one-time values' hashing key (made at start)
    expect((await s2.rotateMasterKey(newKey)).resealed).toBe(3)
    await s2.close()
    expect(Keyring.keyIdOf((await storedRecords(path)).keys[0].privateKey)).toBe(new Keyring(newKey).currentKeyId)
    await expect(IdentityService.create({ storage: createSqliteStorage({ path }), masterKey: oldKey, tenants })).rejects.toThrow(
      KeyringError,
    )
    const s3 = await IdentityService.create({ storage: createSqliteStorage({ path }), masterKey: newKey, tenants })
    expect((await s3.generateToken({ iss: wallet.did }, auth)).jwt).toMatch(/^eyJ/)
    await s3.close()
  })
})
