/**
 * Credentials v1 (VCDM 1.1) with Data Integrity proofs (issue 32), through the router on loopback HTTP (SQLite file):
 * Sign of a v1 credential by a P-256 (Ed25519) wallet appends the Data Integrity v2 context (the libraries'
 * `addSuiteContext`) and signs with ecdsa-rdfc-2019 (eddsa-rdfc-2022); `/claims/verify` and @digitalbazaar/vc verify it
 * with the bundled contexts only (the data-integrity v1/v2 contexts of @digitalbazaar/data-integrity-context, served
 * offline). Adding such a proof to a v1 credential that already has proofs would change their signed `@context`:
 * 422 naming the context, nothing written.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CREDENTIALS_V1_URL, DATA_INTEGRITY_V1_URL, DATA_INTEGRITY_V2_URL, getContext } from '../../src/proofs/jsonld/index.js'
import { documentLoader as contexts } from '../../src/proofs/jsonld/document-loader.js'
import { expectError, snapshot, startHarness, tokenFor, walletWithToken, type Harness } from '../helpers/harness.js'

const require = createRequire(import.meta.url)
const SUITES = [
  ['P-256', 'ecdsa-rdfc-2019'],
  ['Ed25519', 'eddsa-rdfc-2022'],
] as const

let h: Harness
beforeAll(async () => {
  h = await startHarness({ storage: 'sqlite' })
})
afterAll(() => h.close())

/** A did:key wallet of `keyType` and its DID-auth token. */
async function keyWallet(keyType: string) {
  const made = await h.request('POST', '/wallet', { json: { walletConfig: { didMethod: 'key', keyType } } })
  expect(made.status, JSON.stringify(made.body)).toBe(200)
  const did: string = made.body.wallet.did
  return { did, jwt: await tokenFor(h, did) }
}

/** Bundled contexts (never fetched), and the DID documents (and their methods) as the router resolves them. */
async function documentLoader(url: string) {
  if (!url.startsWith('did:')) return contexts(url)
  const resolved = await h.request('GET', `/1.0/identifiers/${encodeURIComponent(url.split('#')[0])}`)
  const didDocument = resolved.body.didDocument ?? resolved.body
  const document = url.includes('#')
    ? { '@context': didDocument['@context'], ...didDocument.verificationMethod.find((m: { id: string }) => m.id === url) }
    : didDocument
  return { contextUrl: null, documentUrl: url, document }
}

it('the data-integrity v1 and v2 contexts are bundled from @digitalbazaar/data-integrity-context, loaded offline', async () => {
  const dir = require.resolve('@digitalbazaar/data-integrity-context').replace(/js[/\\]index\.js$/, 'contexts/')
  for (const [url, file] of [
    [DATA_INTEGRITY_V1_URL, 'data-integrity-v1.jsonld'],
    [DATA_INTEGRITY_V2_URL, 'data-integrity-v2.jsonld'],
  ]) {
    const published = JSON.parse(readFileSync(dir + file, 'utf8'))
    expect(getContext(url)).toEqual(published)
    expect((await contexts(url)).document).toEqual(published)
  }
})

describe.each(SUITES)('a %s wallet signs a credentials v1 document', (keyType, cryptosuite) => {
  it(`with ${cryptosuite}, the Data Integrity v2 context appended; verified here and by @digitalbazaar/vc`, async () => {
    const w = await keyWallet(keyType)
    const claims = [{ id: 'urn:uuid:32000000-0000-4000-8000-000000000101', payload: { name: 'Ada' } }]
    const res = await h.request('POST', '/claims/sign', { json: { iss: w.did, claims, context: [CREDENTIALS_V1_URL] }, didAuth: w.jwt })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const vc = res.body.vcs[0].jsonld
    expect(vc['@context'][0]).toBe(CREDENTIALS_V1_URL)
    expect(vc['@context'].at(-1)).toBe(DATA_INTEGRITY_V2_URL)
    expect(vc.issuanceDate).toEqual(expect.any(String))
    expect(vc.proof).toMatchObject({ type: 'DataIntegrityProof', cryptosuite, proofPurpose: 'assertionMethod' })

    const checked = await h.request('POST', '/claims/verify', { json: { vcs: [{ jsonld: vc }] }, didAuth: w.jwt })
    expect(checked.status).toBe(200)
    expect(checked.body.vcs[0].verified, JSON.stringify(checked.body.vcs[0].checks)).toBe(true)

    const importEsm = (specifier: string): Promise<any> => import(specifier)
    const [di, vcLib, suiteLib] = await Promise.all(
      ['@digitalbazaar/data-integrity', '@digitalbazaar/vc', `@digitalbazaar/${cryptosuite}-cryptosuite`].map(importEsm),
    )
    const suite = new di.DataIntegrityProof({ cryptosuite: suiteLib.cryptosuite })
    const result = await vcLib.verifyCredential({ credential: vc, suite, documentLoader })
    expect(result.verified, JSON.stringify(result.error)).toBe(true)
    const tampered = { ...vc, credentialSubject: { ...vc.credentialSubject, name: 'Eve' } }
    expect((await vcLib.verifyCredential({ credential: tampered, suite, documentLoader })).verified).toBe(false)
  })
})

it('adding a Data Integrity proof to a v1 credential that has proofs is 422 naming the context, nothing written', async () => {
  const issuer = await walletWithToken(h)
  const signed = await h.request('POST', '/claims/sign', {
    json: { iss: issuer.did, claims: [{ payload: { name: 'Ada' } }], context: [CREDENTIALS_V1_URL] },
    didAuth: issuer.jwt,
  })
  expect(signed.status, JSON.stringify(signed.body)).toBe(200)
  const w = await keyWallet('P-256')
  const before = await snapshot(h)
  const added = await h.request('POST', '/claims/proofs', {
    json: { iss: w.did, vcs: [{ jsonld: signed.body.vcs[0].jsonld }] },
    didAuth: `${await tokenFor(h, signed.body.vcs[0].id)},${w.jwt}`,
  })
  const error = added.status === 200 ? { status: added.body.errors[0]?.error?.statusCode, body: added.body.errors[0]?.error } : added
  expectError(error, 422, 'VALIDATION_ERROR')
  expect(error.body.errorMessage).toBe(
    `@context: a DataIntegrityProof (ecdsa-rdfc-2019) signs a credentials v1 document only with "${DATA_INTEGRITY_V2_URL}" ` +
      "in its @context, and adding it would break the document's other proofs",
  )
  expect(await snapshot(h)).toEqual(before)
})
