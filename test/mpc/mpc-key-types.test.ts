/**
 * MPC vaults of P-256 and Ed25519 keys, over real HTTP on a real SQLite file: NONE vaults hold one key of their
 * template's type; BIP44 vaults derive P-256 and Ed25519 wallets only with the quorum (hardened SLIP-0010 at
 * m/44'/60'/0'/0'/i', one index counter with secp256k1 wallets, path in the record), checked against the seed the
 * members' shares rebuild; no private key or seed in the database file; below quorum: 403 and nothing written; a
 * signature takes the quorum and verifies under the wallet's publicKeyJwk with node:crypto; did:ethr stays secp256k1.
 */
import { createPublicKey, verify } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { ed25519 } from '@noble/curves/ed25519.js'
import { p256 } from '@noble/curves/nist.js'
import { derivePath } from 'ed25519-hd-key'
import { combine } from 'shamir-secret-sharing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { randomMasterKey } from '../../src/index.js'
import { NO_AUDIT_TRAIL } from '../../src/audit/trail.js'
import { KeyCustody } from '../../src/custody/key-custody.js'
import { openKeyring } from '../../src/custody/keyring-store.js'
import type { PublicJwk } from '../../src/keys/key-types.js'
import { slip10Derive, slip10WalletPath } from '../../src/keys/slip10.js'
import { QuorumApprovals } from '../../src/mpc/approvals.js'
import { MPC_SHARES } from '../../src/mpc/records.js'
import { ShamirQuorumCustody } from '../../src/mpc/shamir-quorum-custody.js'
import { tenantCollectionOf } from '../../src/storage/declaration.js'
import { MpcVaults } from '../../src/vaults/mpc-vaults.js'
import { WALLETS, type WalletRecord } from '../../src/wallets/records.js'
import { expectError, snapshot, startHarness, type Harness } from '../helpers/harness.js'
import { approvals, member, mpcVaultBody, type Member } from '../helpers/mpc.js'

const masterKey = randomMasterKey()
let h: Harness
let members: Member[]
let custody: KeyCustody
beforeAll(async () => {
  h = await startHarness({ storage: 'sqlite', service: { masterKey, publicUrl: 'https://vault.example.com' } })
  members = await Promise.all([member(), member(), member()])
  custody = new KeyCustody(await openKeyring(h.storage, masterKey))
})
afterAll(() => h.close())

async function initializedVault(hierarchy: 'NONE' | 'BIP44', walletConfig: Record<string, unknown>, on = h): Promise<string> {
  const created = await on.request('POST', '/vaults', { json: mpcVaultBody(members, { hierarchy, walletConfig }) })
  expect(created.status, JSON.stringify(created.body)).toBe(200)
  const vaultId = created.body.vault.id as string
  const init = await on.request('POST', `/vaults/${vaultId}/initialize`, { json: {}, didAuth: await approvals(members[0], members[1]) })
  expect(init.status, JSON.stringify(init.body)).toBe(200)
  return vaultId
}

async function createWallet(vaultId: string, walletConfig?: Record<string, unknown>, on = h) {
  const json = walletConfig === undefined ? {} : { walletConfig }
  return on.request('POST', `/vaults/${vaultId}/wallet`, { json, didAuth: await approvals(members[0], members[2]) })
}

const record = async (did: string, on = h): Promise<WalletRecord> =>
  (await tenantCollectionOf(on.storage, WALLETS, 'tenant-a').findOne({ field: 'did', op: 'eq', value: did }))!

/** The vault's secret, rebuilt as the custody does from two members' shares (what the test alone can do: it holds the master key). */
async function vaultSecret(vaultId: string, on = h): Promise<Uint8Array> {
  const opener = new KeyCustody(await openKeyring(on.storage, masterKey))
  const shares = await tenantCollectionOf(on.storage, MPC_SHARES, 'tenant-a').all({ field: 'vaultId', op: 'eq', value: vaultId })
  return combine(shares.slice(0, 2).map((s) => opener.open('mpcShares', s, 'share', s.share)))
}

/** Whether the SQLite files hold `secret` raw, as hex or as base64(url). */
function databaseHolds(secret: Uint8Array): boolean {
  const dir = dirname(h.dbPath!)
  const bytes = Buffer.concat(readdirSync(dir).map((file) => readFileSync(join(dir, file))))
  const b = Buffer.from(secret)
  return [b, Buffer.from(b.toString('hex')), Buffer.from(b.toString('base64')), Buffer.from(b.toString('base64url'))].some((form) =>
    bytes.includes(form),
  )
}

