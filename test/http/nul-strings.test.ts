/**
 * U+0000 in any string of a request (a query filter, a body value or key) is a 422 naming where
 * it is, on every backend alike, with nothing written. PostgreSQL stores no U+0000 in `text` or
 * `jsonb`: before this rule, `GET /vaults?parentID=%00` was a 500 there (found by the listing
 * filters property test).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectError, HARNESS_STORAGES, snapshot, startHarness, walletWithToken, type Harness } from '../helpers/harness.js'

describe.each(HARNESS_STORAGES)('U+0000 in a request on %s', (_name, storage) => {
  let h: Harness
  let issuer: { did: string; jwt: string }
  beforeAll(async () => {
    h = await startHarness({ storage })
    issuer = await walletWithToken(h)
  }, 120_000)
  afterAll(() => h?.close())

  it('in a listing filter: 422 naming the parameter', async () => {
    for (const path of ['/vaults?parentID=%00&mpcVaultID=mv-a', '/wallets?alias=a%00b', '/roles?did=%00']) {
      const res = await h.request('GET', path, { didAuth: issuer.jwt })
      expectError(res, 422, 'VALIDATION_ERROR')
      expect(res.body.errorMessage).toMatch(/U\+0000 is not accepted in strings/)
    }
  })

  it('in a body value or key: 422 naming the path, nothing written', async () => {
    const before = await snapshot(h)
    const cases: Array<[string, string, unknown, string]> = [
      ['POST', '/wallet', { wallet: { alias: 'a\u0000b' } }, 'wallet.alias'],
      ['POST', '/claims/sign', { iss: issuer.did, format: 'JWT', claims: [{ payload: { 'k\u0000': 1 } }] }, 'claims.0.payload.k\\u0000'],
    ]
    for (const [method, path, json, at] of cases) {
      const res = await h.request(method, path, { json, didAuth: issuer.jwt })
      expectError(res, 422, 'VALIDATION_ERROR')
      expect(res.body.errorMessage).toBe(`invalid request: ${at}: U+0000 is not accepted in strings`)
    }
    expect(await snapshot(h)).toEqual(before)
  })
})
