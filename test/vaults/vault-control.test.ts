/**
 * Vault control vs DID control (DESIGN §4 "Wallet control"), through the real router.
 *
 * A vault holder moves the DID of one wallet (W1) to an outside key O. O then controls that
 * DID — and nothing else: its tokens must not configure, rename or delete the vault's other
 * wallets, create wallets in the vault or delete it. Each refusal is checked with every record
 * and the DID documents unchanged; then the vault holder is shown to keep every right.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { generatePrivateKey, LocalSigner } from '../../src/keys/secp256k1.js'
import { DEV_NETWORK, ethrDid } from '../../src/did/methods/ethr/ethr.js'
import { expectError, snapshot, startHarness, tokenFor, type Harness } from '../helpers/harness.js'
import { mintToken } from '../helpers/tokens.js'

for (const storage of ['memory', 'sqlite'] as const) {
  describe(`vault control is possession of a vault key (${storage})`, () => {
    let h: Harness
    let vault: { id: string; wallets: Array<{ did: string; _id: string }> }
    let w0: string, w1: string, w2: string
    let holder: string
    const outsideKey = generatePrivateKey()
    const outside = new LocalSigner(outsideKey)
    const outsideDid = ethrDid(DEV_NETWORK, outside.address)
    /** O's tokens: one naming the transferred DID, one naming O's own DID. */
    let byOutsider: string[]

    const resolve = async (did: string) =>
      (await h.request('GET', `/1.0/identifiers/${encodeURIComponent(did)}`, { token: null })).body.didDocument
    const documents = () => Promise.all([w0, w1, w2].map(resolve))
    const configure = (did: string, walletConfig: unknown, didAuth: string) =>
      h.request('POST', '/wallet/configure', { json: { wallet: { did }, walletConfig }, didAuth })

    beforeAll(async () => {
      h = await startHarness({ storage })
      vault = (await h.request('POST', '/vaults', { json: { name: 'v', hierarchy: 'BIP44' } })).body.vault
      w0 = vault.wallets[0].did
      holder = await tokenFor(h, w0)
      w1 = (await h.request('POST', `/vaults/${vault.id}/wallet`, { json: {}, didAuth: holder })).body.wallet.did
      w2 = (await h.request('POST', `/vaults/${vault.id}/wallet`, { json: {}, didAuth: holder })).body.wallet.did
      // The holder hands W1's DID to the outside key (the service signs with W1's own key, still its owner).
      const moved = await configure(w1, { txsInput: [{ newOwner: outsideDid }] }, holder)
      expect(moved.status).toBe(200)
      expect(moved.body.wallet.registry.errors).toEqual([])
      byOutsider = [(await mintToken({ iss: w1, signerKey: outsideKey })).jwt, (await mintToken({ signerKey: outsideKey })).jwt]
    })
    afterAll(() => h.close())

    it('the outside key authenticates and has DID control of W1: it may rename W1’s record', async () => {
      const res = await h.request('POST', '/wallet/rename', {
        json: { wallets: [{ did: w1, alias: 'moved-away' }] },
        didAuth: byOutsider[0],
      })
      expect(res.status).toBe(200)
      expect(res.body.errors).toEqual([])
      expect(res.body.wallets[0].alias).toBe('moved-away')
      // but the service holds no key of O, so it cannot change W1's document for it: 403 naming the owner
      const before = await snapshot(h)
      const denied = await configure(
        w1,
        { txsInput: [{ service: { name: 'X', value: 'https://x.example.com', validity: 60_000 } }] },
        byOutsider[0],
      )
      expectError(denied, 403, 'FORBIDDEN')
      expect(denied.body.errorMessage).toContain(outside.address)
      expect(await snapshot(h)).toEqual(before)
    })

    const refusals: Array<[string, (didAuth: string) => Promise<{ status: number; body: any }>, 'request' | 'item']> = [
      ['configure a sibling: owner change', (t) => configure(w2, { txsInput: [{ newOwner: outsideDid }] }, t), 'request'],
      [
        'configure a sibling: delegate',
        (t) => configure(w2, { txsInput: [{ delegate: { address: outside.address, validity: 60_000 } }] }, t),
        'request',
      ],
      [
        'configure a sibling: service',
        (t) => configure(w2, { txsInput: [{ service: { name: 'Evil', value: 'https://evil.example.com', validity: 60_000 } }] }, t),
        'request',
      ],
      ['configure the root wallet', (t) => configure(w0, { txsInput: [{ newOwner: outsideDid }] }, t), 'request'],
      ['create a wallet in the vault', (t) => h.request('POST', `/vaults/${vault.id}/wallet`, { json: {}, didAuth: t }), 'request'],
      ['delete the vault', (t) => h.request('DELETE', '/vaults', { json: { _id: vault.id }, didAuth: t }), 'request'],
      [
        'rename a sibling',
        (t) => h.request('POST', '/wallet/rename', { json: { wallets: [{ did: w2, alias: 'mine-now' }] }, didAuth: t }),
        'item',
      ],
      ['delete a sibling', (t) => h.request('DELETE', '/wallet', { json: { ids: [w2] }, didAuth: t }), 'item'],
    ]

    for (const [what, attempt, kind] of refusals) {
      it(`refuses the outside key: ${what} — nothing changes`, async () => {
        for (const token of [...byOutsider, byOutsider.join(',')]) {
          const before = await snapshot(h)
          const docs = await documents()
          const res = await attempt(token)
          if (kind === 'request') expectError(res, 403, 'FORBIDDEN')
          else {
            expect(res.status).toBe(200)
            expect(res.body.errors).toHaveLength(1)
            expect(res.body.errors[0].error).toMatchObject({ statusCode: 403, errorType: 'FORBIDDEN' })
          }
          expect(await snapshot(h)).toEqual(before)
          expect(await documents()).toEqual(docs)
        }
      })
    }

    it('a delegate key of a vault wallet authenticates for its DID but gives no vault control', async () => {
      const delegateKey = generatePrivateKey()
      const delegate = new LocalSigner(delegateKey)
      expect((await configure(w2, { txsInput: [{ delegate: { address: delegate.address, validity: 600_000 } }] }, holder)).status).toBe(200)
      const token = (await mintToken({ iss: w2, signerKey: delegateKey })).jwt
      const before = await snapshot(h)
      expectError(await h.request('POST', `/vaults/${vault.id}/wallet`, { json: {}, didAuth: token }), 403, 'FORBIDDEN')
      expectError(
        await configure(w0, { txsInput: [{ service: { name: 'D', value: 'https://d.example.com', validity: 60_000 } }] }, token),
        403,
        'FORBIDDEN',
      )
      expectError(await configure(w2, { txsInput: [{ newOwner: ethrDid(DEV_NETWORK, delegate.address) }] }, token), 403, 'FORBIDDEN')
      expect(await snapshot(h)).toEqual(before)
    })

    it('the vault holder keeps every right: configure, create, rename, delete wallets (W1 included), delete the vault', async () => {
      const configured = await configure(
        w2,
        { txsInput: [{ service: { name: 'Kept', value: 'https://kept.example.com', validity: 60_000 } }] },
        holder,
      )
      expect(configured.status).toBe(200)
      expect(configured.body.wallet.registry.errors).toEqual([])
      expect((await resolve(w2)).service.map((s: { type: string }) => s.type)).toContain('Kept')
      const created = await h.request('POST', `/vaults/${vault.id}/wallet`, { json: {}, didAuth: holder })
      expect(created.status).toBe(200)
      const renamed = await h.request('POST', '/wallet/rename', { json: { wallets: [{ did: w2, alias: 'kept' }] }, didAuth: holder })
      expect(renamed.body.errors).toEqual([])
      // W1's DID is O's now, but its record is still the vault's: the holder may delete it.
      const deleted = await h.request('DELETE', '/wallet', { json: { ids: [w1] }, didAuth: holder })
      expect(deleted.body).toEqual({ ids: [w1], errors: [] })
      const gone = await h.request('DELETE', '/vaults', { json: { _id: vault.id }, didAuth: holder })
      expect(gone.status).toBe(200)
      expect(gone.body.wallets.map((w: { did: string }) => w.did).sort()).toEqual([w0, w2, created.body.wallet.did].sort())
    })
  })
}
