/**
 * Inputs refused as a whole, before anything is written: names that could display as other
 * names (control characters, bidirectional overrides), and service names that cannot fit the
 * registry's bytes32 attribute name.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectError, snapshot, startHarness, walletWithToken, type Harness } from '../helpers/harness.js'

let h: Harness
beforeAll(async () => {
  h = await startHarness()
})
afterAll(() => h.close())

const UNSAFE = ['evil\u202Egnp.exe', 'a\u2066b', 'line\nbreak', 'nul\u0000', 'bell\u0007', 'del\u007F', 'c1\u0085', 'line\u2028sep']

describe('names and aliases', () => {
  it('an alias or vault name with control characters or bidi overrides is 422, nothing written', async () => {
    const w = await walletWithToken(h)
    for (const alias of UNSAFE) {
      const before = await snapshot(h)
      expectError(await h.request('POST', '/wallet', { json: { wallet: { alias } } }), 422, 'VALIDATION_ERROR')
      expectError(await h.request('POST', '/vaults', { json: { name: alias } }), 422, 'VALIDATION_ERROR')
      expectError(
        await h.request('POST', '/wallet/rename', { json: { wallets: [{ did: w.did, alias }] }, didAuth: w.jwt }),
        422,
        'VALIDATION_ERROR',
      )
      expect(await snapshot(h)).toEqual(before)
    }
  })

  it('ordinary Unicode names are fine (accents, CJK, emoji sequences with joiners)', async () => {
    for (const alias of ['Zoë', '財布', '👩‍💻 dev']) {
      const res = await h.request('POST', '/wallet', { json: { wallet: { alias } } })
      expect(res.status).toBe(200)
      expect(res.body.wallet.alias).toBe(alias)
    }
  })

  it('a description may hold line breaks and tabs, not bidi overrides', async () => {
    expect((await h.request('POST', '/vaults', { json: { name: 'd', description: 'line one\nline two\tend' } })).status).toBe(200)
    expectError(await h.request('POST', '/vaults', { json: { name: 'd', description: 'x\u202Ey' } }), 422, 'VALIDATION_ERROR')
  })
})

describe('service names must fit bytes32 after did/svc/', () => {
  const service = (name: string) => ({
    walletConfig: { txsInput: [{ service: { name, value: 'https://hub.example.com', validity: 60_000 } }] },
  })

  it('24 characters: 422 for the whole request, no wallet created', async () => {
    const before = await snapshot(h)
    const res = await h.request('POST', '/wallet', { json: service('A'.repeat(24)) })
    expectError(res, 422, 'VALIDATION_ERROR')
    expect(res.body.errorMessage).toContain('walletConfig.txsInput.0.service.name')
    expect(await snapshot(h)).toEqual(before)
    expectError(await h.request('POST', '/vaults', { json: { name: 'v', ...service('B'.repeat(24)) } }), 422, 'VALIDATION_ERROR')
    expect(await snapshot(h)).toEqual(before)
  })

  it('23 characters: recorded, and the document shows the service', async () => {
    const res = await h.request('POST', '/wallet', { json: service('C'.repeat(23)) })
    expect(res.status).toBe(200)
    expect(res.body.wallet.registry.errors).toEqual([])
    const doc = (await h.request('GET', `/1.0/identifiers/${res.body.wallet.did}`, { token: null })).body.didDocument
    expect(doc.service[0].type).toBe('C'.repeat(23))
  })
})
