/**
 * ecdsa-sd-2023 end to end, through the router on loopback HTTP (SQLite file), the embedded API and the typed client:
 * a P-256 issuer signs with `mandatoryPointers`; a holder of ANOTHER tenant derives (`POST /presentations/derive`)
 * revealing chosen claims; the derived credential holds exactly the mandatory and selected claims, verifies through
 * `/claims/verify` (and fails there when a claim is added, dropped or changed), is presented and verified like any
 * other; @digitalbazaar/vc's `derive` of our base proof verifies here and our derived one verifies there. Bad inputs are
 * the spec's error bodies with nothing written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createClient } from '../../src/client/index.js'
import { IdentityError } from '../../src/errors.js'
import { documentLoader as contexts } from '../../src/proofs/jsonld/document-loader.js'
import { expectError, snapshot, startHarness, TENANT_A, TENANT_B, tokenFor, type Harness } from '../helpers/harness.js'

const V2 = 'https://www.w3.org/ns/credentials/v2'
/** The claims' terms are defined by no context: the credential is signed under the undefined-terms context (the default). */
const SIGNED_CONTEXT = [V2, 'https://www.w3.org/ns/credentials/undefined-terms/v2']
const MANDATORY = ['/issuer', '/credentialSubject/degree']
const claims = [{ payload: { degree: 'BSc', name: 'Alice', birthYear: 2001 } }]

let h: Harness
let issuer: Wallet
let holder: Wallet
/** The issuer's credential with its ecdsa-sd-2023 base proof. */
let base: Record<string, any>

interface Wallet {
  did: string
  jwt: string
  token: string
}

/** A did:key wallet of `keyType` in the tenant of `token`, with its DID-auth token. */
async function keyWallet(keyType: string, token: string): Promise<Wallet> {
  const made = await h.request('POST', '/wallet', { json: { walletConfig: { didMethod: 'key', keyType } }, token })
  expect(made.status, JSON.stringify(made.body)).toBe(200)
  const did: string = made.body.wallet.did
  const jwt = await h.request('POST', '/did-auth-jwt', { json: { iss: did }, token })
  return { did, jwt: jwt.body.jwt as string, token }
}

const derive = (json: unknown, by: Wallet = holder) =>
  h.request('POST', '/presentations/derive', { json, token: by.token, didAuth: by.jwt })

const verify = async (jsonld: unknown) => {
  const res = await h.request('POST', '/claims/verify', { json: { vcs: [{ jsonld }] }, token: TENANT_B, didAuth: holder.jwt })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body.vcs[0]
}

/** A bundled-contexts and router-resolved DID document loader, for @digitalbazaar/vc. */
const documentLoader = async (url: string) => {
  if (!url.startsWith('did:')) return contexts(url)
  const resolved = await h.request('GET', `/1.0/identifiers/${encodeURIComponent(url.split('#')[0])}`)
  const didDocument = resolved.body.didDocument ?? resolved.body
  const document = url.includes('#')
    ? { '@context': didDocument['@context'], ...didDocument.verificationMethod.find((m: { id: string }) => m.id === url) }
    : didDocument
  return { contextUrl: null, documentUrl: url, document }
}
const importEsm = (specifier: string): Promise<any> => import(specifier)

beforeAll(async () => {
  h = await startHarness({ storage: 'sqlite' })
  issuer = await keyWallet('P-256', TENANT_A)
  holder = await keyWallet('Ed25519', TENANT_B)
  const signed = await h.request('POST', '/claims/sign', {
    json: { iss: issuer.did, claims, context: [V2], cryptosuite: 'ecdsa-sd-2023', mandatoryPointers: MANDATORY },
    didAuth: issuer.jwt,
  })
  expect(signed.status, JSON.stringify(signed.body)).toBe(200)
  base = signed.body.vcs[0].jsonld
})
afterAll(() => h.close())

