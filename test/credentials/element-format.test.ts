/**
 * Every stored, fetched and verified credential carries `format` (issue 32 *Precisely*): the credential-format port's
 * name (`JSON-LD`, `JWT`, `SD-JWT`, `VC-JOSE`) on Store Verifiable Credentials' items, Fetch's items, Verify Claims'
 * per-credential results and a presentation's `vcs` results — through the router on loopback HTTP (SQLite file) and
 * the embedded API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startHarness, TENANT_A, walletWithToken, type Harness } from '../helpers/harness.js'

const FORMATS = [
  ['JSON-LD', 'jsonld'],
  ['JWT', 'jwt'],
  ['SD-JWT', 'sdjwt'],
  ['VC-JOSE', 'jwt'],
] as const

let h: Harness
let issuer: { did: string; jwt: string }
/** A did:key subject (an SD-JWT VC binds its holder's key). */
let subject: string
beforeAll(async () => {
  h = await startHarness({ storage: 'sqlite' })
  issuer = await walletWithToken(h)
  const made = await h.request('POST', '/wallet', { json: { walletConfig: { didMethod: 'key', keyType: 'P-256' } } })
  subject = made.body.wallet.did
})
afterAll(() => h.close())

/** A credential of `format` signed by the issuer, in its wire member. */
async function signed(format: string, n: number): Promise<Record<string, unknown>> {
  const claim = format === 'SD-JWT' ? { vct: 'https://example.com/vct', payload: { n } } : { payload: { n } }
  const res = await h.request('POST', '/claims/sign', {
    json: { iss: issuer.did, format, sub: subject, claims: [claim] },
    didAuth: issuer.jwt,
  })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  const { jsonld, jwt, sdjwt } = res.body.vcs[0]
  return jsonld !== undefined ? { jsonld } : jwt !== undefined ? { jwt } : { sdjwt }
}

describe.each(FORMATS)('%s', (format, member) => {
  it('Store, Fetch and Verify Claims items carry format, on the router and the embedded API', async () => {
    const item = await signed(format, 1)
    expect(Object.keys(item)).toEqual([member])
    const stored = await h.request('POST', '/claims', { json: { claims: [item] }, didAuth: issuer.jwt })
    expect(stored.status, JSON.stringify(stored.body)).toBe(200)
    expect(stored.body.vcs).toEqual([expect.objectContaining({ format, [member]: item[member] })])
    const mine = await h.request('GET', `/claims?issuer=${encodeURIComponent(issuer.did)}`, { didAuth: issuer.jwt })
    expect(mine.status, JSON.stringify(mine.body)).toBe(200)
    const found = mine.body.vcs.find((vc: { _id: string }) => vc._id === stored.body.vcs[0]._id)
    expect(found).toEqual(stored.body.vcs[0])
    const verified = await h.request('POST', '/claims/verify', { json: { vcs: [item] }, didAuth: issuer.jwt })
    expect(verified.status).toBe(200)
    expect(verified.body.vcs[0]).toMatchObject({ format, verified: true, [member]: item[member] })

    const api = h.service.as({ authorization: TENANT_A, didAuth: issuer.jwt })
    const embedded = await api.storeClaims({ claims: [(await signed(format, 2)) as never] })
    expect(embedded.vcs[0].format).toBe(format)
    const page = await api.getClaims({ issuer: issuer.did })
    expect(page.vcs.every((vc) => ['JSON-LD', 'JWT', 'SD-JWT', 'VC-JOSE'].includes(vc.format))).toBe(true)
    expect(page.vcs.find((vc) => vc._id === embedded.vcs[0]._id)?.format).toBe(format)
    expect((await api.verifyClaims({ vcs: [item as never] })).vcs[0].format).toBe(format)
  })
})

it('a presentation’s vcs results carry format', async () => {
  const holder = await walletWithToken(h)
  const jsonld = await signed('JSON-LD', 3)
  const jwt = await signed('JWT', 4)
  const presented = await h.request('POST', '/presentations/sign', {
    json: { holder: holder.did, format: 'JWT', challenge: 'c-1', vcs: [jsonld, jwt] },
    didAuth: holder.jwt,
  })
  expect(presented.status, JSON.stringify(presented.body)).toBe(200)
  const verified = await h.request('POST', '/presentations/verify', {
    json: { presentation: presented.body.presentation, challenge: 'c-1' },
    didAuth: holder.jwt,
  })
  expect(verified.status, JSON.stringify(verified.body)).toBe(200)
  expect(verified.body.vcs.map((vc: { format: string }) => vc.format)).toEqual(['JSON-LD', 'JWT'])
})
