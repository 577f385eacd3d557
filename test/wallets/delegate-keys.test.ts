/**
 * Generated delegate keys are secrets: sealed at rest (never in the SQLite bytes), never in a
 * response, bound to their record, resealed by master-key rotation. And the embedded
 * registry's change chain holds under concurrent writers and across service instances
 * sharing one database (the resolution cache sees other processes' writes).
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { IdentityService, randomMasterKey, staticTenants } from '../../src/index.js'
import { openKeyring } from '../../src/custody/keyring-store.js'
import { addressOf, publicKeyOf } from '../../src/keys/secp256k1.js'
import { delegateEnvelope, openDelegateKey } from '../helpers/delegate-keys.js'
import { ecPoint } from '../../src/keys/types/curve.js'
import { SEALED_KEYS, sealedKeyId, type SealedKeyRecord } from '../../src/keys/backends/sealed/index.js'
import type { DelegateKeyRecord } from '../../src/wallets/records.js'
import { createSqliteStorage } from '../../src/storage/sqlite/index.js'
import { startHarness, TENANT_A, tokenFor, type Harness } from '../helpers/harness.js'

const masterKey = randomMasterKey()
/** The master key after the rotation test. */
let currentKey = masterKey
let h: Harness
const responses: string[] = []

beforeAll(async () => {
  h = await startHarness({ storage: 'sqlite', service: { masterKey } })
  const delegate = { delegate: { validity: 3_600_000 } }
  responses.push(JSON.stringify((await h.request('POST', '/wallet', { json: { walletConfig: { txsInput: [delegate, delegate] } } })).body))
  const v = (await h.request('POST', '/vaults', { json: { name: 'd', hierarchy: 'BIP44', walletConfig: { txsInput: [delegate] } } })).body
    .vault
  responses.push(JSON.stringify(v))
  const jwt = await tokenFor(h, v.wallets[0].did)
  responses.push(JSON.stringify((await h.request('POST', `/vaults/${v.id}/wallet`, { json: {}, didAuth: jwt })).body))
  responses.push(
    JSON.stringify(
      (
        await h.request('POST', '/wallet/configure', {
          json: { wallet: { did: v.wallets[0].did }, walletConfig: { txsInput: [delegate] } },
          didAuth: jwt,
        })
      ).body,
    ),
  )
  responses.push(JSON.stringify((await h.request('GET', '/wallets')).body))
  responses.push(JSON.stringify((await h.request('GET', '/vaults')).body))
})
afterAll(() => h.close())

async function delegateKeys(key = masterKey) {
  const keyring = await openKeyring(h.storage, key)
  const records = (await h.storage.collection('delegateKeys').find({ and: [] }, { limit: 1_000 })).items as any[]
  return Promise.all(records.map(async (r) => ({ record: r, key: await openDelegateKey(h.storage, keyring, r) })))
}

describe('generated delegate keys', () => {
  it('are sealed: each opens to the key of the delegate address it claims, and appears nowhere in the database bytes or the responses', async () => {
    const keys = await delegateKeys()
    expect(keys).toHaveLength(5)
    const bytes = Buffer.concat(readdirSync(h.dir!).map((f) => readFileSync(join(h.dir!, f))))
    const text = bytes.toString('latin1')
    for (const { record, key } of keys) {
      expect(addressOf(publicKeyOf(key))).toBe(record.ethereumAddress)
      const hex = Buffer.from(key).toString('hex')
      expect(text.includes(hex)).toBe(false)
      expect(text.includes(hex.toUpperCase())).toBe(false)
      expect(bytes.includes(Buffer.from(key))).toBe(false)
      for (const body of responses) expect(body.toLowerCase().includes(hex)).toBe(false)
      // reported by address and public key only
      expect(responses.some((b) => b.includes(record.ethereumAddress))).toBe(true)
    }
  })

  it("name their key in the key port (keyRef) and hold no envelope of their own: the keys record's key is the delegate's", async () => {
    const records = (await h.storage.collection<DelegateKeyRecord>('delegateKeys').find({ and: [] }, { limit: 1_000 })).items
    expect(records).toHaveLength(5)
    for (const r of records) {
      expect(r.privateKey).toBeUndefined()
      expect(r.keyRef).toMatch(/^sealed:[\w-]{43}$/)
      const stored = await h.storage.collection<SealedKeyRecord>(SEALED_KEYS.name).get(sealedKeyId(r.tenantId, r.keyRef!.slice(7)))
      const key = stored!.publicJwk
      if (key.crv === 'Bls12381G2') throw new Error('a delegate key is secp256k1')
      expect(addressOf(ecPoint(key))).toBe(r.ethereumAddress)
      expect(Buffer.from(ecPoint(key)).toString('hex')).toBe(r.publicKeyHex)
    }
  })

  it('an envelope moved to another record does not open', async () => {
    const [a, b] = (await delegateKeys()).map((k) => k.record)
    const keyring = await openKeyring(h.storage, masterKey)
    const [ea, eb] = await Promise.all([delegateEnvelope(h.storage, a), delegateEnvelope(h.storage, b)])
    expect(ea.context).not.toBe(eb.context)
    expect(() => keyring.open(ea.envelope, eb.context)).toThrow()
  })

  it('master-key rotation reseals them', async () => {
    const newKey = randomMasterKey()
    currentKey = newKey
    const result = await h.service.rotateMasterKey(newKey)
    expect(result.resealed).toBeGreaterThanOrEqual(5)
    const reopened = await delegateKeys(newKey)
    expect(reopened).toHaveLength(5)
  })
})

