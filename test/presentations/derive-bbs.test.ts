/**
 * bbs-2023 through the router on loopback HTTP (SQLite file): an issuer's BLS12-381 G2 key (made in a sealed key port,
 * `createBbsKey`, its DID a did:key `zUC7…`) signs a base proof with `mandatoryPointers` through the suite registry; a
 * holder of another tenant derives (`POST /presentations/derive`); `/claims/verify` verifies the derived credential
 * against the did:key document the service resolves itself, and fails a tampered one; @digitalbazaar/vc verifies the
 * derived credential too. Wrong combinations of key and suite are 422 before anything is signed; a wallet of a BBS key
 * (any DID method, vault kind or route that makes wallets) is 422 saying why, with nothing written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { addProof } from '../../src/proofs/jsonld/index.js'
import { documentLoader as contexts } from '../../src/proofs/jsonld/document-loader.js'
import { bbsPortIdentity, openSealedKeys, portIdentity } from '../proofs/data-integrity/helpers.js'
import { expectError, snapshot, startHarness, TENANT_A, TENANT_B, type Harness } from '../helpers/harness.js'

const V2 = 'https://www.w3.org/ns/credentials/v2'
const MANDATORY = ['/issuer', '/credentialSubject/degree']

let h: Harness
let port: Awaited<ReturnType<typeof openSealedKeys>>
let issuer: Awaited<ReturnType<typeof bbsPortIdentity>>
let holder: { did: string; jwt: string }
/** The issuer's credential with its bbs-2023 base proof. */
let base: Record<string, any>

const credential = (issuerDid: string) => ({
  '@context': [V2, 'https://www.w3.org/ns/credentials/undefined-terms/v2'],
  id: 'urn:uuid:5f0d1d2c-7a5e-4e3e-9a55-0c8f4b1e2a10',
  type: ['VerifiableCredential'],
  issuer: issuerDid,
  validFrom: '2026-01-01T00:00:00Z',
  credentialSubject: { degree: 'BSc', name: 'Alice', birthYear: 2001 },
})

const derive = (json: unknown) => h.request('POST', '/presentations/derive', { json, token: TENANT_B, didAuth: holder.jwt })

const verify = async (jsonld: unknown) => {
  const res = await h.request('POST', '/claims/verify', { json: { vcs: [{ jsonld }] }, token: TENANT_B, didAuth: holder.jwt })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body.vcs[0]
}

/** Bundled contexts, and DID documents as the router resolves them, for @digitalbazaar/vc. */
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
  port = await openSealedKeys()
  issuer = await bbsPortIdentity(port.keys)
  const made = await h.request('POST', '/wallet', { json: { walletConfig: { didMethod: 'key', keyType: 'Ed25519' } }, token: TENANT_B })
  expect(made.status, JSON.stringify(made.body)).toBe(200)
  const jwt = await h.request('POST', '/did-auth-jwt', { json: { iss: made.body.wallet.did }, token: TENANT_B })
  holder = { did: made.body.wallet.did, jwt: jwt.body.jwt }
  // No cryptosuite named: a Bls12381G2 key's default suite is bbs-2023.
  base = await addProof(credential(issuer.did), issuer.signer, { creator: issuer.verificationMethod, mandatoryPointers: MANDATORY })
})
afterAll(async () => {
  await port.close()
  await h.close()
})

