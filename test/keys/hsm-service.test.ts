/**
 * HSM custody in the service (`keyManagement: "HSM"`): the 422s (no `hsm` module, BIP44, `walletConfig.keyManagement`
 * where only Generate Identity Wallet and Create Role take it), HSM vaults and wallets signing VC-JWTs of each key type
 * through the key port (verified by jose, not by didvault), records holding the reference and public key only, a
 * deleted wallet's token object destroyed after its records and audited as `hsmKey.destroy`, readiness and 503 while
 * the HSM is away.
 *
 * The HSM here is a stand-in behind the same `HsmModule` interface (keys made with node:crypto and kept in this test's
 * memory): the PKCS#11 backend against a real SoftHSM2 token is exercised by the backend's own tests; this file checks
 * what the service does around any HSM module.
 */
import { createHash, generateKeyPairSync, randomBytes, sign as nodeSign, type KeyObject } from 'node:crypto'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { importJWK, jwtVerify } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { IdentityError } from '../../src/errors.js'
import { signDigest } from '../../src/keys/secp256k1.js'
import type { HsmModule } from '../../src/keys/hsm.js'
import type { KeyBackend, SignRequest } from '../../src/keys/port.js'
import type { KeyType, PublicJwk } from '../../src/keys/key-types.js'
import type { WalletRecord } from '../../src/wallets/records.js'
import { expectError, startHarness, tokenFor, type Harness } from '../helpers/harness.js'

const sha256 = (data: Uint8Array) => new Uint8Array(createHash('sha256').update(data).digest())

/** A stand-in HSM: keys in this object's memory, never handed out; `away` makes every call 503 and `ready()` false. */
class StandInHsm implements HsmModule {
  readonly keys = new Map<string, { tenantId: string; type: KeyType; privateKey: KeyObject; publicJwk: PublicJwk }>()
  readonly destroyed: Array<{ id: string; walletRecordsLeft: number }> = []
  away = false
  walletsLeft: () => Promise<number> = async () => 0

  #unavailable() {
    if (this.away) throw new IdentityError('SERVICE_UNAVAILABLE', 'the HSM token is not present (hsm.tokenLabel)')
  }

  readonly keyBackend: KeyBackend = {
    createKey: async (tenantId, type) => {
      this.#unavailable()
      const curve = type === 'Ed25519' ? undefined : type === 'P-256' ? 'prime256v1' : 'secp256k1'
      const { privateKey, publicKey } =
        curve === undefined ? generateKeyPairSync('ed25519') : generateKeyPairSync('ec', { namedCurve: curve })
      const { kty, crv, x, y } = publicKey.export({ format: 'jwk' })
      const publicJwk = (y === undefined ? { kty, crv, x } : { kty, crv, x, y }) as PublicJwk
      const id = randomBytes(16).toString('hex')
      this.keys.set(id, { tenantId, type, privateKey, publicJwk })
      return { id, publicJwk }
    },
    find: async (tenantId, id) => {
      this.#unavailable()
      const key = this.keys.get(id)
      if (!key || key.tenantId !== tenantId) return undefined
      return {
        publicJwk: key.publicJwk,
        sign: async (request: SignRequest) => {
          this.#unavailable()
          if (key.type === 'Ed25519') return new Uint8Array(nodeSign(null, request.data!, key.privateKey))
          if (key.type === 'secp256k1') {
            // JOSE form as the port asks: r‖s low-S, r‖s‖v for ES256K-R (a digest given, or sha256 of the data).
            const d = Buffer.from(key.privateKey.export({ format: 'jwk' }).d!, 'base64url')
            const digest = request.digest ?? sha256(request.data)
            const sig = signDigest(d, digest)
            d.fill(0)
            return request.alg === 'ES256K-R' ? new Uint8Array([...sig.r, ...sig.s, sig.recovery]) : new Uint8Array([...sig.r, ...sig.s])
          }
          return new Uint8Array(nodeSign('sha256', request.data!, { key: key.privateKey, dsaEncoding: 'ieee-p1363' }))
        },
      }
    },
    destroyMaterial: async (tenantId, id) => {
      this.#unavailable()
      if (this.keys.get(id)?.tenantId !== tenantId) return
      this.destroyed.push({ id, walletRecordsLeft: await this.walletsLeft() })
      this.keys.delete(id)
    },
  }

  ready = async () => !this.away
  close = async () => {}
}

/** The HSM wallet records in the storage. */
const hsmWalletCount = async () =>
  (await h.storage.collection<WalletRecord>('wallets').find({ and: [] }, { limit: 1000 })).items.filter((w) => w.keyManagement === 'HSM')
    .length

let plain: Harness
let h: Harness
const hsm = new StandInHsm()

beforeAll(async () => {
  plain = await startHarness()
  h = await startHarness({ storage: 'sqlite', service: { hsm } })
  hsm.walletsLeft = async () => hsmWalletCount()
})
afterAll(async () => {
  await plain?.close()
  await h?.close()
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
      expect(hsm.keys.has(record!.keyRef!.slice(4))).toBe(true)
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
    const before = await hsmWalletCount()
    const didAuth = await tokenFor(h, made.body.wallet.did)
    const res = await h.request('DELETE', '/wallet', { json: { ids: [made.body.wallet.did] }, didAuth })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.ids).toEqual([made.body.wallet.did])
    // The wallet's record was gone when the token object was destroyed.
    expect(hsm.destroyed.find((d) => d.id === id)).toEqual({ id, walletRecordsLeft: before - 1 })
    expect(hsm.keys.has(id)).toBe(false)
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
    expect(hsm.keys.has(record!.keyRef!.slice(4))).toBe(false)
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
    hsm.away = true
    try {
      expect(await h.service.hsmReady()).toBe(false)
      const res = await sign()
      expectError(res, 503, 'SERVICE_UNAVAILABLE')
      expect(res.body.errorMessage).toContain('HSM')
    } finally {
      hsm.away = false
    }
    expect(await h.service.hsmReady()).toBe(true)
    expect((await sign()).status).toBe(200)
  })
})
