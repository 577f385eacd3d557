import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectError, snapshot, startHarness, walletWithToken, type Harness } from '../helpers/harness.js'
import { alterPayload, mintToken, tamper } from '../helpers/tokens.js'

let h: Harness
let wallet: { did: string; _id: string; jwt: string }
beforeAll(async () => {
  h = await startHarness({ storage: 'memory' })
  wallet = await walletWithToken(h)
})
afterAll(() => h.close())

const rename = (didAuth: string, alias = 'x') =>
  h.request('POST', '/wallet/rename', { json: { wallets: [{ did: wallet.did, alias }] }, didAuth })

describe('x-did-auth verification', () => {
  it('accepts a hand-made token of the wallet DID without aud, and with the service audience', async () => {
    const other = await mintToken({ aud: null })
    // the token proves control of `other.did`, which does not control the wallet: FORBIDDEN, not UNAUTHENTICATED
    const res = await rename(other.jwt)
    expect(res.status).toBe(200)
    expect(res.body.errors[0].error.errorType).toBe('FORBIDDEN')
  })

  it.each([
    ['tampered signature', async () => tamper(wallet.jwt)],
    ['payload changed after signing', async () => alterPayload(wallet.jwt, (p) => (p.exp = (p.exp as number) + 3600))],
    ['iss claims the wallet DID but another key signed', async () => (await mintToken({ iss: wallet.did })).jwt],
    ['expired', async () => (await mintToken({ expIn: -120, iatIn: -600 })).jwt],
    ['no exp', async () => (await mintToken({ expIn: null })).jwt],
    ['iat in the future', async () => (await mintToken({ iatIn: 600 })).jwt],
    ['nbf in the future', async () => (await mintToken({ nbfIn: 600 })).jwt],
    ['wrong audience', async () => (await mintToken({ aud: 'some-other-service' })).jwt],
    ['not a JWT', async () => 'not-a-jwt'],
    [
      'alg none',
      async () =>
        `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${Buffer.from(JSON.stringify({ iss: wallet.did, exp: 9e9 })).toString('base64url')}.`,
    ],
    ['huge', async () => 'a'.repeat(10_000)],
    ['eleven tokens', async () => Array(11).fill(wallet.jwt).join(',')],
    ['one bad token among good ones', async () => `${wallet.jwt},${tamper(wallet.jwt)}`],
    ['unknown network', async () => (await mintToken({ iss: 'did:ethr:rinkeby:0x0000000000000000000000000000000000000001' })).jwt],
  ])('403 UNAUTHENTICATED and nothing written: %s', async (_case, make) => {
    const before = await snapshot(h)
    const res = await rename(await make())
    expectError(res, 403, 'UNAUTHENTICATED')
    expect(res.body.errorMessage).toMatch(/DID-auth/)
    expect(await snapshot(h)).toEqual(before)
    expect((await h.request('GET', `/wallets?did=${wallet.did}`)).body.wallets[0].alias).not.toBe('x')
  })

  it('allows 60 s of clock skew', async () => {
    const res = await rename((await mintToken({ iatIn: 30, signerKey: undefined })).jwt)
    expect(res.status).toBe(200)
  })
})
