/**
 * The Data Integrity suites registered in the proof-suite registry, through the router on loopback HTTP (SQLite file)
 * and the embedded API: P-256 / Ed25519 wallets sign JSON-LD (credentials v2) by default with ecdsa-rdfc-2019 /
 * eddsa-rdfc-2022, or with a named cryptosuite (JCS); Add Proof appends one; `/presentations/sign` signs a
 * presentation for authentication with the challenge and domain; `/claims/verify` and `/presentations/verify` verify
 * them against the current DID document; @digitalbazaar/vc verifies a credential of ours. A suite that does not fit
 * the key is 422 with nothing written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { IdentityError } from '../../src/errors.js'
import { documentLoader as contexts } from '../../src/proofs/jsonld/document-loader.js'
import { expectError, snapshot, startHarness, TENANT_A, tokenFor, type Harness } from '../helpers/harness.js'

const V2 = 'https://www.w3.org/ns/credentials/v2'
/** `degree` is a term no context defines: the credential is signed under the undefined-terms context (the default). */
const SIGNED_CONTEXT = [V2, 'https://www.w3.org/ns/credentials/undefined-terms/v2']
const CREATED = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/
const PROOF_VALUE = /^z[1-9A-HJ-NP-Za-km-z]+$/
const DEFAULTS = [
  ['P-256', 'ecdsa-rdfc-2019', 'ecdsa-jcs-2019'],
  ['Ed25519', 'eddsa-rdfc-2022', 'eddsa-jcs-2022'],
] as const

let h: Harness
beforeAll(async () => {
  h = await startHarness({ storage: 'sqlite' })
})
afterAll(() => h.close())

const claims = [{ payload: { degree: 'BSc' } }]

/** A did:key wallet of `keyType`, its DID-auth token and its verification method. */
async function keyWallet(keyType: string) {
  const made = await h.request('POST', '/wallet', { json: { walletConfig: { didMethod: 'key', keyType } } })
  expect(made.status).toBe(200)
  const did: string = made.body.wallet.did
  const token = await h.request('POST', '/did-auth-jwt', { json: { iss: did } })
  const resolved = await h.request('GET', `/1.0/identifiers/${encodeURIComponent(did)}`)
  const document = resolved.body.didDocument ?? resolved.body
  return { did, jwt: token.body.jwt as string, method: document.assertionMethod[0] as string }
}

/** The exact members of a Data Integrity proof of ours. */
function expectProof(proof: Record<string, unknown>, cryptosuite: string, method: string, extra: Record<string, unknown> = {}) {
  expect(Object.keys(proof).sort()).toEqual(
    ['type', 'cryptosuite', 'created', 'verificationMethod', 'proofPurpose', 'proofValue', ...Object.keys(extra)].sort(),
  )
  expect(proof).toMatchObject({
    type: 'DataIntegrityProof',
    cryptosuite,
    verificationMethod: method,
    proofPurpose: 'assertionMethod',
    ...extra,
  })
  expect(proof.created).toMatch(CREATED)
  expect(proof.proofValue).toMatch(PROOF_VALUE)
}

const verify = async (jsonld: unknown, didAuth: string) => {
  const res = await h.request('POST', '/claims/verify', { json: { vcs: [{ jsonld }] }, didAuth })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body.vcs[0]
}

