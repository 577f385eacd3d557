/**
 * A lone surrogate (a UTF-16 code unit without its pair, which JSON can carry as `\udc00` but no
 * UTF-8 can hold) in any string of a request body is a 422 naming where it is, on every backend alike,
 * with nothing written — as U+0000 is (nul-strings.test.ts). PostgreSQL stores neither in `text`
 * or `jsonb`: before this rule, signing a claim whose `alias` held one was a 500 there (found by
 * the OpenAPI fuzz test, test/fuzz). A URL cannot carry one: its bytes are UTF-8, and the query
 * parser keeps a malformed escape as it came.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectError, HARNESS_STORAGES, snapshot, startHarness, walletWithToken, type Harness } from '../helpers/harness.js'

describe.each(HARNESS_STORAGES)('a lone surrogate in a request on %s', (_name, storage) => {
  let h: Harness
  let issuer: { did: string; jwt: string }
  beforeAll(async () => {
    h = await startHarness({ storage })
    issuer = await walletWithToken(h)
  }, 120_000)
  afterAll(() => h?.close())

  it('in a body value or key: 422 naming the path, nothing written', async () => {
    const before = await snapshot(h)
    const cases: Array<[string, string, unknown, string]> = [
      ['POST', '/wallet', { wallet: { alias: 'a\udc00b' } }, 'wallet.alias'],
      ['POST', '/claims/sign', { iss: issuer.did, format: 'JWT', claims: [{ alias: 'x\ud800', payload: { n: 1 } }] }, 'claims.0.alias'],
      ['POST', '/claims/sign', { iss: issuer.did, format: 'JWT', claims: [{ payload: { 'k\udfff': 1 } }] }, 'claims.0.payload.k\\udfff'],
      ['POST', '/vaults', { name: '\ud83d', hierarchy: 'BIP44' }, 'name'],
    ]
    for (const [method, path, json, at] of cases) {
      const res = await h.request(method, path, { json, didAuth: issuer.jwt })
      expectError(res, 422, 'VALIDATION_ERROR')
      expect(res.body.errorMessage).toBe(`invalid request: ${at}: a lone surrogate (ill-formed UTF-16) is not accepted in strings`)
    }
    expect(await snapshot(h)).toEqual(before)
  })

  it('a well-formed pair (an emoji) is a string like any other', async () => {
    const res = await h.request('POST', '/wallet', { json: { wallet: { alias: 'party 😀' } } })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.wallet.alias).toBe('party 😀')
  })
})
