/**
 * Create Role with `walletConfig.didMethod` / `walletConfig.keyType`: the role DID is its new wallet's DID, of the
 * method and key type asked for (did:key, did:jwk, did:web with Ed25519 or P-256 keys), and the same refusals as
 * Generate Identity Wallet answer 422 with nothing written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { WalletRecord } from '../../src/wallets/records.js'
import { expectError, snapshot, startHarness, walletWithToken, type Harness } from '../helpers/harness.js'

let h: Harness
let bare: Harness
let creator: { did: string; jwt: string }
beforeAll(async () => {
  ;[h, bare] = await Promise.all([startHarness({ storage: 'sqlite', service: { publicUrl: 'https://roles.example.com' } }), startHarness()])
  creator = await walletWithToken(h)
})
afterAll(() => Promise.all([h?.close(), bare?.close()]))

const roleWallet = async (did: string) =>
  (await h.storage.collection<WalletRecord>('wallets').findOne({ field: 'did', op: 'eq', value: did }))!

describe('Create Role: walletConfig.didMethod × walletConfig.keyType', () => {
  it.each([
    ['key', 'Ed25519', /^did:key:z6Mk/],
    ['key', 'P-256', /^did:key:zDn/],
    ['jwk', 'P-256', /^did:jwk:/],
    ['jwk', 'Ed25519', /^did:jwk:/],
    ['web', 'Ed25519', /^did:web:roles\.example\.com:dids:/],
    ['ethr', 'secp256k1', /^did:ethr:dev:0x/],
  ])('did:%s with a %s key: the role DID is its wallet’s', async (didMethod, keyType, shape) => {
    const res = await h.request('POST', '/roles', {
      json: { description: `${didMethod} ${keyType}`, permissions: ['Read'], walletConfig: { didMethod, keyType } },
      didAuth: creator.jwt,
    })
    expect(res.status).toBe(200)
    const { role } = res.body
    expect(role.did).toMatch(shape)
    expect(role.creator).toBe(creator.did)
    const wallet = await roleWallet(role.did)
    expect(wallet).toMatchObject({ role: true, didMethod, keyType })
    expect(wallet.publicKeyJwk!.crv).toBe(keyType)
    if (didMethod === 'web') expect(role.did).toBe(`did:web:roles.example.com:dids:${wallet.id}`)
    // The role's wallet lists with its publicKeyJwk.
    const listed = await h.request('GET', `/wallets?did=${encodeURIComponent(role.did)}`)
    expect(listed.body.wallets[0]).toMatchObject({ did: role.did, role: true, publicKeyJwk: wallet.publicKeyJwk })
  })

  it.each([
    ['did:ethr with a P-256 key', { keyType: 'P-256' }, /did:ethr takes secp256k1/],
    ['an unknown key type', { didMethod: 'jwk', keyType: 'secp384r1' }, /keyType/],
    ['an unknown method', { didMethod: 'sov' }, /unsupported DID method "sov"/],
    ['txsInput on did:jwk', { didMethod: 'jwk', txsInput: [{ delegate: { validity: 1000 } }] }, /did:jwk DID is derived from its key/],
    ['apiUrl on did:web', { didMethod: 'web', apiUrl: 'local' }, /apiUrl: did:web has no registry/],
  ])('%s: 422, nothing written', async (_name, walletConfig, message) => {
    const before = await snapshot(h)
    const res = await h.request('POST', '/roles', { json: { walletConfig }, didAuth: creator.jwt })
    expectError(res, 422, 'VALIDATION_ERROR')
    expect(res.body.errorMessage).toMatch(message)
    expect(await snapshot(h)).toEqual(before)
  })

  it('did:web without publicUrl: 422 naming the setting, nothing written', async () => {
    const bareCreator = await walletWithToken(bare)
    const before = await snapshot(bare)
    const res = await bare.request('POST', '/roles', { json: { walletConfig: { didMethod: 'web' } }, didAuth: bareCreator.jwt })
    expectError(res, 422, 'VALIDATION_ERROR')
    expect(res.body.errorMessage).toContain('publicUrl (--public-url, DIDVAULT_PUBLIC_URL)')
    expect(await snapshot(bare)).toEqual(before)
  })
})