describe('embedded registry change chain', () => {
  it('concurrent changes of one identity get distinct, gap-free sequence numbers', async () => {
    const w = (await h.request('POST', '/wallet', { json: {} })).body.wallet
    const jwt = await tokenFor(h, w.did)
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        h.request('POST', '/wallet/configure', {
          json: {
            wallet: { did: w.did },
            walletConfig: { txsInput: [{ service: { name: `S${i}`, value: `https://s${i}.example.com`, validity: 60_000 } }] },
          },
          didAuth: jwt,
        }),
      ),
    )
    const versions = results.map((r) => Number(r.body.wallet.registry.transactions[0].versionId)).sort((a, b) => a - b)
    expect(versions).toEqual([1, 2, 3, 4, 5, 6, 7, 8])
    const doc = (await h.service.resolveDid({ did: w.did })).didDocument!
    expect(doc.service).toHaveLength(8)
  })

  it('two service instances on one database: a change made by one is resolved by the other (cache invalidated by the head read)', async () => {
    const second = await IdentityService.create({
      storage: createSqliteStorage({ path: h.dbPath! }),
      masterKey: currentKey,
      tenants: staticTenants({ [TENANT_A]: 'tenant-a' }),
    })
    try {
      const w = (await h.request('POST', '/wallet', { json: {} })).body.wallet
      expect((await second.resolveDid({ did: w.did })).didDocument!.service).toBeUndefined()
      const jwt = await tokenFor(h, w.did)
      await h.request('POST', '/wallet/configure', {
        json: {
          wallet: { did: w.did },
          walletConfig: { txsInput: [{ service: { name: 'Late', value: 'https://late.example.com', validity: 60_000 } }] },
        },
        didAuth: jwt,
      })
      expect((await second.resolveDid({ did: w.did })).didDocument!.service![0].type).toBe('Late')
      expect((await second.resolveDid({ did: w.did })).didDocumentMetadata.versionId).toBe('1')

      // both instances (two SQLite connections, as two processes would have) change one identity at once: one chain, no fork
      const change = (i: number) => ({
        wallet: { did: w.did },
        walletConfig: { txsInput: [{ service: { name: `P${i}`, value: `https://p${i}.example.com`, validity: 60_000 } }] },
      })
      const results = await Promise.all([
        ...[0, 1, 2, 3].map((i) => h.service.configureWallet(change(i), { authorization: `Bearer ${TENANT_A}`, didAuth: jwt })),
        ...[4, 5, 6, 7].map((i) => second.configureWallet(change(i), { authorization: `Bearer ${TENANT_A}`, didAuth: jwt })),
      ])
      expect(results.map((r) => Number(r.wallet.registry!.transactions[0].versionId)).sort((a, b) => a - b)).toEqual([
        2, 3, 4, 5, 6, 7, 8, 9,
      ])
      const [mine, theirs] = await Promise.all([h.service.resolveDid({ did: w.did }), second.resolveDid({ did: w.did })])
      expect(mine.didDocument).toEqual(theirs.didDocument)
      expect(mine.didDocument!.service).toHaveLength(9)
    } finally {
      await second.close()
    }
  })
})
