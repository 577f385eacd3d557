import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { HDKey } from '@scure/bip32'
import { mnemonicToSeedSync } from '@scure/bip39'
import { computeAddress } from 'ethers'
import { expectError, snapshot, startHarness, TENANT_B, tokenFor, type Harness } from '../helpers/harness.js'
import { mintToken } from '../helpers/tokens.js'

let h: Harness
beforeAll(async () => {
  h = await startHarness({ storage: 'sqlite' })
})
afterAll(() => h.close())

function addressAt(mnemonic: string, index: number): string {
  const key = HDKey.fromMasterSeed(mnemonicToSeedSync(mnemonic)).derive(`m/44'/60'/0'/0/${index}`)
  return computeAddress('0x' + Buffer.from(key.privateKey!).toString('hex'))
}

describe('POST /vaults (Create Identity Vault)', () => {
  it('ECS/NONE: INITIALIZED with its first wallet, defaults applied, privateKeyHex is an envelope', async () => {
    const res = await h.request('POST', '/vaults', { json: { name: 'plain' } })
    expect(res.status).toBe(200)
    const v = res.body.vault
    expect(v).toMatchObject({ name: 'plain', description: '', hierarchy: 'NONE', keyManagement: 'ECS', status: 'INITIALIZED' })
    expect(v.id).toEqual(expect.any(String))
    expect(v).not.toHaveProperty('mnemonic')
    expect(v).not.toHaveProperty('parentID')
    expect(v).not.toHaveProperty('walletConfig')
    expect(v.wallets).toHaveLength(1)
    const w = v.wallets[0]
    expect(w).toMatchObject({ vaultId: v.id, isHDWallet: false, didMethod: 'ethr' })
    expect(w.did).toBe(`did:ethr:dev:${w.ethereumAddress}`)
    expect(w.alias).toBe(w.did)
    expect(w.ethereumAddress).toBe(computeAddress('0x' + w.publicKeyHex))
    expect(w.privateKeyHex).toMatch(/^01[0-9a-f]{8,}$/)
    expect(w.privateKeyHex.length).toBeGreaterThan(64 * 2)
    expect(w).not.toHaveProperty('index')
  })

  it('ECS/BIP44: returns the mnemonic once; wallet 0 is the mnemonic derivation at index 0', async () => {
    const res = await h.request('POST', '/vaults', { json: { name: 'hd', hierarchy: 'BIP44', description: 'd' } })
    expect(res.status).toBe(200)
    const v = res.body.vault
    expect(v.mnemonic.split(' ')).toHaveLength(12)
    expect(v.wallets[0]).toMatchObject({ index: 0, isHDWallet: true })
    expect(v.wallets[0].ethereumAddress).toBe(addressAt(v.mnemonic, 0))
    const fetched = await h.request('GET', `/vaults?id=${v.id}`)
    expect(fetched.status).toBe(200)
    expect(fetched.body.vaults[0]).not.toHaveProperty('mnemonic')
    expect(JSON.stringify(fetched.body)).not.toContain(v.mnemonic)
  })

  it('stores walletConfig as the template and echoes it; parentID must name a vault of the tenant', async () => {
    const parent = (await h.request('POST', '/vaults', { json: { name: 'parent' } })).body.vault
    const walletConfig = {
      didMethod: 'ethr',
      txsInput: [{ service: { name: 'hub', value: 'https://hub.example.com/x', validity: 86_400_000 } }],
    }
    const res = await h.request('POST', '/vaults', { json: { name: 'child', parentID: parent.id, walletConfig } })
    expect(res.status).toBe(200)
    expect(res.body.vault.parentID).toBe(parent.id)
    expect(res.body.vault.walletConfig).toEqual(walletConfig)
    const before = await snapshot(h)
    expectError(await h.request('POST', '/vaults', { json: { name: 'orphan', parentID: 'nope' } }), 422, 'NOT_FOUND')
    // another tenant's vault is reported exactly like a missing one
    expectError(await h.request('POST', '/vaults', { json: { name: 'x', parentID: parent.id }, token: TENANT_B }), 422, 'NOT_FOUND')
    expect(await snapshot(h)).toEqual(before)
  })

  it('MPC: validated (mpcAccountID and mpcGroups required); MPC vaults are covered in mpc.test.ts', async () => {
    const before = await snapshot(h)
    const missing = await h.request('POST', '/vaults', { json: { name: 'm', keyManagement: 'MPC' } })
    expectError(missing, 422, 'VALIDATION_ERROR')
    expect(missing.body.errorMessage).toContain('mpcAccountID')
    expect(missing.body.errorMessage).toContain('mpcGroups')
    expect(await snapshot(h)).toEqual(before)
  })

  it.each([
    ['missing name', {}],
    ['empty name', { name: '  ' }],
    ['mistyped name', { name: 42 }],
    ['extra field', { name: 'x', color: 'red' }],
    ['bad hierarchy', { name: 'x', hierarchy: 'BIP32' }],
    ['bad keyManagement', { name: 'x', keyManagement: 'HSM' }],
    ['huge name', { name: 'x'.repeat(10_000) }],
    ['unknown didMethod', { name: 'x', walletConfig: { didMethod: 'web' } }],
    ['caller-chosen apiUrl', { name: 'x', walletConfig: { apiUrl: 'http://169.254.169.254/' } }],
    [
      'txsInput with two updates in one element',
      {
        name: 'x',
        walletConfig: { txsInput: [{ newOwner: 'did:ethr:dev:0x0000000000000000000000000000000000000001', delegate: { validity: 1000 } }] },
      },
    ],
    ['newOwner not a did:ethr', { name: 'x', walletConfig: { txsInput: [{ newOwner: 'did:web:example.com' }] } }],
    ['service value not a URL', { name: 'x', walletConfig: { txsInput: [{ service: { name: 's', value: 'not a url', validity: 1 } }] } }],
    ['mpc fields on an ECS vault', { name: 'x', mpcAccountID: 'a' }],
    ['array body', [{ name: 'x' }]],
  ])('422 and nothing written: %s', async (_case, json) => {
    const before = await snapshot(h)
    expectError(await h.request('POST', '/vaults', { json }), 422, 'VALIDATION_ERROR')
    expect(await snapshot(h)).toEqual(before)
  })

  it('403 without or with a wrong Base Auth Token, nothing written', async () => {
    const before = await snapshot(h)
    expectError(await h.request('POST', '/vaults', { json: { name: 'x' }, token: null }), 403, 'UNAUTHENTICATED')
    expectError(await h.request('POST', '/vaults', { json: { name: 'x' }, token: 'wrong-token-0123456789' }), 403, 'UNAUTHENTICATED')
    expect(await snapshot(h)).toEqual(before)
  })
})

