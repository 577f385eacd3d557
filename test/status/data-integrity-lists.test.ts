/**
 * Status lists of P-256 and Ed25519 issuers (issue 32): the JSON-LD `BitstringStatusListCredential` is signed with the
 * issuer key's default suite (a `DataIntegrityProof`, ecdsa-rdfc-2019 / eddsa-rdfc-2022), fetched over HTTP from the
 * router (`GET /status/:listId`): it verifies through `/claims/verify` and in `@digitalbazaar/vc-bitstring-status-list`'s
 * `checkStatus` (its `@digitalbazaar/vc` verification with digitalbazaar's cryptosuite); a credential of theirs with a
 * status entry verifies with its `status` check passing, and fails it after its revocation. A list stored with a proof
 * of another suite is signed again when next served; a Recovery2020 proof of a secp256k1 issuer's list is not retired.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checkStatus } from '@digitalbazaar/vc-bitstring-status-list'
import { CREDENTIALS_V2_URL, type JsonLdDocument } from '../../src/proofs/jsonld/index.js'
import { documentLoader as contexts } from '../../src/proofs/jsonld/document-loader.js'
import { hasRetiredProof } from '../../src/status/sign-list.js'
import { startHarness, type Harness } from '../helpers/harness.js'

const PUBLIC_URL = 'https://status.example.com/identity'
const SUITES = [
  ['P-256', 'ecdsa-rdfc-2019'],
  ['Ed25519', 'eddsa-rdfc-2022'],
] as const

let h: Harness
beforeAll(async () => {
  h = await startHarness({ storage: 'sqlite', service: { publicUrl: PUBLIC_URL, statusPublishIntervalMs: 3_600_000 } })
})
afterAll(() => h?.close())

/** A did:key wallet of `keyType` and its DID-auth token. */
async function keyWallet(keyType: string) {
  const made = await h.request('POST', '/wallet', { json: { walletConfig: { didMethod: 'key', keyType } } })
  expect(made.status, JSON.stringify(made.body)).toBe(200)
  const did: string = made.body.wallet.did
  const token = await h.request('POST', '/did-auth-jwt', { json: { iss: did } })
  return { did, jwt: token.body.jwt as string }
}

/** The list at `url` (under PUBLIC_URL), fetched over HTTP from the router as an outside verifier would. */
async function fetchList(url: string): Promise<JsonLdDocument> {
  if (!url.startsWith(`${PUBLIC_URL}/status/`)) throw new Error(`not one of our lists: ${url}`)
  const res = await fetch(h.url + url.slice(PUBLIC_URL.length))
  if (res.status !== 200) throw new Error(`GET ${url}: HTTP ${res.status}`)
  return (await res.json()) as JsonLdDocument
}

/** DID documents (and their methods) as the router resolves them, lists over HTTP, contexts from the bundle. */
async function documentLoader(url: string) {
  if (url.startsWith(`${PUBLIC_URL}/status/`)) return { contextUrl: null, documentUrl: url, document: await fetchList(url) }
  if (!url.startsWith('did:')) return contexts(url)
  const resolved = await h.request('GET', `/1.0/identifiers/${encodeURIComponent(url.split('#')[0])}`)
  const didDocument = resolved.body.didDocument ?? resolved.body
  const document = url.includes('#')
    ? { '@context': didDocument['@context'], ...didDocument.verificationMethod.find((m: { id: string }) => m.id === url) }
    : didDocument
  return { contextUrl: null, documentUrl: url, document }
}

