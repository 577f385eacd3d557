import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectError, startHarness, type Harness } from '../helpers/harness.js'

let h: Harness
beforeAll(async () => {
  h = await startHarness()
})
afterAll(() => h.close())

describe('GET /1.0/identifiers/:did (DIF Universal Resolver format)', () => {
  it("resolves the service's DIDs without authentication", async () => {
    const w = (await h.request('POST', '/wallet', { json: {} })).body.wallet
    const res = await h.request('GET', `/1.0/identifiers/${encodeURIComponent(w.did)}`, { token: null })
    expect(res.status).toBe(200)
    expect(res.body['@context']).toBe('https://w3id.org/did-resolution/v1')
    expect(res.body.didDocument.id).toBe(w.did)
    expect(res.body.didDocument.verificationMethod[0].blockchainAccountId).toBe(`eip155:1337:${w.ethereumAddress}`)
    expect(res.body.didResolutionMetadata.contentType).toBe('application/did+ld+json')
    expect(res.body).toHaveProperty('didDocumentMetadata')
  })

  it('422 for an invalid DID or an unknown network', async () => {
    expectError(await h.request('GET', '/1.0/identifiers/not-a-did', { token: null }), 422, 'VALIDATION_ERROR')
    expectError(
      await h.request('GET', `/1.0/identifiers/did:ethr:goerli:0x70997970C51812dc3A010C7d01b50e0d17dc79C8`, { token: null }),
      422,
      'VALIDATION_ERROR',
    )
  })
})
