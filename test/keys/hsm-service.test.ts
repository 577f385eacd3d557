/**
 * HSM custody in the service (`keyManagement: "HSM"`) on a real SoftHSM2 token (`pkcs11(...)` of `didvault/pkcs11`):
 * the 422s (no `hsm` module, BIP44, `walletConfig.keyManagement` where only Generate Identity Wallet and Create Role
 * take it), HSM vaults and wallets signing VC-JWTs of each key type (verified by jose and noble, not by didvault),
 * records holding the reference and public key only, a deleted wallet's token objects destroyed after its records and
 * audited as `hsmKey.destroy`, readiness and 503 while the token directory is moved away, and recovery.
 */
import { createHash } from 'node:crypto'
import { renameSync } from 'node:fs'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { importJWK, jwtVerify } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { pkcs11, type Pkcs11Module } from '../../src/pkcs11.js'
import type { WalletRecord } from '../../src/wallets/records.js'
import { expectError, startHarness, tokenFor, type Harness } from '../helpers/harness.js'
import { startSoftHsm, tokenObject, type SoftHsm } from '../helpers/softhsm.js'

const sha256 = (data: Uint8Array) => new Uint8Array(createHash('sha256').update(data).digest())

let plain: Harness
let h: Harness
let token: SoftHsm
let hsm: Pkcs11Module

/** Whether the token holds a private key with CKA_ID `id` (hex). */
const inToken = async (id: string) => (await tokenObject(hsm.token, id)) !== undefined

beforeAll(async () => {
  token = startSoftHsm()
  hsm = pkcs11({ module: token.module, tokenLabel: token.tokenLabel, pin: token.pin, sessions: 4 })
  plain = await startHarness()
  h = await startHarness({ storage: 'sqlite', service: { hsm } })
}, 60_000)
afterAll(async () => {
  await plain?.close()
  await h?.close()
  token?.stop()
})

describe('keyManagement HSM: what is refused', () => {
  it('without an hsm module: 422 naming the setting, for a vault and for a wallet', async () => {
    const vault = await plain.request('POST', '/vaults', { json: { name: 'v', keyManagement: 'HSM' } })
    expectError(vault, 422, 'VALIDATION_ERROR')
    expect(vault.body.errorMessage).toContain('hsm.module')
    const wallet = await plain.request('POST', '/wallet', { json: { walletConfig: { keyManagement: 'HSM' } } })
    expectError(wallet, 422, 'VALIDATION_ERROR')
    expect(wallet.body.errorMessage).toContain('hsm.module')
  })

  it('BIP44 + HSM: 422, an HD seed in a token is out of scope', async () => {
    const res = await h.request('POST', '/vaults', { json: { name: 'v', keyManagement: 'HSM', hierarchy: 'BIP44' } })
    expectError(res, 422, 'VALIDATION_ERROR')
    expect(res.body.errorMessage).toMatch(/HD seed.*out of scope/)
  })

  it('walletConfig.keyManagement in a vault, a vault wallet or a wallet change: 422 (the vault decides)', async () => {
    const inVault = await h.request('POST', '/vaults', { json: { name: 'v', walletConfig: { keyManagement: 'HSM' } } })
    expectError(inVault, 422, 'VALIDATION_ERROR')
    expect(inVault.body.errorMessage).toContain('only Generate Identity Wallet and Create Role')
    const made = await h.request('POST', '/wallet', { json: {} })
    const jwt = await tokenFor(h, made.body.wallet.did)
    const configure = await h.request('POST', '/wallet/configure', {
      json: { wallet: { did: made.body.wallet.did }, walletConfig: { keyManagement: 'HSM' } },
      didAuth: jwt,
    })
    expectError(configure, 422, 'VALIDATION_ERROR')
  })
})