describe('GET /vaults (Get Identity Vaults)', () => {
  it('filters by id and parentID within the tenant only', async () => {
    const parent = (await h.request('POST', '/vaults', { json: { name: 'p2' } })).body.vault
    const c1 = (await h.request('POST', '/vaults', { json: { name: 'c1', parentID: parent.id } })).body.vault
    const c2 = (await h.request('POST', '/vaults', { json: { name: 'c2', parentID: parent.id, hierarchy: 'BIP44' } })).body.vault
    const byParent = await h.request('GET', `/vaults?parentID=${parent.id}`)
    expect(byParent.status).toBe(200)
    expect(byParent.body.vaults.map((v: any) => v.id).sort()).toEqual([c1.id, c2.id].sort())
    for (const v of byParent.body.vaults) {
      expect(v.wallets).toHaveLength(1)
      expect(v.wallets[0].privateKeyHex).toMatch(/^01/)
    }
    const byId = await h.request('GET', `/vaults?id=${c1.id}`)
    expect(byId.body.vaults).toHaveLength(1)
    expect(byId.body.vaults[0].wallets[0].did).toBe(c1.wallets[0].did)
    const all = await h.request('GET', '/vaults')
    expect(all.body.vaults.length).toBeGreaterThanOrEqual(3)
    const other = await h.request('GET', `/vaults?id=${c1.id}`, { token: TENANT_B })
    expect(other.status).toBe(200)
    expect(other.body.vaults).toEqual([])
    const otherAll = await h.request('GET', '/vaults', { token: TENANT_B })
    expect(otherAll.body.vaults.find((v: any) => v.id === c1.id)).toBeUndefined()
  })

  it('422 for unknown or repeated query parameters; 403 without token', async () => {
    expectError(await h.request('GET', '/vaults?color=red'), 422, 'VALIDATION_ERROR')
    expectError(await h.request('GET', '/vaults?id=a&id=b'), 422, 'VALIDATION_ERROR')
    expectError(await h.request('GET', '/vaults', { token: null }), 403, 'UNAUTHENTICATED')
  })
})