describe('Sign with mandatoryPointers, derive in another tenant', () => {
  it('the base proof is ecdsa-sd-2023; the derived credential has exactly the mandatory and selected claims and verifies', async () => {
    expect(base['@context']).toEqual(SIGNED_CONTEXT)
    expect(base.proof).toMatchObject({ type: 'DataIntegrityProof', cryptosuite: 'ecdsa-sd-2023', proofPurpose: 'assertionMethod' })
    // A base proof's proofValue is multibase base64url (`u`), header 0xd95d00.
    expect(base.proof.proofValue).toMatch(/^u2V0A/)
    const res = await derive({ jsonld: base, selectivePointers: ['/credentialSubject/name'] })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const derived = res.body.jsonld
    // Mandatory: /issuer, /credentialSubject/degree; selected: /credentialSubject/name; every selected node keeps its
    // `id` and `type`; the rest (validFrom, birthYear) is left out.
    expect(Object.keys(base)).toContain('validFrom')
    expect(Object.keys(derived).sort()).toEqual(['@context', 'credentialSubject', 'id', 'issuer', 'proof', 'type'])
    expect(derived).toMatchObject({ '@context': base['@context'], id: base.id, type: base.type, issuer: issuer.did })
    expect(derived.credentialSubject).toEqual({ degree: 'BSc', name: 'Alice' })
    expect(derived.proof.proofValue).toMatch(/^u2V0B/)
    const checked = await verify(derived)
    expect(checked.verified, JSON.stringify(checked.checks)).toBe(true)
    expect(checked.issuer).toBe(issuer.did)
  })

  it('a claim added, a mandatory claim dropped or a revealed value changed: verified false, check proof', async () => {
    const res = await derive({ jsonld: base, selectivePointers: ['/credentialSubject/name'] })
    const derived = res.body.jsonld
    const subject = derived.credentialSubject
    const forged = [
      { ...derived, credentialSubject: { ...subject, birthYear: 2001 } },
      { ...derived, credentialSubject: { name: subject.name } },
      { ...derived, credentialSubject: { ...subject, name: 'Mallory' } },
    ]
    for (const credential of forged) {
      const checked = await verify(credential)
      expect(checked.verified).toBe(false)
      expect(checked.checks[0]).toMatchObject({ check: 'proof', verified: false })
    }
  })

  it('the embedded API and the typed client derive the same claims', async () => {
    const input = { jsonld: base, selectivePointers: ['/credentialSubject/birthYear'] }
    const embedded = await h.service.as({ authorization: TENANT_B, didAuth: holder.jwt }).deriveCredential(input)
    const client = createClient({ baseUrl: h.url }).as({ authorization: `Bearer ${TENANT_B}`, didAuth: holder.jwt })
    const overHttp = await client.deriveCredential(input)
    for (const { jsonld } of [embedded, overHttp]) {
      expect(jsonld.credentialSubject).toEqual({ degree: 'BSc', birthYear: 2001 })
      expect((await verify(jsonld)).verified).toBe(true)
    }
    const refused = await client.deriveCredential({ jsonld: base, selectivePointers: ['/credentialSubject/nope'] }).catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(IdentityError)
    expect(refused).toMatchObject({ statusCode: 422, errorType: 'VALIDATION_ERROR' })
  })

  it('a stored credential derives by _id for a reader; another tenant’s _id is 422 NOT_FOUND', async () => {
    const stored = await h.request('POST', '/claims', { json: { claims: [{ jsonld: base }] }, didAuth: issuer.jwt })
    expect(stored.status, JSON.stringify(stored.body)).toBe(200)
    const _id: string = stored.body.vcs[0]._id
    const own = await derive({ _id, selectivePointers: [] }, issuer)
    expect(own.status, JSON.stringify(own.body)).toBe(200)
    expect(own.body.jsonld.credentialSubject).toEqual({ degree: 'BSc' })
    const before = await snapshot(h)
    const other = await derive({ _id, selectivePointers: [] })
    expectError(other, 422, 'NOT_FOUND')
    const absent = await derive({ _id: 'no-such-credential', selectivePointers: [] })
    expectError(absent, 422, 'NOT_FOUND')
    expect(absent.body.errorMessage.replace('no-such-credential', _id)).toBe(other.body.errorMessage)
    expect(await snapshot(h)).toEqual(before)
  })
})