describe('bbs-2023: sign with mandatoryPointers, derive in another tenant, verify', () => {
  it('the base proof is bbs-2023 and not verifiable; the derived credential has exactly the mandatory and selected claims and verifies', async () => {
    expect(base.proof).toMatchObject({ type: 'DataIntegrityProof', cryptosuite: 'bbs-2023', proofPurpose: 'assertionMethod' })
    // A bbs-2023 base proof's proofValue is multibase base64url (`u`), header 0xd95d02; a derived one's 0xd95d03.
    expect(base.proof.proofValue).toMatch(/^u2V0C/)
    expect((await verify(base)).verified).toBe(false)
    const res = await derive({ jsonld: base, selectivePointers: ['/credentialSubject/name'] })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const derived = res.body.jsonld
    expect(derived.proof).toMatchObject({ type: 'DataIntegrityProof', cryptosuite: 'bbs-2023' })
    expect(derived.proof.proofValue).toMatch(/^u2V0D/)
    expect(derived.issuer).toBe(issuer.did)
    expect(derived.credentialSubject).toEqual({ degree: 'BSc', name: 'Alice' })
    expect(derived).not.toHaveProperty('validFrom')
    const checked = await verify(derived)
    expect(checked.verified, JSON.stringify(checked.checks)).toBe(true)
    expect(checked.issuer).toBe(issuer.did)
  })

  it('a claim added, a mandatory claim dropped or a revealed value changed: verified false, check proof', async () => {
    const derived = (await derive({ jsonld: base, selectivePointers: ['/credentialSubject/name'] })).body.jsonld
    const subject = derived.credentialSubject
    const forged = [
      { ...derived, credentialSubject: { ...subject, birthYear: 2001 } },
      { ...derived, credentialSubject: { name: subject.name } },
      { ...derived, credentialSubject: { ...subject, name: 'Mallory' } },
    ]
    for (const jsonld of forged) {
      const checked = await verify(jsonld)
      expect(checked.verified).toBe(false)
      expect(checked.checks[0]).toMatchObject({ check: 'proof', verified: false })
    }
  })

  it('@digitalbazaar/vc verifies the derived credential (the did:key document as the router resolves it)', async () => {
    const [dataIntegrity, vcLib, bbs] = await Promise.all(
      ['@digitalbazaar/data-integrity', '@digitalbazaar/vc', '@digitalbazaar/bbs-2023-cryptosuite'].map(importEsm),
    )
    const derived = (await derive({ jsonld: base, selectivePointers: ['/credentialSubject/birthYear'] })).body.jsonld
    expect(derived.credentialSubject).toEqual({ degree: 'BSc', birthYear: 2001 })
    const suite = new dataIntegrity.DataIntegrityProof({ cryptosuite: bbs.createVerifyCryptosuite() })
    const theirs = await vcLib.verifyCredential({ credential: derived, suite, documentLoader })
    expect(theirs.verified, JSON.stringify(theirs.error ?? theirs.results)).toBe(true)
  })
})

describe('wrong combinations of key and suite: 422 before signing', () => {
  it('a BBS key with ecdsa-rdfc-2019, a P-256 key with bbs-2023, a BBS key for a presentation', async () => {
    const options = { creator: issuer.verificationMethod }
    await expect(addProof(credential(issuer.did), issuer.signer, { ...options, cryptosuite: 'ecdsa-rdfc-2019' })).rejects.toMatchObject({
      statusCode: 422,
      message: expect.stringContaining('signs with P-256 keys, not Bls12381G2'),
    })
    const p256 = await portIdentity(port.keys, 'P-256')
    await expect(
      addProof(credential(p256.did), p256.signer, { creator: p256.verificationMethod, cryptosuite: 'bbs-2023' }),
    ).rejects.toMatchObject({ statusCode: 422, message: expect.stringContaining('signs with Bls12381G2 keys, not P-256') })
    await expect(
      addProof(credential(issuer.did), issuer.signer, { ...options, proofPurpose: 'authentication', challenge: 'c-1' }),
    ).rejects.toMatchObject({ statusCode: 422, message: expect.stringContaining('a bbs-2023 base proof is an assertion') })
  })
})

describe('a BBS key is no wallet key: 422 naming why, nothing written', () => {
  it('Generate Wallet (did:key, did:ethr, did:jwk), Create Vault (NONE, BIP44, MPC), Sign Claims making claim wallets', async () => {
    const bbs = { keyType: 'Bls12381G2' }
    const member = { id: holder.did }
    const attempts: Array<[string, unknown]> = [
      ['/wallet', { walletConfig: { ...bbs, didMethod: 'key' } }],
      ['/wallet', { walletConfig: { ...bbs, didMethod: 'ethr' } }],
      ['/wallet', { walletConfig: { ...bbs, didMethod: 'jwk' } }],
      ['/vaults', { name: 'bbs', hierarchy: 'NONE', walletConfig: { ...bbs, didMethod: 'key' } }],
      ['/vaults', { name: 'bbs', hierarchy: 'BIP44', walletConfig: { ...bbs, didMethod: 'key' } }],
      [
        '/vaults',
        {
          name: 'bbs',
          keyManagement: 'MPC',
          hierarchy: 'NONE',
          mpcAccountID: 'acct-1',
          mpcGroups: [{ name: 'signers', requiredApprovals: 1, members: [member] }],
          walletConfig: { ...bbs, didMethod: 'key' },
        },
      ],
      ['/claims/sign', { iss: holder.did, claims: [{ payload: { degree: 'BSc' }, walletConfig: { ...bbs, didMethod: 'key' } }] }],
    ]
    const before = await snapshot(h)
    for (const [path, json] of attempts) {
      const res = await h.request('POST', path, { json, token: TENANT_A, didAuth: holder.jwt })
      expectError(res, 422, 'VALIDATION_ERROR')
      expect(res.body.errorMessage, path).toContain('a Bls12381G2 (BBS) key cannot be a wallet’s key: it signs no JWT')
    }
    expect(await snapshot(h)).toEqual(before)
  })
})
