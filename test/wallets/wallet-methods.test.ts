/**
 * Generate Identity Wallet of every DID method and key type (`walletConfig.didMethod`, `walletConfig.keyType`),
 * through the router on a real SQLite file, the embedded API and the HTTP client: the DID each method makes, the
 * record (key reference, type, public JWK; the Ethereum fields for secp256k1 keys only), `publicKeyJwk` in every
 * response, resolution of did:key / did:jwk DIDs through `/1.0/identifiers`, delete destroying the key (by vault
 * control: control by a DID's own keys is the access policy's), and each
 * refusal answered 422 with the error body and nothing written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { computeAddress } from 'ethers'
import { Resolver } from 'did-resolver'
import KeyResolver from 'key-did-resolver'
import { createClient } from '../../src/client/index.js'
import { SEALED_KEYS } from '../../src/keys/backends/sealed/index.js'
import { jwkThumbprint } from '../../src/keys/thumbprint.js'
import type { WalletRecord } from '../../src/wallets/records.js'
import { expectError, snapshot, startHarness, TENANT_A, tokenFor, type Harness } from '../helpers/harness.js'

const PUBLIC_URL = 'https://vault.example.com:8443/id'
const COMBINATIONS = [
  ['ethr', 'secp256k1'],
  ['key', 'secp256k1'],
  ['key', 'P-256'],
  ['key', 'Ed25519'],
  ['jwk', 'secp256k1'],
  ['jwk', 'P-256'],
  ['jwk', 'Ed25519'],
  ['web', 'secp256k1'],
  ['web', 'P-256'],
  ['web', 'Ed25519'],
] as const
const CRV = { secp256k1: 'secp256k1', 'P-256': 'P-256', Ed25519: 'Ed25519' } as const

let h: Harness
let bare: Harness
beforeAll(async () => {
  ;[h, bare] = await Promise.all([startHarness({ storage: 'sqlite', service: { publicUrl: PUBLIC_URL } }), startHarness()])
})
afterAll(() => Promise.all([h.close(), bare.close()]))

const walletRecord = async (harness: Harness, id: string) => (await harness.storage.collection<WalletRecord>('wallets').get(id))!
const keyCount = async (harness: Harness) => harness.storage.collection(SEALED_KEYS.name).count({ and: [] })
const keyResolver = new Resolver(KeyResolver.getResolver())

describe('Generate Identity Wallet: walletConfig.didMethod × walletConfig.keyType', () => {
  it.each(COMBINATIONS)('did:%s with a %s key: its DID, record, publicKeyJwk, listing and resolution', async (method, keyType) => {
    const keysBefore = await keyCount(h)
    const res = await h.request('POST', '/wallet', { json: { walletConfig: { didMethod: method, keyType } } })
    expect(res.status).toBe(200)
    const w = res.body.wallet
    expect(w.didMethod).toBe(method)
    expect(w.publicKeyJwk).toMatchObject({ kty: keyType === 'Ed25519' ? 'OKP' : 'EC', crv: CRV[keyType] })
    const expectedKeys = ['_id', 'alias', 'created', 'did', 'didMethod', 'publicKeyJwk']
    if (keyType === 'secp256k1') expectedKeys.push('ethereumAddress', 'publicKeyHex')
    expect(Object.keys(w).sort()).toEqual(expectedKeys.sort())
    if (keyType === 'secp256k1') {
      expect(computeAddress('0x' + w.publicKeyHex)).toBe(w.ethereumAddress)
      const x = Buffer.from(w.publicKeyJwk.x, 'base64url').toString('hex')
      const y = Buffer.from(w.publicKeyJwk.y, 'base64url').toString('hex')
      expect(w.publicKeyHex).toBe(`04${x}${y}`)
    }
    if (method === 'ethr') expect(w.did).toBe(`did:ethr:dev:${w.ethereumAddress}`)
    if (method === 'web') expect(w.did).toBe(`did:web:vault.example.com%3A8443:id:dids:${w._id}`)
    if (method === 'jwk') {
      const encoded = JSON.parse(Buffer.from(w.did.slice('did:jwk:'.length), 'base64url').toString())
      expect(encoded).toEqual(w.publicKeyJwk)
    }
    if (method === 'key') {
      // An independent did:key implementation resolves the DID to a document of the same key type.
      const resolved = await keyResolver.resolve(w.did)
      expect(resolved.didResolutionMetadata.error).toBeUndefined()
      expect(resolved.didDocument?.id).toBe(w.did)
    }

    // The record: the key's reference, type and public JWK, the Ethereum fields for secp256k1 keys only, no private key.
    const record = await walletRecord(h, w._id)
    expect(record).toMatchObject({ did: w.did, didMethod: method, keyType, publicKeyJwk: w.publicKeyJwk })
    expect(record.keyRef).toBe(`sealed:${jwkThumbprint(w.publicKeyJwk)}`)
    expect(record.privateKey).toBeUndefined()
    expect(record.ethereumAddress).toBe(keyType === 'secp256k1' ? w.ethereumAddress : undefined)
    expect(record.publicKeyHex).toBe(keyType === 'secp256k1' ? w.publicKeyHex : undefined)
    expect(await keyCount(h)).toBe(keysBefore + 1)

    // Fetch by DID and list: the same view, with publicKeyJwk.
    const fetched = await h.request('GET', `/wallets?did=${encodeURIComponent(w.did)}`)
    expect(fetched.status).toBe(200)
    expect(fetched.body.wallets).toEqual([{ ...w, isHDWallet: false }])

    if (method === 'key' || method === 'jwk') {
      // Resolution through the service: a document listing the wallet's key for authentication.
      const doc = await h.request('GET', `/1.0/identifiers/${encodeURIComponent(w.did)}`)
      expect(doc.status).toBe(200)
      expect(doc.body.didDocument.id).toBe(w.did)
      expect(doc.body.didDocument.authentication).toHaveLength(1)
      if (method === 'jwk') expect(doc.body.didDocument.verificationMethod[0].publicKeyJwk).toEqual(w.publicKeyJwk)
    }
  })

  it.each(COMBINATIONS)('deleting a did:%s wallet with a %s key removes it and destroys its key', async (method, keyType) => {
    // Deleted by the controller of its vault (a BIP44 vault whose wallet 0 is a did:ethr wallet): control of a DID of
    // another method through its own keys is the access policy's (issue 30 part 2).
    const vault = await h.request('POST', '/vaults', { json: { name: `v-${method}-${keyType}`, hierarchy: 'BIP44' } })
    const controller = await tokenFor(h, vault.body.vault.wallets[0].did)
    const keysBefore = await keyCount(h)
    const created = await h.request('POST', `/vaults/${vault.body.vault.id}/wallet`, {
      json: { walletConfig: { didMethod: method, keyType } },
      didAuth: controller,
    })
    expect(created.status).toBe(200)
    const w = created.body.wallet
    expect(w.did).toMatch(new RegExp(`^did:${method}:`))
    expect(await keyCount(h)).toBe(keysBefore + 1)
    const deleted = await h.request('DELETE', '/wallet', { json: { ids: [w.did] }, didAuth: controller })
    expect(deleted.body).toEqual({ ids: [w.did], errors: [] })
    expect(await h.storage.collection('wallets').get(w._id)).toBeUndefined()
    expect(await keyCount(h)).toBe(keysBefore)
    expect((await h.request('GET', `/wallets?did=${encodeURIComponent(w.did)}`)).body.wallets).toEqual([])
  })

  it('Configure Identity Wallet: txsInput on a did:key / did:jwk wallet, or another method or key type: 422, nothing written', async () => {
    const vault = await h.request('POST', '/vaults', { json: { name: 'configure', hierarchy: 'BIP44' } })
    const controller = await tokenFor(h, vault.body.vault.wallets[0].did)
    const make = async (walletConfig: Record<string, string>) =>
      (await h.request('POST', `/vaults/${vault.body.vault.id}/wallet`, { json: { walletConfig }, didAuth: controller })).body.wallet
    const key = await make({ didMethod: 'key', keyType: 'Ed25519' })
    const jwk = await make({ didMethod: 'jwk', keyType: 'P-256' })
    const service = { service: { name: 'hub', value: 'https://hub.example.com', validity: 1000 } }
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      [key.did, { txsInput: [service] }, /did:key DID is derived from its key/],
      [jwk.did, { txsInput: service }, /did:jwk DID is derived from its key/],
      [key.did, { didMethod: 'ethr' }, /is a did:key DID; a wallet's DID method cannot change/],
      [jwk.did, { keyType: 'Ed25519' }, /is P-256; a wallet's key type cannot change/],
      [vault.body.vault.wallets[0].did, { keyType: 'P-256' }, /is secp256k1; a wallet's key type cannot change/],
    ]
    for (const [did, walletConfig, message] of cases) {
      const before = await snapshot(h)
      const res = await h.request('POST', '/wallet/configure', { json: { wallet: { did }, walletConfig }, didAuth: controller })
      expectError(res, 422, 'VALIDATION_ERROR')
      expect(res.body.errorMessage).toMatch(message)
      expect(await snapshot(h)).toEqual(before)
    }
  })

  it('the embedded API and the HTTP client take the same fields and return publicKeyJwk', async () => {
    const embedded = await h.service.generateWallet(
      { walletConfig: { didMethod: 'jwk', keyType: 'P-256' } },
      { authorization: `Bearer ${TENANT_A}` },
    )
    expect(embedded.wallet.did).toMatch(/^did:jwk:/)
    expect(embedded.wallet.publicKeyJwk.crv).toBe('P-256')
    expect(embedded.wallet.ethereumAddress).toBeUndefined()

    const client = createClient({ baseUrl: h.url, apiKey: TENANT_A })
    const { wallet } = await client.generateWallet({ walletConfig: { didMethod: 'key', keyType: 'Ed25519' } })
    const crv: 'secp256k1' | 'P-256' | 'Ed25519' = wallet.publicKeyJwk.crv
    expect(crv).toBe('Ed25519')
    expect(wallet.did).toMatch(/^did:key:z6Mk/)
  })

  it('a wallet made before keyType existed keeps its shape: secp256k1 did:ethr, now with publicKeyJwk', async () => {
    const { body } = await h.request('POST', '/wallet', { json: {} })
    expect(body.wallet.didMethod).toBe('ethr')
    expect(body.wallet.publicKeyJwk.crv).toBe('secp256k1')
    expect((await walletRecord(h, body.wallet._id)).keyType).toBe('secp256k1')
  })
})

describe('Generate Identity Wallet: refusals (422, the error body, nothing written)', () => {
  const refusals: Array<[string, Record<string, unknown>, RegExp]> = [
    ['an unknown DID method', { didMethod: 'btcr' }, /unsupported DID method "btcr" \(supported: ethr, key, jwk, web\)/],
    ['an unknown key type', { keyType: 'RSA' }, /keyType.*secp256k1.*P-256.*Ed25519/],
    ['did:ethr with an Ed25519 key', { keyType: 'Ed25519' }, /did:ethr DID cannot be made for a Ed25519 key \(did:ethr takes secp256k1\)/],
    ['did:ethr with a P-256 key', { didMethod: 'ethr', keyType: 'P-256' }, /did:ethr takes secp256k1/],
    ['txsInput on did:key', { didMethod: 'key', txsInput: [{ delegate: { validity: 1000 } }] }, /did:key DID is derived from its key/],
    ['txsInput on did:jwk', { didMethod: 'jwk', keyType: 'P-256', txsInput: { service: svc() } }, /did:jwk DID is derived/],
    ['apiUrl on did:key', { didMethod: 'key', apiUrl: 'local' }, /apiUrl: did:key has no registry/],
    ['apiUrl on did:jwk', { didMethod: 'jwk', apiUrl: 'local' }, /apiUrl: did:jwk has no registry/],
    ['apiUrl on did:web', { didMethod: 'web', apiUrl: 'local' }, /apiUrl: did:web has no registry/],
  ]

  it.each(refusals)('%s', async (_name, walletConfig, message) => {
    const before = await snapshot(h)
    const res = await h.request('POST', '/wallet', { json: { walletConfig } })
    expectError(res, 422, 'VALIDATION_ERROR')
    expect(res.body.errorMessage).toMatch(message)
    expect(await snapshot(h)).toEqual(before)
  })

  it('did:web without publicUrl names the setting, its flag and its variable', async () => {
    const before = await snapshot(bare)
    const res = await bare.request('POST', '/wallet', { json: { walletConfig: { didMethod: 'web', keyType: 'Ed25519' } } })
    expectError(res, 422, 'VALIDATION_ERROR')
    expect(res.body.errorMessage).toContain('publicUrl (--public-url, DIDVAULT_PUBLIC_URL)')
    expect(await snapshot(bare)).toEqual(before)
    expect(await keyCount(bare)).toBe(0)
  })
})

function svc() {
  return { name: 'hub', value: 'https://hub.example.com', validity: 1000 }
}