describe('Add Proof with mandatoryPointers', () => {
  it('an ecdsa-sd-2023 base proof added to an ecdsa-rdfc-2019 credential derives and verifies', async () => {
    const signed = await h.request('POST', '/claims/sign', { json: { iss: issuer.did, claims, context: [V2] }, didAuth: issuer.jwt })
    const vc = signed.body.vcs[0]
    const added = await h.request('POST', '/claims/proofs', {
      json: { iss: issuer.did, vcs: [{ jsonld: vc.jsonld }], cryptosuite: 'ecdsa-sd-2023', mandatoryPointers: ['/issuer'] },
      didAuth: `${await tokenFor(h, vc.id)},${issuer.jwt}`,
    })
    expect(added.status, JSON.stringify(added.body)).toBe(200)
    expect(added.body.errors).toEqual([])
    const withBase = added.body.vcs[0].jsonld
    expect(withBase.proof.map((p: { cryptosuite: string }) => p.cryptosuite)).toEqual(['ecdsa-rdfc-2019', 'ecdsa-sd-2023'])
    const res = await derive({ jsonld: withBase, selectivePointers: ['/credentialSubject/degree'] })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const derived = res.body.jsonld
    // Only the derived proof: the other proofs sign claims the holder does not reveal.
    expect(derived.proof).toMatchObject({ type: 'DataIntegrityProof', cryptosuite: 'ecdsa-sd-2023' })
    expect(derived.issuer).toBe(issuer.did)
    expect(derived.credentialSubject).toEqual({ id: vc.jsonld.credentialSubject.id, degree: 'BSc' })
    expect((await verify(derived)).verified).toBe(true)
  })
})