/** node:crypto's verdict on a JOSE signature by `jwk`. */
function nodeVerifies(jwk: PublicJwk, data: Uint8Array, signature: Uint8Array): boolean {
  const key = createPublicKey({ key: { ...jwk }, format: 'jwk' })
  if (jwk.crv === 'Ed25519') return verify(null, data, key, signature)
  return verify('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, signature)
}

/** An MpcVaults over the service's storage and keyring: what the service signs through, with its own quorum gathering. */
function mpcVaults(): MpcVaults {
  return new MpcVaults(new ShamirQuorumCustody(h.storage, custody), new QuorumApprovals(), h.storage, NO_AUDIT_TRAIL)
}
const owners = (...ms: Member[]) => ({ owners: Object.fromEntries(ms.map((m) => [m.did, m.did])) })

describe('MPC BIP44 vaults of P-256 and Ed25519 wallets', () => {
  it("make P-256, Ed25519 wallets by quorum at m/44'/60'/0'/0'/i', one index counter with secp256k1; no secret on disk", async () => {
    const vaultId = await initializedVault('BIP44', { didMethod: 'jwk', keyType: 'P-256' })
    const made = []
    for (const config of [
      undefined,
      { didMethod: 'ethr', keyType: 'secp256k1' },
      { didMethod: 'key', keyType: 'Ed25519' },
      { didMethod: 'web' },
    ]) {
      const res = await createWallet(vaultId, config)
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      expect(res.body.wallet).not.toHaveProperty('privateKeyHex')
      made.push(res.body.wallet)
    }
    expect(made.map((w) => [w.index, w.didMethod, w.publicKeyJwk.crv])).toEqual([
      [0, 'jwk', 'P-256'],
      [1, 'ethr', 'secp256k1'],
      [2, 'key', 'Ed25519'],
      [3, 'web', 'P-256'],
    ])
    const seed = await vaultSecret(vaultId)
    for (const wallet of made) {
      const r = await record(wallet.did)
      const type = r.keyType!
      expect(r).toMatchObject({ keyManagement: 'MPC', publicKeyJwk: wallet.publicKeyJwk })
      expect(r).not.toHaveProperty('privateKey')
      // publicKeyDER is the same key, read by node's own parser.
      const der = createPublicKey({ key: Buffer.from(wallet.publicKeyDER, 'hex'), format: 'der', type: 'spki' }).export({ format: 'jwk' })
      expect(der).toMatchObject({ crv: wallet.publicKeyJwk.crv, x: wallet.publicKeyJwk.x })
      if (type === 'secp256k1') {
        expect(r).toMatchObject({ keyRef: `mpc:${vaultId}/1`, path: "m/44'/60'/0'/0/1" })
        continue
      }
      expect(r).toMatchObject({ keyRef: `mpc:${vaultId}/${wallet.index}'`, path: slip10WalletPath(wallet.index) })
      // The key SLIP-0010 derives from the seed the shares rebuild (Ed25519 by ed25519-hd-key, an independent implementation).
      const privateKey =
        type === 'Ed25519'
          ? Uint8Array.from(derivePath(r.path!, Buffer.from(seed).toString('hex')).key)
          : slip10Derive('P-256', seed, r.path!).privateKey
      const point = type === 'Ed25519' ? ed25519.getPublicKey(privateKey) : p256.getPublicKey(privateKey, false)
      const x = type === 'Ed25519' ? point : point.subarray(1, 33)
      expect(r.publicKeyJwk!.x).toBe(Buffer.from(x).toString('base64url'))
      if (type === 'P-256') expect(r.publicKeyJwk!.y).toBe(Buffer.from(point.subarray(33)).toString('base64url'))
      expect(databaseHolds(privateKey)).toBe(false)
    }
    expect(databaseHolds(seed)).toBe(false)
  })

  it('refuses the derivation short of a quorum: 403 with the approval error, nothing written; did:ethr with P-256: 422', async () => {
    const vaultId = await initializedVault('BIP44', { didMethod: 'jwk', keyType: 'Ed25519' })
    const before = await snapshot(h)
    const res = await h.request('POST', `/vaults/${vaultId}/wallet`, { json: {}, didAuth: await approvals(members[0]) })
    expectError(res, 403, 'FORBIDDEN')
    expect(res.body.errorMessage).toMatch(/^MPC quorum not met: 1 more approval needed from members of group "signers"/)
    const ethr = await createWallet(vaultId, { didMethod: 'ethr', keyType: 'P-256' })
    expectError(ethr, 422, 'VALIDATION_ERROR')
    expect(ethr.body.errorMessage).toMatch(/a did:ethr DID cannot be made for a P-256 key/)
    expect(await snapshot(h)).toEqual(before)
    // The index was not consumed: the next wallet is index 0.
    expect((await createWallet(vaultId)).body.wallet.index).toBe(0)
  })

  it('6 concurrent creations of mixed key types in one vault take indexes 0..5 once each, each key at its own index', () =>
    concurrentMixedWallets(h))

  for (const type of ['P-256', 'Ed25519'] as const) {
    it(`signs with a ${type} wallet only with a quorum; the signature verifies under its publicKeyJwk (node:crypto)`, async () => {
      const vaultId = await initializedVault('BIP44', { didMethod: 'key', keyType: type })
      const { wallet } = (await createWallet(vaultId)).body
      const r = await record(wallet.did)
      const alg = type === 'P-256' ? 'ES256' : 'EdDSA'
      const data = new TextEncoder().encode(`header.payload of ${wallet.did}`)
      const vaults = mpcVaults()
      await expect(vaults.signData(r, owners(members[1]), alg, data)).rejects.toMatchObject({
        statusCode: 403,
        errorType: 'FORBIDDEN',
        message: expect.stringMatching(/^MPC quorum not met: 1 more approval needed from members of group "signers"/),
      })
      const signature = await vaults.signData(r, owners(members[1], members[2]), alg, data)
      expect(nodeVerifies(wallet.publicKeyJwk, data, signature)).toBe(true)
      expect(nodeVerifies(wallet.publicKeyJwk, new TextEncoder().encode('other'), signature)).toBe(false)
    })
  }
})

/** 6 concurrent Create wallet requests, 2 of each key type, in one BIP44 MPC vault: indexes 0..5 once each, keys at their index. */
async function concurrentMixedWallets(on: Harness) {
  const vaultId = await initializedVault('BIP44', { didMethod: 'jwk', keyType: 'P-256' }, on)
  const configs = [undefined, { didMethod: 'ethr', keyType: 'secp256k1' }, { keyType: 'Ed25519' }]
  const made = await Promise.all(Array.from({ length: 6 }, (_, i) => createWallet(vaultId, configs[i % 3], on)))
  for (const res of made) expect(res.status, JSON.stringify(res.body)).toBe(200)
  const records = await Promise.all(made.map((res) => record(res.body.wallet.did, on)))
  expect(records.map((r) => r.index).sort()).toEqual([0, 1, 2, 3, 4, 5])
  const seed = await vaultSecret(vaultId, on)
  for (const r of records.filter((w) => w.keyType === 'P-256')) {
    expect(r.path).toBe(slip10WalletPath(r.index!))
    const point = p256.getPublicKey(slip10Derive('P-256', seed, r.path!).privateKey, false)
    expect(r.publicKeyJwk!.x).toBe(Buffer.from(point.subarray(1, 33)).toString('base64url'))
  }
}

describe('MPC BIP44 vaults on PostgreSQL', () => {
  let pg: Harness
  beforeAll(async () => {
    pg = await startHarness({ storage: 'postgres', service: { masterKey, publicUrl: 'https://vault.example.com' } })
  })
  afterAll(() => pg?.close())

  it('6 concurrent creations of mixed key types in one vault take indexes 0..5 once each', () => concurrentMixedWallets(pg), 60_000)
})

describe('MPC NONE vaults of P-256 and Ed25519 keys', () => {
  for (const type of ['P-256', 'Ed25519'] as const) {
    it(`hold one ${type} key of the template's type: one wallet, its key's reference, signatures only with a quorum`, async () => {
      const vaultId = await initializedVault('NONE', { didMethod: 'jwk', keyType: type })
      const other = type === 'P-256' ? 'Ed25519' : 'P-256'
      const before = await snapshot(h)
      expectError(await createWallet(vaultId, { keyType: other }), 422, 'VALIDATION_ERROR')
      expect(await snapshot(h)).toEqual(before)
      const res = await createWallet(vaultId)
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      const { wallet } = res.body
      expect(wallet).toMatchObject({ didMethod: 'jwk', publicKeyJwk: { crv: type } })
      expect(wallet).not.toHaveProperty('privateKeyHex')
      expect(wallet).not.toHaveProperty('index')
      const r = await record(wallet.did)
      expect(r).toMatchObject({ keyManagement: 'MPC', keyRef: `mpc:${vaultId}`, keyType: type })
      expect(databaseHolds(await vaultSecret(vaultId))).toBe(false)
      expectError(await createWallet(vaultId), 422, 'VALIDATION_ERROR')

      const alg = type === 'P-256' ? 'ES256' : 'EdDSA'
      const data = new TextEncoder().encode('a NONE vault signs')
      await expect(mpcVaults().signData(r, owners(members[0]), alg, data)).rejects.toMatchObject({ errorType: 'FORBIDDEN' })
      expect(nodeVerifies(wallet.publicKeyJwk, data, await mpcVaults().signData(r, owners(members[0], members[1]), alg, data))).toBe(true)
    })
  }
})
