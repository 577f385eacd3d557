/**
 * Generate Token (`POST /did-auth-jwt`) of P-256 and Ed25519 wallets (issue 32): the token carries `jsonld` again — the
 * DIDAuthCredential (credentials v1, the Data Integrity v2 context appended) with a `DataIntegrityProof` of the key
 * type's default suite (ecdsa-rdfc-2019 / eddsa-rdfc-2022), `domain` the token's audience — verified by
 * `/claims/verify` and by @digitalbazaar/vc; the embedded API answers the same. A secp256k1 wallet's stays
 * EcdsaKoblitzSignature2016 (test/tokens/tokens.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CREDENTIALS_V1_URL, DATA_INTEGRITY_V2_URL } from '../../src/proofs/jsonld/index.js'
import { documentLoader as contexts } from '../../src/proofs/jsonld/document-loader.js'
import { startHarness, TENANT_A, type Harness } from '../helpers/harness.js'

const SUITES = [
  ['P-256', 'ecdsa-rdfc-2019'],
  ['Ed25519', 'eddsa-rdfc-2022'],
] as const

let h: Harness
beforeAll(async () => {
  h = await startHarness({ storage: 'sqlite' })
})
afterAll(() => h.close())

/** DID documents (and their methods) as the router resolves them; bundled contexts only. */
async function documentLoader(url: string) {
  if (!url.startsWith('did:')) return contexts(url)
  const resolved = await h.request('GET', `/1.0/identifiers/${encodeURIComponent(url.split('#')[0])}`)
  const didDocument = resolved.body.didDocument ?? resolved.body
  const document = url.includes('#')
    ? { '@context': didDocument['@context'], ...didDocument.verificationMethod.find((m: { id: string }) => m.id === url) }
    : didDocument
  return { contextUrl: null, documentUrl: url, document }
}

describe.each(SUITES)('a %s wallet’s DID-auth token', (keyType, cryptosuite) => {
  it(`carries jsonld with a ${cryptosuite} proof, verified by /claims/verify and @digitalbazaar/vc`, async () => {
    const made = await h.request('POST', '/wallet', { json: { walletConfig: { didMethod: 'key', keyType } } })
    expect(made.status, JSON.stringify(made.body)).toBe(200)
    const did: string = made.body.wallet.did
    const resolved = await h.request('GET', `/1.0/identifiers/${encodeURIComponent(did)}`)
    const method = (resolved.body.didDocument ?? resolved.body).assertionMethod[0]
    const res = await h.request('POST', '/did-auth-jwt', { json: { iss: did } })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const { jsonld, jwt } = res.body
    expect(jsonld['@context']).toEqual([
      CREDENTIALS_V1_URL,
      { DIDAuthCredential: 'https://w3id.org/didvault#DIDAuthCredential' },
      DATA_INTEGRITY_V2_URL,
    ])
    expect(jsonld).toMatchObject({ type: ['VerifiableCredential', 'DIDAuthCredential'], issuer: did, credentialSubject: { id: did } })
    expect(Object.keys(jsonld.proof).sort()).toEqual(
      ['type', 'cryptosuite', 'created', 'verificationMethod', 'proofPurpose', 'proofValue', 'domain'].sort(),
    )
    expect(jsonld.proof).toMatchObject({
      type: 'DataIntegrityProof',
      cryptosuite,
      verificationMethod: method,
      proofPurpose: 'assertionMethod',
      domain: 'didvault',
    })

    const checked = await h.request('POST', '/claims/verify', { json: { vcs: [{ jsonld }] }, didAuth: jwt })
    expect(checked.status).toBe(200)
    expect(checked.body.vcs[0], JSON.stringify(checked.body.vcs[0].checks)).toMatchObject({ verified: true, issuer: did })

    const importEsm = (specifier: string): Promise<any> => import(specifier)
    const [di, vcLib, suiteLib] = await Promise.all(
      ['@digitalbazaar/data-integrity', '@digitalbazaar/vc', `@digitalbazaar/${cryptosuite}-cryptosuite`].map(importEsm),
    )
    const suite = new di.DataIntegrityProof({ cryptosuite: suiteLib.cryptosuite })
    const result = await vcLib.verifyCredential({ credential: jsonld, suite, documentLoader })
    expect(result.verified, JSON.stringify(result.error)).toBe(true)
    const forged = { ...jsonld, credentialSubject: { id: 'did:example:someone-else' } }
    expect((await vcLib.verifyCredential({ credential: forged, suite, documentLoader })).verified).toBe(false)

    const embedded = await h.service.as({ authorization: TENANT_A }).generateToken({ iss: did })
    expect(embedded.jsonld).toMatchObject({ proof: { type: 'DataIntegrityProof', cryptosuite } })
  })
})