describe('presenting a derived credential', () => {
  it('an Ed25519 holder presents it; /presentations/verify verifies, the embedded credential’s check passing', async () => {
    const derived = (await derive({ jsonld: base, selectivePointers: ['/credentialSubject/name'] })).body.jsonld
    const presented = await h.request('POST', '/presentations/sign', {
      json: { holder: holder.did, format: 'JSON-LD', challenge: 'c-1', vcs: [{ jsonld: derived }] },
      token: TENANT_B,
      didAuth: holder.jwt,
    })
    expect(presented.status, JSON.stringify(presented.body)).toBe(200)
    const vp = presented.body.presentation.jsonld
    expect(vp.verifiableCredential).toEqual([derived])
    const res = await h.request('POST', '/presentations/verify', {
      json: { presentation: { jsonld: vp }, challenge: 'c-1' },
      token: TENANT_B,
      didAuth: holder.jwt,
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body, JSON.stringify(res.body.checks)).toMatchObject({ verified: true, holder: holder.did })
    expect(res.body.checks).toContainEqual({ check: 'credential', credential: 0, verified: true })
    expect(res.body.vcs[0]).toMatchObject({ verified: true, issuer: issuer.did })
  })

  it('expiresIn with a Data Integrity presentation: 422 saying why (the library writes no proof expires), nothing written', async () => {
    const derived = (await derive({ jsonld: base, selectivePointers: [] })).body.jsonld
    const before = await snapshot(h)
    const res = await h.request('POST', '/presentations/sign', {
      json: { holder: holder.did, format: 'JSON-LD', challenge: 'c-1', expiresIn: 60_000, vcs: [{ jsonld: derived }] },
      token: TENANT_B,
      didAuth: holder.jwt,
    })
    expectError(res, 422, 'VALIDATION_ERROR')
    expect(res.body.errorMessage).toMatch(
      /^expiresIn: a DataIntegrityProof proof cannot expire here: @digitalbazaar\/data-integrity 2\.5\.0 writes no/,
    )
    expect(await snapshot(h)).toEqual(before)
  })
})

describe('interop with @digitalbazaar/vc', () => {
  it('its derive of our base proof verifies here; our derived credential verifies there', async () => {
    const [di, vcLib, sd] = await Promise.all(
      ['@digitalbazaar/data-integrity', '@digitalbazaar/vc', '@digitalbazaar/ecdsa-sd-2023-cryptosuite'].map(importEsm),
    )
    const theirs = await vcLib.derive({
      verifiableCredential: base,
      suite: new di.DataIntegrityProof({ cryptosuite: sd.createDiscloseCryptosuite({ selectivePointers: ['/credentialSubject/name'] }) }),
      documentLoader,
    })
    expect(theirs.credentialSubject).toEqual({ degree: 'BSc', name: 'Alice' })
    expect((await verify(theirs)).verified).toBe(true)

    const ours = (await derive({ jsonld: base, selectivePointers: ['/credentialSubject/birthYear'] })).body.jsonld
    const suite = [new di.DataIntegrityProof({ cryptosuite: sd.createVerifyCryptosuite() })]
    const result = await vcLib.verifyCredential({ credential: ours, suite, documentLoader })
    expect(result.verified, JSON.stringify(result.error)).toBe(true)
    const changed = { ...ours, credentialSubject: { ...ours.credentialSubject, birthYear: 1990 } }
    expect((await vcLib.verifyCredential({ credential: changed, suite, documentLoader })).verified).toBe(false)
  })
})

describe('bad inputs: the spec’s error body, nothing written', () => {
  const pointers = (n: number) => Array.from({ length: n }, (_, i) => `/credentialSubject/c${i}`)
  const refusals: Array<[string, () => unknown, RegExp]> = [
    ['missing selectivePointers', () => ({ jsonld: base }), /selectivePointers/],
    ['selectivePointers not an array', () => ({ jsonld: base, selectivePointers: '/credentialSubject/name' }), /selectivePointers/],
    ['a huge selectivePointers', () => ({ jsonld: base, selectivePointers: pointers(257) }), /selectivePointers/],
    ['a malformed pointer', () => ({ jsonld: base, selectivePointers: ['credentialSubject/name'] }), /selectivePointers/],
    ['an extra field', () => ({ jsonld: base, selectivePointers: [], disclose: [] }), /disclose/],
    ['both jsonld and _id', () => ({ jsonld: base, _id: 'x', selectivePointers: [] }), /exactly one of jsonld and _id/],
    ['neither jsonld nor _id', () => ({ selectivePointers: [] }), /exactly one of jsonld and _id/],
    ['a pointer selecting nothing', () => ({ jsonld: base, selectivePointers: ['/credentialSubject/nope'] }), /does not match/],
    [
      'no ecdsa-sd-2023 base proof',
      () => ({ jsonld: { ...base, proof: { ...base.proof, cryptosuite: 'ecdsa-rdfc-2019' } }, selectivePointers: [] }),
      /exactly one proof of a selective-disclosure cryptosuite/,
    ],
  ]
  it.each(refusals)('%s: 422', async (_, input, message) => {
    const before = await snapshot(h)
    const res = await derive(input())
    expectError(res, 422, 'VALIDATION_ERROR')
    expect(res.body.errorMessage).toMatch(message)
    expect(await snapshot(h)).toEqual(before)
  })

  it('mandatoryPointers: with another cryptosuite, a malformed pointer or one selecting nothing, 422; Add Proof likewise', async () => {
    const before = await snapshot(h)
    const sign = (extra: Record<string, unknown>) =>
      h.request('POST', '/claims/sign', { json: { iss: issuer.did, claims, context: [V2], ...extra }, didAuth: issuer.jwt })
    const other = await sign({ cryptosuite: 'ecdsa-rdfc-2019', mandatoryPointers: ['/issuer'] })
    expectError(other, 422, 'VALIDATION_ERROR')
    expect(other.body.errorMessage).toMatch(/mandatoryPointers: only with a selective-disclosure cryptosuite/)
    const malformed = await sign({ cryptosuite: 'ecdsa-sd-2023', mandatoryPointers: ['issuer'] })
    expectError(malformed, 422, 'VALIDATION_ERROR')
    expect(malformed.body.errorMessage).toMatch(/mandatoryPointers/)
    const nothing = await sign({ cryptosuite: 'ecdsa-sd-2023', mandatoryPointers: ['/credentialSubject/nope'] })
    expectError(nothing, 422, 'VALIDATION_ERROR')
    expect(nothing.body.errorMessage).toMatch(/does not match/)
    const added = await h.request('POST', '/claims/proofs', {
      json: { iss: issuer.did, vcs: [{ jsonld: base }], mandatoryPointers: ['/issuer'] },
      didAuth: issuer.jwt,
    })
    expectError(added, 422, 'VALIDATION_ERROR')
    expect(added.body.errorMessage).toMatch(/mandatoryPointers: only with a selective-disclosure cryptosuite/)
    expect(await snapshot(h)).toEqual(before)
  })
})