describe.each(SUITES)('a %s issuer’s Bitstring Status List', (keyType, cryptosuite) => {
  it(`is signed with ${cryptosuite}, verifies here and in digitalbazaar’s checkStatus; the credential’s status passes, then fails after revoke`, async () => {
    const importEsm = (specifier: string): Promise<any> => import(specifier)
    const [di, suiteLib] = await Promise.all(['@digitalbazaar/data-integrity', `@digitalbazaar/${cryptosuite}-cryptosuite`].map(importEsm))
    const issuer = await keyWallet(keyType)
    const id = `urn:uuid:32000000-0000-4000-8000-00000000000${keyType === 'P-256' ? 1 : 2}`
    const signed = await h.request('POST', '/claims/sign', {
      json: { iss: issuer.did, context: CREDENTIALS_V2_URL, status: { purposes: ['revocation'] }, claims: [{ id, payload: { n: 1 } }] },
      didAuth: issuer.jwt,
    })
    expect(signed.status, JSON.stringify(signed.body)).toBe(200)
    const vc = signed.body.vcs[0].jsonld as JsonLdDocument
    const url = (vc.credentialStatus as { statusListCredential: string }).statusListCredential
    const list = await fetchList(url)
    expect(list.proof).toMatchObject({ type: 'DataIntegrityProof', cryptosuite, proofPurpose: 'assertionMethod' })
    expect((list.proof as { verificationMethod: string }).verificationMethod.startsWith(`${issuer.did}#`)).toBe(true)

    const verifyHere = async (jsonld: JsonLdDocument) => {
      const res = await h.request('POST', '/claims/verify', { json: { vcs: [{ jsonld }] }, didAuth: issuer.jwt })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      return res.body.vcs[0] as { verified: boolean; checks: Array<{ check: string; verified: boolean; reason?: string }> }
    }
    expect(await verifyHere(list)).toMatchObject({ verified: true, issuer: issuer.did })
    const suite = new di.DataIntegrityProof({ cryptosuite: suiteLib.cryptosuite })
    const outside = () => checkStatus({ credential: vc, documentLoader, suite } as never)
    expect(await outside()).toMatchObject({ verified: true, results: [{ verified: true, status: false }] })

    const before = await verifyHere(vc)
    expect(before.verified, JSON.stringify(before.checks)).toBe(true)
    expect(before.checks.filter((c) => c.check === 'status')).toMatchObject([{ check: 'status', verified: true }])

    const revoked = await h.request('POST', '/claims/status', {
      json: { items: [{ id, purpose: 'revocation', value: true }] },
      didAuth: issuer.jwt,
    })
    expect(revoked.body.errors).toEqual([])
    await h.service.publishStatusLists()
    const after = await verifyHere(vc)
    expect(after.verified).toBe(false)
    expect(after.checks.filter((c) => c.check === 'status')).toMatchObject([{ check: 'status', verified: false, reason: 'revoked' }])
    const republished = await fetchList(url)
    expect(republished.proof).toMatchObject({ type: 'DataIntegrityProof', cryptosuite })
    expect(await outside()).toMatchObject({ verified: true, results: [{ verified: true, status: true }] })
    // A list with another issuer named no longer verifies.
    const reissued = { ...republished, issuer: 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK' }
    expect((await verifyHere(reissued)).verified).toBe(false)
  })

  it('a list stored with a proof of another suite is signed again with the default one when next served, its version unchanged', async () => {
    const issuer = await keyWallet(keyType)
    const jcs = cryptosuite.replace('rdfc', 'jcs')
    const signed = await h.request('POST', '/claims/sign', {
      json: { iss: issuer.did, context: CREDENTIALS_V2_URL, status: { purposes: ['suspension'] }, claims: [{ payload: { n: 2 } }] },
      didAuth: issuer.jwt,
    })
    expect(signed.status, JSON.stringify(signed.body)).toBe(200)
    const url = (signed.body.vcs[0].jsonld.credentialStatus as { statusListCredential: string }).statusListCredential
    const listId = url.slice(url.lastIndexOf('/') + 1)
    const first = await fetchList(url)
    const lists = h.storage.collection('status_lists')
    const stored = (await lists.get(listId))!
    // As if stored with a JCS proof of the issuer's key: another suite than the list suite of its key type.
    const other = { ...first, proof: { ...(first.proof as object), cryptosuite: jcs } }
    await lists.update(listId, { credential: other, etag: '"other-suite"', signedAt: stored.signedAt })

    const next = await fetchList(url)
    expect(next.proof).toMatchObject({ type: 'DataIntegrityProof', cryptosuite })
    expect(next.credentialSubject).toEqual(first.credentialSubject)
    expect(await lists.get(listId)).toMatchObject({ version: stored.version, signedVersion: stored.signedVersion })
  })
})

describe('hasRetiredProof', () => {
  const list = (proof: unknown) => ({ credential: { '@context': [CREDENTIALS_V2_URL], proof } })
  it('keeps the list suites (Recovery2020, ecdsa-rdfc-2019, eddsa-rdfc-2022) and a JWT list; retires the others', () => {
    expect(hasRetiredProof(list({ type: 'EcdsaSecp256k1RecoverySignature2020' }))).toBe(false)
    expect(hasRetiredProof(list({ type: 'DataIntegrityProof', cryptosuite: 'ecdsa-rdfc-2019' }))).toBe(false)
    expect(hasRetiredProof(list({ type: 'DataIntegrityProof', cryptosuite: 'eddsa-rdfc-2022' }))).toBe(false)
    expect(hasRetiredProof({ credential: 'eyJ.a.b' })).toBe(false)
    expect(hasRetiredProof(list({ type: 'EcdsaKoblitzSignature2016' }))).toBe(true)
    expect(hasRetiredProof(list({ type: 'DataIntegrityProof', cryptosuite: 'ecdsa-jcs-2019' }))).toBe(true)
    expect(hasRetiredProof(list({ type: 'DataIntegrityProof' }))).toBe(true)
    expect(hasRetiredProof(list([{ type: 'EcdsaSecp256k1RecoverySignature2020' }, null]))).toBe(true)
  })
})