describe.each(DEFAULTS)('a %s wallet signs JSON-LD with Data Integrity', (keyType, byDefault, jcs) => {
  it(`Sign: ${byDefault} by default, verified by /claims/verify; tampered, not`, async () => {
    const w = await keyWallet(keyType)
    const res = await h.request('POST', '/claims/sign', { json: { iss: w.did, claims, context: [V2] }, didAuth: w.jwt })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const vc = res.body.vcs[0].jsonld
    expect(vc['@context']).toEqual(SIGNED_CONTEXT)
    expectProof(vc.proof, byDefault, w.method)
    const checked = await verify(vc, w.jwt)
    expect(checked).toMatchObject({ verified: true, issuer: w.did })
    expect(checked.checks[0]).toEqual({
      check: 'proof',
      proof: 0,
      type: 'DataIntegrityProof',
      verificationMethod: w.method,
      did: w.did,
      verified: true,
    })
    const tampered = await verify({ ...vc, credentialSubject: { ...vc.credentialSubject, degree: 'PhD' } }, w.jwt)
    expect(tampered.verified).toBe(false)
    expect(tampered.checks[0]).toMatchObject({ check: 'proof', verified: false })
  })

  it(`Sign with the named cryptosuite ${jcs}; Add Proof appends a ${jcs} proof to a ${byDefault} one; all verify`, async () => {
    const w = await keyWallet(keyType)
    const res = await h.request('POST', '/claims/sign', {
      json: { iss: w.did, claims, context: [V2], cryptosuite: jcs },
      didAuth: w.jwt,
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const vc = res.body.vcs[0].jsonld
    // JCS does not expand terms: signed as it is, and its proof carries the document's context.
    expect(vc['@context']).toEqual([V2])
    expectProof(vc.proof, jcs, w.method, { '@context': [V2] })
    const alone = await verify(vc, w.jwt)
    expect(alone.verified, JSON.stringify(alone.checks)).toBe(true)

    const rdfc = await h.request('POST', '/claims/sign', { json: { iss: w.did, claims, context: [V2] }, didAuth: w.jwt })
    const base = rdfc.body.vcs[0].jsonld
    // The owner of the credential's DID and the wallet (which signs the proof) add it.
    const added = await h.request('POST', '/claims/proofs', {
      json: { iss: w.did, vcs: [{ jsonld: base }], cryptosuite: jcs },
      didAuth: `${await tokenFor(h, rdfc.body.vcs[0].id)},${w.jwt}`,
    })
    expect(added.status, JSON.stringify(added.body)).toBe(200)
    expect(added.body.errors, JSON.stringify(added.body.errors)).toEqual([])
    const [first, second] = added.body.vcs[0].jsonld.proof
    expect(first).toEqual(base.proof)
    expectProof(second, jcs, w.method, { '@context': SIGNED_CONTEXT })
    const checked = await verify(added.body.vcs[0].jsonld, w.jwt)
    expect(checked.verified, JSON.stringify(checked.checks)).toBe(true)
    const proofChecks = checked.checks.filter((c: { check: string }) => c.check === 'proof')
    expect(proofChecks.map((c: { verified: boolean }) => c.verified)).toEqual([true, true])
  })

  it('the embedded API signs the same way', async () => {
    const w = await keyWallet(keyType)
    const api = h.service.as({ authorization: TENANT_A, didAuth: w.jwt })
    const signed = await api.signClaims({ iss: w.did, claims, context: [V2] })
    const vc = (signed.vcs[0] as { jsonld: Record<string, unknown> }).jsonld
    expectProof(vc.proof as Record<string, unknown>, byDefault, w.method)
    expect((await verify(vc, w.jwt)).verified).toBe(true)
  })
})

describe('presentations and refusals', () => {
  it('an Ed25519 holder’s JSON-LD presentation: authentication, challenge and domain; verified, and not for another challenge', async () => {
    const issuer = await keyWallet('P-256')
    const holder = await keyWallet('Ed25519')
    const signed = await h.request('POST', '/claims/sign', { json: { iss: issuer.did, claims, context: [V2] }, didAuth: issuer.jwt })
    const vc = signed.body.vcs[0].jsonld
    const presented = await h.request('POST', '/presentations/sign', {
      json: { holder: holder.did, format: 'JSON-LD', challenge: 'c-1', domain: 'https://verifier.example', vcs: [{ jsonld: vc }] },
      didAuth: holder.jwt,
    })
    expect(presented.status, JSON.stringify(presented.body)).toBe(200)
    const vp = presented.body.presentation.jsonld
    const proof = vp.proof
    expect(Object.keys(proof).sort()).toEqual(
      ['type', 'cryptosuite', 'created', 'verificationMethod', 'proofPurpose', 'proofValue', 'challenge', 'domain'].sort(),
    )
    expect(proof).toMatchObject({
      type: 'DataIntegrityProof',
      cryptosuite: 'eddsa-rdfc-2022',
      verificationMethod: holder.method,
      proofPurpose: 'authentication',
      challenge: 'c-1',
      domain: 'https://verifier.example',
    })
    const ask = (challenge: string) =>
      h.request('POST', '/presentations/verify', {
        json: { presentation: { jsonld: vp }, challenge, domain: 'https://verifier.example' },
        didAuth: holder.jwt,
      })
    const ok = await ask('c-1')
    expect(ok.status, JSON.stringify(ok.body)).toBe(200)
    expect(ok.body).toMatchObject({ verified: true, holder: holder.did })
    const replayed = await ask('c-2')
    expect(replayed.body.verified).toBe(false)
    expect(replayed.body.checks).toContainEqual({ check: 'challenge', verified: false, error: 'does not match the expected challenge' })
  })

  it('a cryptosuite that does not sign with the key’s type is 422, nothing written', async () => {
    const w = await keyWallet('Ed25519')
    const before = await snapshot(h)
    const res = await h.request('POST', '/claims/sign', {
      json: { iss: w.did, claims, context: [V2], cryptosuite: 'ecdsa-rdfc-2019' },
      didAuth: w.jwt,
    })
    expectError(res, 422, 'VALIDATION_ERROR')
    expect(res.body.errorMessage).toBe(
      'cryptosuite: DataIntegrityProof (ecdsa-rdfc-2019) signs with P-256 keys, not Ed25519; for Ed25519 keys: ' +
        'DataIntegrityProof (eddsa-rdfc-2022), DataIntegrityProof (eddsa-jcs-2022)',
    )
    expect(await snapshot(h)).toEqual(before)
    const api = h.service.as({ authorization: TENANT_A, didAuth: w.jwt })
    const err = await api.signClaims({ iss: w.did, claims, context: [V2], cryptosuite: 'ecdsa-sd-2023' }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(IdentityError)
    expect(err).toMatchObject({ statusCode: 422 })
    expect(await snapshot(h)).toEqual(before)
  })
})

describe('interop: a credential of ours verified by @digitalbazaar/vc', () => {
  it.each(DEFAULTS)('%s, %s', async (keyType, cryptosuite) => {
    const importEsm = (specifier: string): Promise<any> => import(specifier)
    const [di, vcLib, suiteLib] = await Promise.all(
      ['@digitalbazaar/data-integrity', '@digitalbazaar/vc', `@digitalbazaar/${cryptosuite}-cryptosuite`].map(importEsm),
    )
    const w = await keyWallet(keyType)
    const res = await h.request('POST', '/claims/sign', { json: { iss: w.did, claims, context: [V2] }, didAuth: w.jwt })
    const credential = res.body.vcs[0].jsonld
    // Bundled contexts, and the DID documents (and their methods) as the router resolves them.
    const documentLoader = async (url: string) => {
      if (!url.startsWith('did:')) return contexts(url)
      const resolved = await h.request('GET', `/1.0/identifiers/${encodeURIComponent(url.split('#')[0])}`)
      const didDocument = resolved.body.didDocument ?? resolved.body
      const document = url.includes('#')
        ? { '@context': didDocument['@context'], ...didDocument.verificationMethod.find((m: { id: string }) => m.id === url) }
        : didDocument
      return { contextUrl: null, documentUrl: url, document }
    }
    const suite = [new di.DataIntegrityProof({ cryptosuite: suiteLib.cryptosuite })]
    const result = await vcLib.verifyCredential({ credential, suite, documentLoader })
    expect(result.verified, JSON.stringify(result.error)).toBe(true)
    const tampered = { ...credential, credentialSubject: { ...credential.credentialSubject, degree: 'PhD' } }
    expect((await vcLib.verifyCredential({ credential: tampered, suite, documentLoader })).verified).toBe(false)
  })
})
