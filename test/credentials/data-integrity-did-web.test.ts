/**
 * End to end with another verifier: our own did:web wallets (P-256 and Ed25519) sign a JSON-LD credential (data model
 * 2.0) through the router on loopback HTTP (SQLite file) with their default Data Integrity cryptosuite, and
 * @digitalbazaar/vc verifies it with a document loader that answers the issuer's DID, and its `#key-0` method, from
 * the did:web document OUR server serves (`GET /dids/:walletId/did.json`, fetched by the test over loopback, no
 * auth): our Multikey document works with their verifier. A changed claim does not verify.
 *
 * The digitalbazaar packages are ESM-only: loaded with `import()` of a specifier held in a variable.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { documentLoader as contexts } from '../../src/proofs/jsonld/document-loader.js'
import { startHarness, type Harness } from '../helpers/harness.js'

const importEsm = (specifier: string): Promise<any> => import(specifier)
const V2 = 'https://www.w3.org/ns/credentials/v2'
const PUBLIC_URL = 'https://vault.example.com/id'

let h: Harness
beforeAll(async () => {
  h = await startHarness({ storage: 'sqlite', service: { publicUrl: PUBLIC_URL } })
})
afterAll(() => h.close())

describe('a did:web issuer of ours, verified by @digitalbazaar/vc against our served did.json', () => {
  it.each([
    ['P-256', 'ecdsa-rdfc-2019'],
    ['Ed25519', 'eddsa-rdfc-2022'],
  ])('%s wallet, %s', async (keyType, cryptosuite) => {
    const [di, vcLib, suiteLib] = await Promise.all(
      ['@digitalbazaar/data-integrity', '@digitalbazaar/vc', `@digitalbazaar/${cryptosuite}-cryptosuite`].map(importEsm),
    )
    const made = await h.request('POST', '/wallet', { json: { walletConfig: { didMethod: 'web', keyType } } })
    expect(made.status, JSON.stringify(made.body)).toBe(200)
    const did: string = made.body.wallet.did
    expect(did).toMatch(/^did:web:vault\.example\.com:id:dids:[^:]+$/)
    const jwt = (await h.request('POST', '/did-auth-jwt', { json: { iss: did } })).body.jwt
    const signed = await h.request('POST', '/claims/sign', {
      json: { iss: did, context: [V2], sub: 'did:example:holder', claims: [{ payload: { name: 'Alice' } }] },
      didAuth: jwt,
    })
    expect(signed.status, JSON.stringify(signed.body)).toBe(200)
    const credential = signed.body.vcs[0].jsonld
    expect(credential.proof).toMatchObject({ type: 'DataIntegrityProof', cryptosuite, verificationMethod: `${did}#key-0` })

    // The document as any did:web resolver gets it: from our server, without credentials.
    const served = await h.request('GET', `/dids/${did.split(':').pop()}/did.json`, { token: null })
    expect(served.status).toBe(200)
    const didDocument = served.body
    expect(didDocument.id).toBe(did)
    const method = didDocument.verificationMethod.find((m: { id: string }) => m.id === `${did}#key-0`)
    expect(method).toMatchObject({ type: 'Multikey', controller: did, publicKeyMultibase: expect.stringMatching(/^z/) })
    expect(didDocument.assertionMethod).toContain(`${did}#key-0`)

    const documentLoader = async (url: string) => {
      if (!url.startsWith('did:')) return contexts(url)
      const [base, fragment] = url.split('#')
      if (base !== did) throw new Error(`not this test's DID: ${url}`)
      const document = fragment === undefined ? didDocument : { '@context': didDocument['@context'], ...method }
      return { contextUrl: null, documentUrl: url, document }
    }
    const suite = [new di.DataIntegrityProof({ cryptosuite: suiteLib.cryptosuite })]
    const result = await vcLib.verifyCredential({ credential, suite, documentLoader })
    expect(result.verified, JSON.stringify(result.error)).toBe(true)
    const tampered = { ...credential, credentialSubject: { ...credential.credentialSubject, name: 'Mallory' } }
    expect((await vcLib.verifyCredential({ credential: tampered, suite, documentLoader })).verified).toBe(false)
  })
})