describe("POST /vaults/:vaultID/wallet (Create Identity Vault's Wallet)", () => {
  it('derives the next index, matches the mnemonic, applies the vault template and body override', async () => {
    const walletConfig = { txsInput: [{ delegate: { validity: 60_000 } }] }
    const v = (await h.request('POST', '/vaults', { json: { name: 'hd2', hierarchy: 'BIP44', walletConfig } })).body.vault
    const jwt = await tokenFor(h, v.wallets[0].did)
    const r1 = await h.request('POST', `/vaults/${v.id}/wallet`, { json: { wallet: { alias: 'second' } }, didAuth: jwt })
    expect(r1.status).toBe(200)
    expect(r1.body.wallet).toMatchObject({ vaultId: v.id, index: 1, alias: 'second', isHDWallet: true, didMethod: 'ethr' })
    expect(r1.body.wallet.ethereumAddress).toBe(addressAt(v.mnemonic, 1))
    expect(r1.body.wallet).not.toHaveProperty('privateKeyHex')
    const r2 = await h.request('POST', `/vaults/${v.id}/wallet`, { json: {}, didAuth: jwt })
    expect(r2.body.wallet.index).toBe(2)
    expect(r2.body.wallet.alias).toBe(r2.body.wallet.did)
    expect(r2.body.wallet.ethereumAddress).toBe(addressAt(v.mnemonic, 2))
  })

  it('concurrent requests get distinct, gap-free indexes', async () => {
    const v = (await h.request('POST', '/vaults', { json: { name: 'hd3', hierarchy: 'BIP44' } })).body.vault
    const jwt = await tokenFor(h, v.wallets[0].did)
    const results = await Promise.all(
      Array.from({ length: 12 }, () => h.request('POST', `/vaults/${v.id}/wallet`, { json: {}, didAuth: jwt })),
    )
    expect(results.map((r) => r.status)).toEqual(Array(12).fill(200))
    const indexes = results.map((r) => r.body.wallet.index).sort((a, b) => a - b)
    expect(indexes).toEqual(Array.from({ length: 12 }, (_, i) => i + 1))
    for (const r of results) expect(r.body.wallet.ethereumAddress).toBe(addressAt(v.mnemonic, r.body.wallet.index))
  })

  it('errors: 403 without/forged/foreign DID-auth, 422 unknown vault, NONE vault, bad body, duplicate alias; nothing written', async () => {
    const hd = (await h.request('POST', '/vaults', { json: { name: 'hd4', hierarchy: 'BIP44' } })).body.vault
    const plain = (await h.request('POST', '/vaults', { json: { name: 'plain4' } })).body.vault
    const jwt = await tokenFor(h, hd.wallets[0].did)
    const plainJwt = await tokenFor(h, plain.wallets[0].did)
    const stranger = await mintToken()
    const before = await snapshot(h)
    expectError(await h.request('POST', `/vaults/${hd.id}/wallet`, { json: {} }), 403, 'UNAUTHENTICATED')
    expectError(await h.request('POST', `/vaults/${hd.id}/wallet`, { json: {}, didAuth: 'garbage' }), 403, 'UNAUTHENTICATED')
    // a valid token of a DID that controls no wallet of this vault
    expectError(await h.request('POST', `/vaults/${hd.id}/wallet`, { json: {}, didAuth: stranger.jwt }), 403, 'FORBIDDEN')
    expectError(await h.request('POST', `/vaults/${hd.id}/wallet`, { json: {}, didAuth: plainJwt }), 403, 'FORBIDDEN')
    // unknown vault, and another tenant's vault, look the same
    expectError(await h.request('POST', `/vaults/nope/wallet`, { json: {}, didAuth: jwt }), 422, 'NOT_FOUND')
    expectError(await h.request('POST', `/vaults/${hd.id}/wallet`, { json: {}, didAuth: jwt, token: TENANT_B }), 422, 'NOT_FOUND')
    expectError(await h.request('POST', `/vaults/${plain.id}/wallet`, { json: {}, didAuth: plainJwt }), 422, 'VALIDATION_ERROR')
    expectError(
      await h.request('POST', `/vaults/${hd.id}/wallet`, { json: { wallet: { alias: 5 } }, didAuth: jwt }),
      422,
      'VALIDATION_ERROR',
    )
    expectError(await h.request('POST', `/vaults/${hd.id}/wallet`, { json: { extra: 1 }, didAuth: jwt }), 422, 'VALIDATION_ERROR')
    expectError(
      await h.request('POST', `/vaults/${hd.id}/wallet`, { json: { wallet: { alias: hd.wallets[0].alias } }, didAuth: jwt }),
      422,
      'CONFLICT',
    )
    expect(await snapshot(h)).toEqual(before)
    // the failed (conflicting) request did not burn an index
    const next = await h.request('POST', `/vaults/${hd.id}/wallet`, { json: {}, didAuth: jwt })
    expect(next.body.wallet.index).toBe(1)
  })
})

