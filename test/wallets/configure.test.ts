/**
 * walletConfig through the embedded registry over HTTP: Generate Identity Wallet, vaults
 * (template and override), Configure Identity Wallet, ownership after `newOwner`, DID-auth by
 * delegates, and the refusals (403, 422 with nothing written, no request to a caller-named host).
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { generatePrivateKey, LocalSigner } from '../../src/keys/secp256k1.js'
import { expectError, snapshot, startHarness, TENANT_B, tokenFor, walletWithToken, type Harness } from '../helpers/harness.js'
import { mintToken } from '../helpers/tokens.js'

for (const storage of ['memory', 'sqlite'] as const) {
  describe(`walletConfig and Configure Identity Wallet (${storage})`, () => {
    let h: Harness
    beforeAll(async () => {
      h = await startHarness({ storage })
    })
    afterAll(() => h.close())

    const resolve = async (did: string) => (await h.request('GET', `/1.0/identifiers/${encodeURIComponent(did)}`, { token: null })).body
    const configure = (did: string, walletConfig: unknown, didAuth?: string, token?: string) =>
      h.request('POST', '/wallet/configure', { json: { wallet: { did }, walletConfig }, didAuth, token })

    it('a delegate address whose mixed case is not its EIP-55 checksum is a 422 item error, not an internal error', async () => {
      const w = await walletWithToken(h)
      // 0x70997970C51812dc3A010C7d01b50e0d17dc79C8 with its last letter in the wrong case.
      const miscased = '0x70997970C51812dc3A010C7d01b50e0d17dc79c8'
      const res = await configure(w.did, { txsInput: [{ delegate: { address: miscased, validity: 1_000 } }] }, w.jwt)
      expect(res.status).toBe(200)
      expect(res.body.wallet.registry.errors).toMatchObject([{ index: 0, error: { statusCode: 422, errorType: 'VALIDATION_ERROR' } }])
    })

    it('Generate Identity Wallet applies txsInput in order: service, generated delegate, given delegate', async () => {
      const given = new LocalSigner(generatePrivateKey()).address
      const res = await h.request('POST', '/wallet', {
        json: {
          walletConfig: {
            didMethod: 'ethr',
            apiUrl: 'local',
            txsInput: [
              { service: { name: 'HubService', value: 'https://hub.example.com/inbox', validity: 86_400_000 } },
              { delegate: { validity: 1_500 } },
              { delegate: { address: given.toLowerCase(), validity: 3_600_000 } },
            ],
          },
        },
      })
      expect(res.status).toBe(200)
      const w = res.body.wallet
      expect(w.registry.apiUrl).toBe('local')
      expect(w.registry.errors).toEqual([])
      expect(w.registry.transactions.map((t: any) => [t.index, t.op, t.versionId])).toEqual([
        [0, 'setAttribute', '1'],
        [1, 'addDelegate', '2'],
        [2, 'addDelegate', '3'],
      ])
      const generated = w.registry.transactions[1].delegate
      expect(Object.keys(generated).sort()).toEqual(['address', 'delegateType', 'publicKeyHex', 'validTo'])
      // 1,500 ms rounds up to 2 s
      expect(generated.validTo - Math.floor(Date.now() / 1000)).toBeLessThanOrEqual(2)
      const doc = (await resolve(w.did)).didDocument
      expect(doc.service).toEqual([{ id: `${w.did}#service-1`, type: 'HubService', serviceEndpoint: 'https://hub.example.com/inbox' }])
      expect(doc.verificationMethod.map((vm: any) => vm.blockchainAccountId?.split(':')[2])).toEqual([
        w.ethereumAddress,
        generated.address,
        given,
      ])
      expect(doc.assertionMethod).toEqual([`${w.did}#controller`, `${w.did}#delegate-1`, `${w.did}#delegate-2`])
      const meta = (await resolve(w.did)).didDocumentMetadata
      expect(meta.versionId).toBe('3')
      expect(typeof meta.updated).toBe('string')
    })

    it("Configure Identity Wallet adds a service; a veriKey delegate's token authenticates but gives no owner rights", async () => {
      const w = await walletWithToken(h)
      const delegateKey = generatePrivateKey()
      const delegate = new LocalSigner(delegateKey).address
      // before the delegation, the delegate's token for the wallet DID is rejected
      const early = await mintToken({ iss: w.did, signerKey: delegateKey })
      expectError(await configure(w.did, { txsInput: [] }, early.jwt), 403, 'UNAUTHENTICATED')

      const res = await configure(
        w.did,
        {
          txsInput: [
            { delegate: { address: delegate, validity: 600_000 } },
            { service: { name: 'Messaging', value: 'https://m.example.com', validity: 600_000 } },
          ],
        },
        w.jwt,
      )
      expect(res.status).toBe(200)
      expect(res.body.wallet.did).toBe(w.did)
      expect(res.body.wallet._id).toBe(w._id)
      expect(res.body.wallet.registry.transactions).toHaveLength(2)
      expect(res.body.wallet).not.toHaveProperty('privateKeyHex')

      // the delegate's token now authenticates (no 403 UNAUTHENTICATED) but a delegate may not change the document
      const byDelegate = await mintToken({ iss: w.did, signerKey: delegateKey })
      const before = await snapshot(h)
      const denied = await configure(w.did, { txsInput: [{ newOwner: `did:ethr:dev:${delegate}` }] }, byDelegate.jwt)
      expectError(denied, 403, 'FORBIDDEN')
      expect(await snapshot(h)).toEqual(before)
      expect((await resolve(w.did)).didDocument.verificationMethod[0].blockchainAccountId).toBe(`eip155:1337:${w.did.split(':').pop()}`)
      // nor rename or delete the wallet
      const renamed = await h.request('POST', '/wallet/rename', {
        json: { wallets: [{ did: w.did, alias: 'by-delegate' }] },
        didAuth: byDelegate.jwt,
      })
      expect(renamed.body.errors[0].error.errorType).toBe('FORBIDDEN')
      const deleted = await h.request('DELETE', '/wallet', { json: { ids: [w._id] }, didAuth: byDelegate.jwt })
      expect(deleted.body.errors[0].error.errorType).toBe('FORBIDDEN')
      // the owner still may
      const again = await configure(
        w.did,
        { txsInput: { service: { name: 'Second', value: 'https://s.example.com', validity: 60_000 } } },
        w.jwt,
      )
      expect(again.status).toBe(200)
      expect((await resolve(w.did)).didDocument.service.map((s: any) => s.type)).toEqual(['Messaging', 'Second'])
    })

    it('newOwner: the new owner DID controls the document, the old key no longer does', async () => {
      const a = await walletWithToken(h)
      const b = await walletWithToken(h)
      const res = await configure(a.did, { txsInput: [{ newOwner: b.did }] }, a.jwt)
      expect(res.status).toBe(200)
      expect(res.body.wallet.registry.transactions[0].op).toBe('changeOwner')
      const doc = (await resolve(a.did)).didDocument
      expect(doc.verificationMethod[0]).toMatchObject({
        id: `${a.did}#controller`,
        blockchainAccountId: `eip155:1337:${b.did.split(':').pop()}`,
      })

      // the old key's token no longer verifies for a.did
      expectError(await configure(a.did, { txsInput: [] }, a.jwt), 403, 'UNAUTHENTICATED')
      // and the service no longer issues tokens for a.did signed by a's key
      expectError(await h.request('POST', '/did-auth-jwt', { json: { iss: a.did } }), 422, 'VALIDATION_ERROR')
      // the new owner's token proves control of a.did, and the service signs a's changes with b's key
      const byOwner = await configure(
        a.did,
        { txsInput: [{ service: { name: 'Owned', value: 'https://o.example.com', validity: 60_000 } }] },
        b.jwt,
      )
      expect(byOwner.status).toBe(200)
      expect(byOwner.body.wallet.registry.errors).toEqual([])
      expect((await resolve(a.did)).didDocument.service[0].type).toBe('Owned')
      // and it can hand the document back
      expect((await configure(a.did, { txsInput: [{ newOwner: a.did }] }, b.jwt)).status).toBe(200)
      expect((await configure(a.did, { txsInput: [] }, await tokenFor(h, a.did))).status).toBe(200)
    })

    it('an owner key the service does not hold: the item fails, what came before stays applied and reported', async () => {
      const a = await walletWithToken(h)
      const externalKey = generatePrivateKey()
      const external = new LocalSigner(externalKey)
      const res = await h.request('POST', '/wallet', {
        json: {
          walletConfig: {
            txsInput: [
              { service: { name: 'First', value: 'https://1.example.com', validity: 60_000 } },
              { newOwner: `did:ethr:dev:${external.address}` },
              { delegate: { validity: 60_000 } },
              { service: { name: 'Never', value: 'https://n.example.com', validity: 60_000 } },
            ],
          },
        },
      })
      expect(res.status).toBe(200)
      const w = res.body.wallet
      expect(w.registry.transactions.map((t: any) => t.index)).toEqual([0, 1])
      expect(w.registry.errors).toEqual([{ index: 2, error: expect.objectContaining({ statusCode: 403, errorType: 'FORBIDDEN' }) }])
      const doc = (await resolve(w.did)).didDocument
      expect(doc.service.map((s: any) => s.type)).toEqual(['First'])
      expect(doc.verificationMethod).toHaveLength(1)
      // the failed generated delegate left no key behind
      expect(await h.storage.collection('delegateKeys').count({ field: 'walletId', op: 'eq', value: w._id })).toBe(0)
      // the external owner's own token now proves control of the DID; the service cannot sign for it: 403 naming the owner, nothing applied
      const ext = await mintToken({ iss: `did:ethr:dev:${external.address}`, signerKey: externalKey })
      const before = await snapshot(h)
      const res2 = await configure(w.did, { txsInput: [{ delegate: { validity: 1000 } }] }, ext.jwt)
      expectError(res2, 403, 'FORBIDDEN')
      expect(res2.body.errorMessage).toContain(external.address)
      expect(await snapshot(h)).toEqual(before)
      expectError(await configure(w.did, { txsInput: [] }, a.jwt), 403, 'FORBIDDEN')
    })

    it('vaults: the walletConfig template applies to the first wallet and to new vault wallets, a body overrides it', async () => {
      const template = { txsInput: [{ service: { name: 'Vault', value: 'https://v.example.com', validity: 60_000 } }] }
      const v = (await h.request('POST', '/vaults', { json: { name: 'tpl', hierarchy: 'BIP44', walletConfig: template } })).body.vault
      expect(v.wallets[0].registry.transactions).toHaveLength(1)
      expect((await resolve(v.wallets[0].did)).didDocument.service[0].type).toBe('Vault')
      const jwt = await tokenFor(h, v.wallets[0].did)
      const second = (await h.request('POST', `/vaults/${v.id}/wallet`, { json: {}, didAuth: jwt })).body.wallet
      expect((await resolve(second.did)).didDocument.service[0].type).toBe('Vault')
      const third = (
        await h.request('POST', `/vaults/${v.id}/wallet`, {
          json: { walletConfig: { txsInput: [{ service: { name: 'Own', value: 'https://own.example.com', validity: 60_000 } }] } },
          didAuth: jwt,
        })
      ).body.wallet
      expect((await resolve(third.did)).didDocument.service.map((s: any) => s.type)).toEqual(['Own'])
      // a vault member may configure another member's wallet (same vault)
      const res = await configure(third.did, { txsInput: [{ delegate: { validity: 60_000 } }] }, jwt)
      expect(res.status).toBe(200)
      expect(res.body.wallet.registry.transactions[0].delegate.address).toMatch(/^0x[0-9a-fA-F]{40}$/)
      // deleting the wallet removes its delegate key
      expect(await h.storage.collection('delegateKeys').count({ field: 'walletId', op: 'eq', value: third._id })).toBe(1)
      await h.request('DELETE', '/wallet', { json: { ids: [third.did] }, didAuth: jwt })
      expect(await h.storage.collection('delegateKeys').count({ field: 'walletId', op: 'eq', value: third._id })).toBe(0)
    })

    it('refusals: no DID-auth 403, another wallet 403, another tenant NOT_FOUND, bad input 422 — nothing written', async () => {
      const w = await walletWithToken(h)
      const other = await walletWithToken(h)
      const foreign = await walletWithToken(h, TENANT_B)
      const ok = { txsInput: [{ service: { name: 'S', value: 'https://s.example.com', validity: 1000 } }] }
      const before = await snapshot(h)
      expectError(await configure(w.did, ok), 403, 'UNAUTHENTICATED')
      expectError(await configure(w.did, ok, w.jwt, null as never), 403, 'UNAUTHENTICATED')
      expectError(await configure(w.did, ok, other.jwt), 403, 'FORBIDDEN')
      expectError(await configure(w.did, ok, foreign.jwt, TENANT_B), 422, 'NOT_FOUND')
      expectError(await configure(foreign.did, ok, w.jwt), 422, 'NOT_FOUND')
      for (const bad of [
        { didMethod: 'web' },
        { apiUrl: 'http://169.254.169.254/latest' },
        { txsInput: [{ service: { name: 'a-name-with-dashes', value: 'https://s.example.com', validity: 1000 } }] },
        { txsInput: [{ service: { name: 'x'.repeat(25), value: 'https://s.example.com', validity: 1000 } }] },
        { txsInput: [{ service: { name: 'S', value: 'ftp://s.example.com', validity: 1000 } }] },
        { txsInput: [{ delegate: { validity: 0 } }] },
        { txsInput: [{ newOwner: 'did:ethr:goerli:0x70997970C51812dc3A010C7d01b50e0d17dc79C8' }] },
        { txsInput: [{ newOwner: 'did:web:example.com' }] },
        { txsInput: [{ ...ok.txsInput[0], newOwner: other.did }] },
        { txsInput: [ok.txsInput[0], { bogus: true }] },
      ]) {
        expectError(await configure(w.did, bad, w.jwt), 422, 'VALIDATION_ERROR')
      }
      expectError(
        await h.request('POST', '/wallet/configure', { json: { wallet: { did: w.did } }, didAuth: w.jwt }),
        422,
        'VALIDATION_ERROR',
      )
      expectError(await h.request('POST', '/wallet/configure', { json: { walletConfig: ok }, didAuth: w.jwt }), 422, 'VALIDATION_ERROR')
      expectError(await configure('did:ethr:dev:0x70997970C51812dc3A010C7d01b50e0d17dc79C8', ok, w.jwt), 422, 'NOT_FOUND')
      expect(await snapshot(h)).toEqual(before)
    })

    it('a caller-named apiUrl is 422 and no request reaches it, on every operation that takes a walletConfig', async () => {
      let hits = 0
      const trap: Server = createServer((_req, res) => {
        hits++
        res.end('{}')
      })
      await new Promise<void>((r) => trap.listen(0, '127.0.0.1', () => r()))
      const apiUrl = `http://127.0.0.1:${(trap.address() as AddressInfo).port}/`
      try {
        const w = await walletWithToken(h)
        const v = (await h.request('POST', '/vaults', { json: { name: 'trap', hierarchy: 'BIP44' } })).body.vault
        const jwt = await tokenFor(h, v.wallets[0].did)
        const before = await snapshot(h)
        const walletConfig = { apiUrl, txsInput: [{ delegate: { validity: 1000 } }] }
        expectError(await h.request('POST', '/wallet', { json: { walletConfig } }), 422, 'VALIDATION_ERROR')
        expectError(await h.request('POST', '/vaults', { json: { name: 'x', walletConfig } }), 422, 'VALIDATION_ERROR')
        expectError(await h.request('POST', `/vaults/${v.id}/wallet`, { json: { walletConfig }, didAuth: jwt }), 422, 'VALIDATION_ERROR')
        expectError(await configure(w.did, walletConfig, w.jwt), 422, 'VALIDATION_ERROR')
        expect(await snapshot(h)).toEqual(before)
        expect(hits).toBe(0)
      } finally {
        await new Promise<void>((r) => trap.close(() => r()))
      }
    })

    it('the SDK: service.as(auth).configureWallet and the resolver show the same', async () => {
      const w = await walletWithToken(h)
      const bound = h.service.as({ authorization: 'Bearer token-tenant-a-0123456789', didAuth: w.jwt })
      const res = await bound.configureWallet({
        wallet: { did: w.did },
        walletConfig: { txsInput: [{ service: { name: 'Sdk', value: 'https://sdk.example.com', validity: 60_000 } }] },
      })
      expect(res.wallet.registry!.transactions[0].op).toBe('setAttribute')
      expect((await h.service.resolveDid({ did: w.did })).didDocument!.service![0].type).toBe('Sdk')
    })
  })
}