describe('HSM wallets sign through the key port', () => {
  for (const keyType of ['secp256k1', 'P-256', 'Ed25519'] as const)
    it(`a ${keyType} HSM wallet (Generate Identity Wallet) signs a VC-JWT that jose verifies under its public key`, async () => {
      const made = await h.request('POST', '/wallet', { json: { walletConfig: { keyManagement: 'HSM', keyType, didMethod: 'jwk' } } })
      expect(made.status, JSON.stringify(made.body)).toBe(200)
      const { wallet } = made.body
      expect(wallet.keyManagement).toBe('HSM')
      const record = await h.storage.collection<WalletRecord>('wallets').get(wallet._id)
      expect(record!.keyRef).toMatch(/^hsm:[0-9a-f]{32}$/)
      expect(record!.privateKey).toBeUndefined()
      expect(await inToken(record!.keyRef!.slice(4))).toBe(true)
      const didAuth = await tokenFor(h, wallet.did)
      const signed = await h.request('POST', '/claims/sign', {
        json: { iss: wallet.did, format: 'JWT', claims: [{ payload: { degree: 'BSc' } }] },
        didAuth,
      })
      expect(signed.status, JSON.stringify(signed.body)).toBe(200)
      const jwt: string = signed.body.vcs[0].jwt
      const alg = { secp256k1: 'ES256K', 'P-256': 'ES256', Ed25519: 'EdDSA' }[keyType]
      const [header, body, signature] = jwt.split('.')
      expect(JSON.parse(Buffer.from(header, 'base64url').toString()).alg).toBe(alg)
      expect(JSON.parse(Buffer.from(body, 'base64url').toString()).iss).toBe(wallet.did)
      if (keyType === 'secp256k1') {
        // jose's web API has no ES256K: noble verifies, over the JWK's point, a low-S r‖s.
        const point = Buffer.concat([
          Buffer.of(4),
          Buffer.from(wallet.publicKeyJwk.x, 'base64url'),
          Buffer.from(wallet.publicKeyJwk.y, 'base64url'),
        ])
        const input = sha256(new TextEncoder().encode(`${header}.${body}`))
        expect(secp256k1.verify(Buffer.from(signature, 'base64url'), input, point, { prehash: false })).toBe(true)
      } else await jwtVerify(jwt, await importJWK(wallet.publicKeyJwk, alg))
    })

  it('an HSM vault (NONE) shows custody HSM, holds no envelope, and its wallet signs', async () => {
    const res = await h.request('POST', '/vaults', {
      json: { name: 'hsm', keyManagement: 'HSM', walletConfig: { keyType: 'P-256', didMethod: 'key' } },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.vault).toMatchObject({ keyManagement: 'HSM', hierarchy: 'NONE' })
    const [wallet] = res.body.vault.wallets
    expect(wallet.keyManagement).toBe('HSM')
    expect(wallet.privateKeyHex).toBeUndefined()
    const didAuth = await tokenFor(h, wallet.did)
    const signed = await h.request('POST', '/claims/sign', {
      json: { iss: wallet.did, format: 'JWT', claims: [{ payload: { a: 1 } }] },
      didAuth,
    })
    expect(signed.status, JSON.stringify(signed.body)).toBe(200)
  })
})

describe('deleting HSM wallets', () => {
  it('a wallet: the records first, then the token object, audited as hsmKey.destroy', async () => {
    const made = await h.request('POST', '/wallet', {
      json: { walletConfig: { keyManagement: 'HSM', keyType: 'Ed25519', didMethod: 'key' } },
    })
    const record = await h.storage.collection<WalletRecord>('wallets').get(made.body.wallet._id)
    const id = record!.keyRef!.slice(4)
    expect(await inToken(id)).toBe(true)
    const didAuth = await tokenFor(h, made.body.wallet.did)
    const res = await h.request('DELETE', '/wallet', { json: { ids: [made.body.wallet.did] }, didAuth })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.ids).toEqual([made.body.wallet.did])
    // The records are gone, and with them the token objects (destroyMaterial refuses while a record is there:
    // test/keys/pkcs11.test.ts).
    expect(await h.storage.collection<WalletRecord>('wallets').get(made.body.wallet._id)).toBeUndefined()
    expect(await h.storage.collection('hsm_keys').find({ and: [] }, { limit: 1000 })).toMatchObject({
      items: expect.not.arrayContaining([expect.objectContaining({ keyId: id })]),
    })
    expect(await inToken(id)).toBe(false)
    await h.service.chainAuditRecords()
    const audit = await h.request('GET', '/audit?action=hsmKey.destroy')
    expect(audit.body.records.map((r: { target: { id: string } }) => r.target.id)).toContain(record!.keyRef)
  })

  it('a vault: its wallet’s key destroyed after the vault is gone', async () => {
    const res = await h.request('POST', '/vaults', { json: { name: 'gone', keyManagement: 'HSM' } })
    const [wallet] = res.body.vault.wallets
    const record = await h.storage.collection<WalletRecord>('wallets').get(wallet._id)
    const didAuth = await tokenFor(h, wallet.did)
    const deleted = await h.request('DELETE', '/vaults', { json: { _id: res.body.vault.id }, didAuth })
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200)
    expect(await inToken(record!.keyRef!.slice(4))).toBe(false)
  })
})

describe('the HSM away', () => {
  it('readiness false and signing 503 SERVICE_UNAVAILABLE meanwhile; back, it signs again', async () => {
    const made = await h.request('POST', '/wallet', {
      json: { walletConfig: { keyManagement: 'HSM', keyType: 'P-256', didMethod: 'jwk' } },
    })
    const didAuth = await tokenFor(h, made.body.wallet.did)
    const sign = () =>
      h.request('POST', '/claims/sign', { json: { iss: made.body.wallet.did, format: 'JWT', claims: [{ payload: { a: 1 } }] }, didAuth })
    expect((await sign()).status).toBe(200)
    renameSync(token.tokenDir, `${token.tokenDir}.away`)
    try {
      const res = await sign()
      expectError(res, 503, 'SERVICE_UNAVAILABLE')
      expect(res.body.errorMessage).toContain('HSM')
      expect(await h.service.hsmReady()).toBe(false)
    } finally {
      renameSync(`${token.tokenDir}.away`, token.tokenDir)
    }
    await expect.poll(() => h.service.hsmReady(), { timeout: 15_000, interval: 100 }).toBe(true)
    expect((await sign()).status).toBe(200)
  })
})
