import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { computeAddress } from 'ethers'
import { expectError, snapshot, startHarness, TENANT_B, tokenFor, walletWithToken, type Harness } from '../helpers/harness.js'
import { mintToken } from '../helpers/tokens.js'

let h: Harness
beforeAll(async () => {
  h = await startHarness({ storage: 'sqlite' })
})
afterAll(() => h.close())

describe('POST /wallet (Generate Identity Wallet)', () => {
  it('creates a key pair and DID with the documented fields only', async () => {
    const res = await h.request('POST', '/wallet', { json: { wallet: { alias: 'alice' } } })
    expect(res.status).toBe(200)
    const w = res.body.wallet
    expect(Object.keys(w).sort()).toEqual([
      '_id',
      'alias',
      'created',
      'did',
      'didMethod',
      'ethereumAddress',
      'publicKeyHex',
      'publicKeyJwk',
    ])
    expect(w.alias).toBe('alice')
    expect(w.did).toBe(`did:ethr:dev:${w.ethereumAddress}`)
    expect(computeAddress('0x' + w.publicKeyHex)).toBe(w.ethereumAddress)
    expect(Date.parse(w.created)).toBeGreaterThan(Date.now() - 60_000)
  })

  it('defaults: no body, alias = DID; walletConfig validated and accepted', async () => {
    const bare = await h.request('POST', '/wallet', { token: undefined })
    expect(bare.status).toBe(200)
    expect(bare.body.wallet.alias).toBe(bare.body.wallet.did)
    const cfg = await h.request('POST', '/wallet', {
      json: { walletConfig: { didMethod: 'ethr', apiUrl: 'local', txsInput: { delegate: { validity: 1000 } } } },
    })
    expect(cfg.status).toBe(200)
  })

  it('errors answered with the error body and nothing written', async () => {
    await h.request('POST', '/wallet', { json: { wallet: { alias: 'taken' } } })
    const before = await snapshot(h)
    expectError(await h.request('POST', '/wallet', { json: { wallet: { alias: 'taken' } } }), 422, 'CONFLICT')
    expectError(await h.request('POST', '/wallet', { json: { wallet: { alias: 1 } } }), 422, 'VALIDATION_ERROR')
    expectError(await h.request('POST', '/wallet', { json: { wallet: 'alice' } }), 422, 'VALIDATION_ERROR')
    expectError(await h.request('POST', '/wallet', { json: { wallet: {}, extra: true } }), 422, 'VALIDATION_ERROR')
    expectError(
      await h.request('POST', '/wallet', { json: { walletConfig: { apiUrl: 'https://evil.example.com' } } }),
      422,
      'VALIDATION_ERROR',
    )
    expectError(
      await h.request('POST', '/wallet', { json: { walletConfig: { txsInput: [{ delegate: { validity: -5 } }] } } }),
      422,
      'VALIDATION_ERROR',
    )
    expectError(
      await h.request('POST', '/wallet', { body: '{"wallet":', headers: { 'content-type': 'application/json' } }),
      422,
      'VALIDATION_ERROR',
    )
    expectError(
      await h.request('POST', '/wallet', { body: 'alias=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
      422,
      'VALIDATION_ERROR',
    )
    expectError(await h.request('POST', '/wallet', { json: {}, token: null }), 403, 'UNAUTHENTICATED')
    const big = await h.request('POST', '/wallet', { json: { wallet: { alias: 'x'.repeat(1_100_000) } } })
    expectError(big, 413, 'PAYLOAD_TOO_LARGE')
    expect(await snapshot(h)).toEqual(before)
  })
})

describe('GET /wallets and GET /wallet (Get Identity Wallets)', () => {
  it("lists the tenant's wallets, filtered by vaultId, did, alias; never privateKeyHex", async () => {
    const v = (await h.request('POST', '/vaults', { json: { name: 'listing' } })).body.vault
    const w = (await h.request('POST', '/wallet', { json: { wallet: { alias: 'listed' } } })).body.wallet
    const all = await h.request('GET', '/wallets')
    expect(all.status).toBe(200)
    expect(all.body.wallets.map((x: any) => x.did)).toEqual(expect.arrayContaining([w.did, v.wallets[0].did]))
    for (const x of all.body.wallets) expect(x).not.toHaveProperty('privateKeyHex')
    expect((await h.request('GET', `/wallets?vaultId=${v.id}`)).body.wallets.map((x: any) => x.did)).toEqual([v.wallets[0].did])
    expect((await h.request('GET', `/wallet?did=${w.did}`)).body.wallets.map((x: any) => x._id)).toEqual([w._id])
    expect((await h.request('GET', `/wallets?did=${w.did.toLowerCase()}`)).body.wallets.map((x: any) => x._id)).toEqual([w._id])
    expect((await h.request('GET', '/wallets?alias=listed')).body.wallets.map((x: any) => x._id)).toEqual([w._id])
    expect((await h.request('GET', '/wallets?alias=nobody')).body.wallets).toEqual([])
    const other = await h.request('GET', '/wallets', { token: TENANT_B })
    expect(other.body.wallets.find((x: any) => x.did === w.did)).toBeUndefined()
    expect((await h.request('GET', `/wallets?did=${w.did}`, { token: TENANT_B })).body.wallets).toEqual([])
  })

  it('422 for unknown or malformed filters, 403 without token', async () => {
    expectError(await h.request('GET', '/wallets?foo=1'), 422, 'VALIDATION_ERROR')
    expectError(await h.request('GET', '/wallets?did=not-a-did'), 422, 'VALIDATION_ERROR')
    expectError(await h.request('GET', '/wallets', { token: null }), 403, 'UNAUTHENTICATED')
  })
})

describe('POST /wallet/rename (Rename Identity Wallet)', () => {
  it('renames controlled wallets and reports the others in errors, in one 200', async () => {
    const a = await walletWithToken(h)
    const b = await walletWithToken(h)
    const res = await h.request('POST', '/wallet/rename', {
      json: {
        wallets: [
          { did: a.did, alias: 'renamed-a' },
          { did: b.did, alias: 'renamed-b' },
          { did: 'did:ethr:dev:0x0000000000000000000000000000000000000001', alias: 'ghost' },
        ],
      },
      didAuth: a.jwt,
    })
    expect(res.status).toBe(200)
    expect(res.body.wallets).toHaveLength(1)
    expect(res.body.wallets[0]).toMatchObject({ did: a.did, alias: 'renamed-a', _id: a._id })
    expect(res.body.errors).toHaveLength(2)
    expect(res.body.errors[0].wallet).toEqual({ did: b.did, alias: 'renamed-b' })
    expect(res.body.errors[0].error).toMatchObject({ statusCode: 403, errorType: 'FORBIDDEN' })
    expect(res.body.errors[1].error).toMatchObject({ statusCode: 422, errorType: 'NOT_FOUND' })
    expect((await h.request('GET', `/wallets?did=${b.did}`)).body.wallets[0].alias).toBe(b.did)
    // several tokens, comma-separated, prove control of several DIDs
    const both = await h.request('POST', '/wallet/rename', {
      json: {
        wallets: [
          { did: a.did, alias: 'a2' },
          { did: b.did, alias: 'b2' },
        ],
      },
      didAuth: `${a.jwt}, ${b.jwt}`,
    })
    expect(both.body.errors).toEqual([])
    expect(both.body.wallets.map((w: any) => w.alias)).toEqual(['a2', 'b2'])
  })

  it('a wallet in the same vault proves control of its siblings; duplicate alias is a per-item CONFLICT', async () => {
    const v = (await h.request('POST', '/vaults', { json: { name: 'sib', hierarchy: 'BIP44' } })).body.vault
    const jwt = await tokenFor(h, v.wallets[0].did)
    const second = (await h.request('POST', `/vaults/${v.id}/wallet`, { json: {}, didAuth: jwt })).body.wallet
    const res = await h.request('POST', '/wallet/rename', {
      json: {
        wallets: [
          { did: second.did, alias: 'sibling' },
          { did: v.wallets[0].did, alias: 'sibling' },
        ],
      },
      didAuth: jwt,
    })
    expect(res.status).toBe(200)
    expect(res.body.wallets.map((w: any) => w.alias)).toEqual(['sibling'])
    expect(res.body.errors[0].error.errorType).toBe('CONFLICT')
  })

  it('errors: 403 without/expired DID-auth, 422 bad body or over the batch limit; nothing written', async () => {
    const a = await walletWithToken(h)
    const expired = await mintToken({ expIn: -3600, iatIn: -7200 })
    const before = await snapshot(h)
    const list = await h.request('GET', `/wallets?did=${a.did}`)
    expectError(await h.request('POST', '/wallet/rename', { json: { wallets: [{ did: a.did, alias: 'z' }] } }), 403, 'UNAUTHENTICATED')
    expectError(
      await h.request('POST', '/wallet/rename', { json: { wallets: [{ did: a.did, alias: 'z' }] }, didAuth: expired.jwt }),
      403,
      'UNAUTHENTICATED',
    )
    expectError(await h.request('POST', '/wallet/rename', { json: { wallets: [] }, didAuth: a.jwt }), 422, 'VALIDATION_ERROR')
    expectError(await h.request('POST', '/wallet/rename', { json: { wallets: [{ did: a.did }] }, didAuth: a.jwt }), 422, 'VALIDATION_ERROR')
    expectError(
      await h.request('POST', '/wallet/rename', { json: { wallets: { did: a.did, alias: 'z' } }, didAuth: a.jwt }),
      422,
      'VALIDATION_ERROR',
    )
    const tooMany = Array.from({ length: 1001 }, (_, i) => ({ did: a.did, alias: `z${i}` }))
    expectError(await h.request('POST', '/wallet/rename', { json: { wallets: tooMany }, didAuth: a.jwt }), 422, 'VALIDATION_ERROR')
    // another tenant cannot rename it even with the right DID-auth token: it is not found there
    const foreign = await h.request('POST', '/wallet/rename', {
      json: { wallets: [{ did: a.did, alias: 'z' }] },
      didAuth: a.jwt,
      token: TENANT_B,
    })
    expect(foreign.status).toBe(200)
    expect(foreign.body.errors[0].error.errorType).toBe('NOT_FOUND')
    expect(await snapshot(h)).toEqual(before)
    // Status and body: the Date header may differ between the two reads.
    const again = await h.request('GET', `/wallets?did=${a.did}`)
    expect({ status: again.status, body: again.body }).toEqual({ status: list.status, body: list.body })
  })
})

describe('DELETE /wallet (Delete Identity Wallet)', () => {
  it('deletes controlled wallets by _id or DID, reports the others; repeating is safe', async () => {
    const a = await walletWithToken(h)
    const b = await walletWithToken(h)
    const c = await walletWithToken(h)
    const res = await h.request('DELETE', '/wallet', { json: { ids: [a._id, b.did, 'missing-id'] }, didAuth: `${a.jwt},${c.jwt}` })
    expect(res.status).toBe(200)
    expect(res.body.ids).toEqual([a.did])
    expect(res.body.errors.map((e: any) => [e.did, e.error.errorType])).toEqual([
      [b.did, 'FORBIDDEN'],
      ['missing-id', 'NOT_FOUND'],
    ])
    expect((await h.request('GET', `/wallets?did=${a.did}`)).body.wallets).toEqual([])
    expect((await h.request('GET', `/wallets?did=${b.did}`)).body.wallets).toHaveLength(1)
    const again = await h.request('DELETE', '/wallet', { json: { ids: [a._id, c._id] }, didAuth: c.jwt })
    expect(again.body.ids).toEqual([c.did])
    expect(again.body.errors.map((e: any) => e.error.errorType)).toEqual(['NOT_FOUND'])
  })

  it('errors: 403 without DID-auth, 422 bad body; other tenants see NOT_FOUND; nothing written', async () => {
    const a = await walletWithToken(h)
    const before = await snapshot(h)
    expectError(await h.request('DELETE', '/wallet', { json: { ids: [a._id] } }), 403, 'UNAUTHENTICATED')
    expectError(await h.request('DELETE', '/wallet', { json: { ids: a._id }, didAuth: a.jwt }), 422, 'VALIDATION_ERROR')
    expectError(await h.request('DELETE', '/wallet', { json: {}, didAuth: a.jwt }), 422, 'VALIDATION_ERROR')
    expectError(await h.request('DELETE', '/wallet', { json: { ids: [a._id], force: true }, didAuth: a.jwt }), 422, 'VALIDATION_ERROR')
    const foreign = await h.request('DELETE', '/wallet', { json: { ids: [a._id, a.did] }, didAuth: a.jwt, token: TENANT_B })
    expect(foreign.status).toBe(200)
    expect(foreign.body.ids).toEqual([])
    expect(foreign.body.errors.map((e: any) => e.error.errorType)).toEqual(['NOT_FOUND', 'NOT_FOUND'])
    expect(await snapshot(h)).toEqual(before)
  })
})