describe('DELETE /vaults (Delete Identity Vault)', () => {
  it('removes the vault and its wallets, reporting the removed wallets', async () => {
    const v = (await h.request('POST', '/vaults', { json: { name: 'gone', hierarchy: 'BIP44' } })).body.vault
    const jwt = await tokenFor(h, v.wallets[0].did)
    await h.request('POST', `/vaults/${v.id}/wallet`, { json: {}, didAuth: jwt })
    const res = await h.request('DELETE', '/vaults', { json: { _id: v.id }, didAuth: jwt })
    expect(res.status).toBe(200)
    expect(res.body).not.toHaveProperty('errors')
    expect(res.body.wallets).toHaveLength(2)
    expect(res.body.wallets[0]).toMatchObject({ vaultId: v.id, privateKeyHex: expect.stringMatching(/^01/) })
    expect((await h.request('GET', `/vaults?id=${v.id}`)).body.vaults).toEqual([])
    expect((await h.request('GET', `/wallets?vaultId=${v.id}`)).body.wallets).toEqual([])
    // repeated: the vault is gone
    expectError(await h.request('DELETE', '/vaults', { json: { _id: v.id }, didAuth: jwt }), 422, 'NOT_FOUND')
  })

  it('errors: 403 without DID-auth or not controlling, 422 bad body / unknown / other tenant / has children; nothing written', async () => {
    const v = (await h.request('POST', '/vaults', { json: { name: 'keep' } })).body.vault
    const child = (await h.request('POST', '/vaults', { json: { name: 'kid', parentID: v.id } })).body.vault
    const jwt = await tokenFor(h, v.wallets[0].did)
    const stranger = await mintToken()
    const before = await snapshot(h)
    expectError(await h.request('DELETE', '/vaults', { json: { _id: v.id } }), 403, 'UNAUTHENTICATED')
    expectError(await h.request('DELETE', '/vaults', { json: { _id: v.id }, didAuth: stranger.jwt }), 403, 'FORBIDDEN')
    expectError(await h.request('DELETE', '/vaults', { json: {}, didAuth: jwt }), 422, 'VALIDATION_ERROR')
    expectError(await h.request('DELETE', '/vaults', { json: { _id: 7 }, didAuth: jwt }), 422, 'VALIDATION_ERROR')
    expectError(await h.request('DELETE', '/vaults', { json: { _id: v.id }, didAuth: jwt, token: TENANT_B }), 422, 'NOT_FOUND')
    expectError(await h.request('DELETE', '/vaults', { json: { _id: v.id }, didAuth: jwt }), 422, 'CONFLICT')
    expect(await snapshot(h)).toEqual(before)
    expect(child.parentID).toBe(v.id)
  })
})

describe('DELETE /vaults: emptied vaults and concurrent wallet creation', () => {
  it('an emptied vault is governed by its root DID, not by any DID-auth token', async () => {
    const v = (await h.request('POST', '/vaults', { json: { name: 'emptied' } })).body.vault
    const root = v.wallets[0]
    const rootJwt = await tokenFor(h, root.did)
    expect((await h.request('DELETE', '/wallet', { json: { ids: [root._id] }, didAuth: rootJwt })).body.ids).toEqual([root.did])
    const stranger = await mintToken()
    const before = await snapshot(h)
    expectError(await h.request('DELETE', '/vaults', { json: { _id: v.id }, didAuth: stranger.jwt }), 403, 'FORBIDDEN')
    expect(await snapshot(h)).toEqual(before)
    const res = await h.request('DELETE', '/vaults', { json: { _id: v.id }, didAuth: rootJwt })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ wallets: [] })
  })

  it('a vault deleted while wallets are being created leaves no wallet behind', async () => {
    for (let round = 0; round < 5; round++) {
      const v = (await h.request('POST', '/vaults', { json: { name: `race-${round}`, hierarchy: 'BIP44' } })).body.vault
      const jwt = await tokenFor(h, v.wallets[0].did)
      const [deleted, ...created] = await Promise.all([
        h.request('DELETE', '/vaults', { json: { _id: v.id }, didAuth: jwt }),
        ...Array.from({ length: 3 }, () => h.request('POST', `/vaults/${v.id}/wallet`, { json: {}, didAuth: jwt })),
      ])
      expect(deleted.status).toBe(200)
      for (const c of created) {
        if (c.status !== 200) expectError(c, 422, 'NOT_FOUND')
        // a wallet created before the delete was removed with the vault
        else expect(deleted.body.wallets.map((w: any) => w._id)).toContain(c.body.wallet._id)
      }
      expect((await h.request('GET', `/wallets?vaultId=${v.id}`)).body.wallets).toEqual([])
    }
  })
})
