/**
 * A deleted wallet's keys go with it: the key port's sealed records of a generated wallet, of its
 * generated delegate keys, of a role's wallet and of every wallet of a deleted vault (NONE and
 * BIP44) are destroyed in the deleting transaction, on a real SQLite file; another tenant's keys
 * and the keys of wallets still there stay.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SEALED_KEYS, type SealedKeyRecord } from '../../src/keys/backends/sealed/index.js'
import type { WalletRecord } from '../../src/wallets/records.js'
import { startHarness, tokenFor, TENANT_B, type Harness } from '../helpers/harness.js'

let h: Harness
beforeAll(async () => {
  h = await startHarness({ storage: 'sqlite' })
})
afterAll(() => h.close())

const keyIds = async (): Promise<string[]> =>
  (await h.storage.collection<SealedKeyRecord>(SEALED_KEYS.name).find({ and: [] }, { limit: 1000 })).items.map((k) => k.thumbprint)
const walletOf = async (did: string): Promise<WalletRecord> =>
  (await h.storage.collection<WalletRecord>('wallets').findOne({ field: 'did', op: 'eq', value: did }))!
const thumbprintOf = (w: WalletRecord) => w.keyRef!.slice('sealed:'.length)

describe('deleting what owns a key destroys the key', () => {
  it('a generated wallet with delegate keys: its key and its delegates’ keys are gone, the others stay', async () => {
    const delegate = { delegate: { validity: 3_600_000 } }
    const kept = (await h.request('POST', '/wallet', { json: {} })).body.wallet
    const other = (await h.request('POST', '/wallet', { json: {}, token: TENANT_B })).body.wallet
    const created = await h.request('POST', '/wallet', { json: { walletConfig: { txsInput: [delegate, delegate] } } })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    const { wallet } = created.body
    const before = await keyIds()
    expect(before).toHaveLength(5) // three wallets, two delegates
    const jwt = await tokenFor(h, wallet.did)
    expect((await h.request('DELETE', '/wallet', { json: { ids: [wallet._id] }, didAuth: jwt })).status).toBe(200)
    const after = await keyIds()
    expect(after).toHaveLength(2)
    expect(after).toContain(thumbprintOf(await walletOf(kept.did)))
    const otherRecord = await h.storage.collection<WalletRecord>('wallets').findOne({ field: 'did', op: 'eq', value: other.did })
    expect(after).toContain(thumbprintOf(otherRecord!))
  })

  it('a vault (NONE and BIP44, with a second wallet) and a role: their wallets’ keys are gone', async () => {
    const before = new Set(await keyIds())
    for (const hierarchy of ['NONE', 'BIP44']) {
      const vault = (await h.request('POST', '/vaults', { json: { name: `v-${hierarchy}`, hierarchy } })).body.vault
      const root = vault.wallets[0].did
      const jwt = await tokenFor(h, root)
      if (hierarchy === 'BIP44') {
        const added = await h.request('POST', `/vaults/${vault.id}/wallet`, { json: {}, didAuth: jwt })
        expect(added.status, JSON.stringify(added.body)).toBe(200)
      }
      expect((await keyIds()).length).toBeGreaterThan(before.size)
      const deleted = await h.request('DELETE', '/vaults', { json: { _id: vault.id }, didAuth: jwt })
      expect(deleted.status, JSON.stringify(deleted.body)).toBe(200)
      expect(new Set(await keyIds())).toEqual(before)
    }
    const creator = (await h.request('POST', '/wallet', { json: {} })).body.wallet
    const creatorJwt = await tokenFor(h, creator.did)
    const withCreator = new Set(await keyIds())
    const role = (await h.request('POST', '/roles', { json: { permissions: ['Read'] }, didAuth: creatorJwt })).body.role
    expect((await keyIds()).length).toBe(withCreator.size + 1)
    const removed = await h.request('DELETE', '/roles', { json: { dids: [role.did] }, didAuth: creatorJwt })
    expect(removed.status, JSON.stringify(removed.body)).toBe(200)
    expect(new Set(await keyIds())).toEqual(withCreator)
  })
})
