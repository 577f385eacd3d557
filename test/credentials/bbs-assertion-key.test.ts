/**
 * A did:web wallet's BBS assertion key (`walletConfig.bbsKey`) through the router on loopback HTTP (SQLite file): the
 * wallet's served did.json lists it as the `#bbs-0` Multikey under `assertionMethod` only; Sign Verifiable Credentials
 * with `cryptosuite: "bbs-2023"` and `mandatoryPointers` signs the base proof with it; a holder of another tenant
 * derives; `/claims/verify` verifies the derived credential (a tampered one fails); @digitalbazaar/vc verifies it
 * against our served did.json. The BLS secret is in the file only sealed; deleting the wallet destroys the key (past
 * versions of the document still list it); every other way to ask for a BBS key, or bbs-2023 by a wallet without one,
 * is 422 with nothing written.
 *
 * The digitalbazaar packages are ESM-only: loaded with `import()` of a specifier held in a variable.
 */
import { existsSync, readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openKeyring } from '../../src/custody/keyring-store.js'
import { SEALED_KEYS, sealedKeyId, type SealedKeyRecord } from '../../src/keys/backends/sealed/index.js'
import { randomMasterKey } from '../../src/keys/keyring.js'
import { secretContext } from '../../src/keys/secret-context.js'
import { documentLoader as contexts } from '../../src/proofs/jsonld/document-loader.js'
import type { WalletRecord } from '../../src/wallets/records.js'
import { expectError, snapshot, startHarness, TENANT_A, TENANT_B, type Harness } from '../helpers/harness.js'

const importEsm = (specifier: string): Promise<any> => import(specifier)
const V2 = 'https://www.w3.org/ns/credentials/v2'
const PUBLIC_URL = 'https://vault.example.com/id'
const MANDATORY = ['/issuer', '/credentialSubject/degree']
const masterKey = randomMasterKey()

let h: Harness
let issuer: { did: string; jwt: string; walletId: string }
let holder: { did: string; jwt: string }
let base: Record<string, any>

const walletId = (did: string) => did.split(':').pop()!
const served = async (did: string) => (await h.request('GET', `/dids/${walletId(did)}/did.json`, { token: null })).body
const makeWallet = async (walletConfig: Record<string, unknown>, token = TENANT_A) => {
  const made = await h.request('POST', '/wallet', { json: { walletConfig }, token })
  expect(made.status, JSON.stringify(made.body)).toBe(200)
  const did: string = made.body.wallet.did
  const jwt = (await h.request('POST', '/did-auth-jwt', { json: { iss: did }, token })).body.jwt as string
  return { did, jwt, walletId: made.body.wallet._id as string }
}
const signBbs = (iss: { did: string; jwt: string }) =>
  h.request('POST', '/claims/sign', {
    json: {
      iss: iss.did,
      context: [V2],
      sub: holder.did,
      cryptosuite: 'bbs-2023',
      mandatoryPointers: MANDATORY,
      claims: [{ id: 'urn:uuid:0b7c3c52-48f4-4a43-8f5e-2d0f3c1b9a11', payload: { degree: 'BSc', name: 'Alice', birthYear: 2001 } }],
    },
    didAuth: iss.jwt,
  })
const derive = (jsonld: unknown, selectivePointers: string[]) =>
  h.request('POST', '/presentations/derive', { json: { jsonld, selectivePointers }, token: TENANT_B, didAuth: holder.jwt })
const verify = async (jsonld: unknown) => {
  const res = await h.request('POST', '/claims/verify', { json: { vcs: [{ jsonld }] }, token: TENANT_B, didAuth: holder.jwt })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body.vcs[0]
}
const walletRecord = async (did: string) =>
  (await h.storage.collection<WalletRecord>('wallets').find({ field: 'did', op: 'eq', value: did }, { limit: 1 })).items[0]
const sealedRecord = (tenantId: string, keyRef: string) =>
  h.storage.collection<SealedKeyRecord>(SEALED_KEYS.name).get(sealedKeyId(tenantId, keyRef.slice('sealed:'.length)))

beforeAll(async () => {
  h = await startHarness({ storage: 'sqlite', service: { publicUrl: PUBLIC_URL, masterKey } })
  holder = await makeWallet({ didMethod: 'key', keyType: 'Ed25519' }, TENANT_B)
  issuer = await makeWallet({ didMethod: 'web', keyType: 'Ed25519', bbsKey: true })
  const signed = await signBbs(issuer)
  expect(signed.status, JSON.stringify(signed.body)).toBe(200)
  base = signed.body.vcs[0].jsonld
})
afterAll(() => h.close())

describe('a did:web wallet with a BBS assertion key signs bbs-2023 through Sign Verifiable Credentials', () => {
  it('its served did.json lists #bbs-0 (a BLS12-381 G2 Multikey) under assertionMethod only', async () => {
    const document = await served(issuer.did)
    const bbs = `${issuer.did}#bbs-0`
    const method = document.verificationMethod.find((m: { id: string }) => m.id === bbs)
    // A did:key-style multibase of a 96-byte G2 key under the bls12_381-g2-pub codec starts zUC7.
    expect(method).toMatchObject({ type: 'Multikey', controller: issuer.did, publicKeyMultibase: expect.stringMatching(/^zUC7/) })
    expect(document.assertionMethod).toEqual([`${issuer.did}#key-0`, bbs])
    expect(document.authentication).toEqual([`${issuer.did}#key-0`])
    for (const relation of ['capabilityInvocation', 'capabilityDelegation', 'keyAgreement'])
      expect(document[relation] ?? [], relation).not.toContain(bbs)
    // The record keeps the key's public JWK and its key-port reference; the response shows the wallet's own key.
    const record = await walletRecord(issuer.did)
    expect(record.bbsKey).toMatchObject({ keyRef: expect.stringMatching(/^sealed:/), publicKeyJwk: { kty: 'OKP', crv: 'Bls12381G2' } })
  })

  it('the base proof is bbs-2023 by #bbs-0 with the mandatory pointers; derived in another tenant, it verifies; tampered, not', async () => {
    expect(base.proof).toMatchObject({
      type: 'DataIntegrityProof',
      cryptosuite: 'bbs-2023',
      proofPurpose: 'assertionMethod',
      verificationMethod: `${issuer.did}#bbs-0`,
    })
    expect(base.proof.proofValue).toMatch(/^u2V0C/)
    expect((await verify(base)).verified).toBe(false)
    const res = await derive(base, ['/credentialSubject/name'])
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const derived = res.body.jsonld
    expect(derived.proof.proofValue).toMatch(/^u2V0D/)
    expect(derived.credentialSubject).toEqual({ id: holder.did, degree: 'BSc', name: 'Alice' })
    const checked = await verify(derived)
    expect(checked.verified, JSON.stringify(checked.checks)).toBe(true)
    expect(checked.issuer).toBe(issuer.did)
    const tampered = await verify({ ...derived, credentialSubject: { ...derived.credentialSubject, name: 'Mallory' } })
    expect(tampered.verified).toBe(false)
    expect(tampered.checks[0]).toMatchObject({ check: 'proof', verified: false })
  })

  it('@digitalbazaar/vc verifies the derived credential against our served did.json', async () => {
    const [dataIntegrity, vcLib, bbs] = await Promise.all(
      ['@digitalbazaar/data-integrity', '@digitalbazaar/vc', '@digitalbazaar/bbs-2023-cryptosuite'].map(importEsm),
    )
    const derived = (await derive(base, ['/credentialSubject/birthYear'])).body.jsonld
    expect(derived.credentialSubject).toEqual({ id: holder.did, degree: 'BSc', birthYear: 2001 })
    const didDocument = await served(issuer.did)
    const documentLoader = async (url: string) => {
      if (!url.startsWith('did:')) return contexts(url)
      const [did, fragment] = url.split('#')
      if (did !== issuer.did) throw new Error(`not this test's DID: ${url}`)
      const method = didDocument.verificationMethod.find((m: { id: string }) => m.id === url)
      const document = fragment === undefined ? didDocument : { '@context': didDocument['@context'], ...method }
      return { contextUrl: null, documentUrl: url, document }
    }
    const suite = new dataIntegrity.DataIntegrityProof({ cryptosuite: bbs.createVerifyCryptosuite() })
    const theirs = await vcLib.verifyCredential({ credential: derived, suite, documentLoader })
    expect(theirs.verified, JSON.stringify(theirs.error ?? theirs.results)).toBe(true)
    const forged = { ...derived, credentialSubject: { ...derived.credentialSubject, birthYear: 1990 } }
    expect((await vcLib.verifyCredential({ credential: forged, suite, documentLoader })).verified).toBe(false)
  })

  it('the BLS secret key is in the SQLite file and its WAL only sealed', async () => {
    const { bbsKey, tenantId } = await walletRecord(issuer.did)
    const record = (await sealedRecord(tenantId, bbsKey!.keyRef))!
    expect(record.type).toBe('Bls12381G2')
    const keyring = await openKeyring(h.storage, masterKey)
    const secretKey = Buffer.from(keyring.open(record.privateKey, secretContext(SEALED_KEYS.name, record, 'privateKey')))
    expect(secretKey).toHaveLength(32)
    const path = h.dbPath!
    const file = Buffer.concat([path, `${path}-wal`].filter((p) => existsSync(p)).map((p) => readFileSync(p)))
    for (const form of [secretKey, Buffer.from(secretKey.toString('hex')), Buffer.from(secretKey.toString('base64url'))])
      expect(file.includes(form)).toBe(false)
    expect(file.includes(Buffer.from(record.privateKey))).toBe(true)
  })
})

describe('wrong combinations: 422, nothing written', () => {
  it('bbs-2023 by a wallet without a BBS assertion key says so', async () => {
    const plain = await makeWallet({ didMethod: 'web', keyType: 'P-256' })
    const before = await snapshot(h)
    const res = await signBbs(plain)
    expectError(res, 422, 'VALIDATION_ERROR')
    expect(res.body.errorMessage).toContain(`${plain.did} has no BBS assertion key`)
    expect(await snapshot(h)).toEqual(before)
  })

  it('bbsKey on did:key, did:jwk, did:ethr, a secp256k1 did:web wallet, vaults, claim DIDs and Configure Wallet', async () => {
    const bbsKey = true
    const attempts: Array<[string, string, unknown, string]> = [
      ['POST', '/wallet', { walletConfig: { didMethod: 'key', keyType: 'Ed25519', bbsKey } }, 'a did:key DID is its one key'],
      ['POST', '/wallet', { walletConfig: { didMethod: 'jwk', keyType: 'P-256', bbsKey } }, 'a did:jwk DID is its one key'],
      ['POST', '/wallet', { walletConfig: { didMethod: 'ethr', bbsKey } }, 'a did:ethr DID lists no such key'],
      ['POST', '/wallet', { walletConfig: { didMethod: 'web', keyType: 'secp256k1', bbsKey } }, 'not secp256k1'],
      ['POST', '/vaults', { name: 'bbs', hierarchy: 'NONE', walletConfig: { didMethod: 'web', keyType: 'P-256', bbsKey } }, 'vaults'],
      ['POST', '/vaults', { name: 'bbs', hierarchy: 'BIP44', walletConfig: { didMethod: 'web', keyType: 'P-256', bbsKey } }, 'vaults'],
      [
        'POST',
        '/claims/sign',
        { iss: issuer.did, claims: [{ payload: { degree: 'BSc' }, walletConfig: { didMethod: 'web', keyType: 'P-256', bbsKey } }] },
        'claim DIDs',
      ],
      ['POST', '/wallet/configure', { wallet: { did: issuer.did }, walletConfig: { bbsKey } }, 'a wallet’s later changes'],
    ]
    const before = await snapshot(h)
    for (const [method, path, json, why] of attempts) {
      const res = await h.request(method, path, { json, didAuth: issuer.jwt })
      expectError(res, 422, 'VALIDATION_ERROR')
      expect(res.body.errorMessage, `${path} ${JSON.stringify(json)}`).toContain('walletConfig.bbsKey: a BBS assertion key is made with')
      expect(res.body.errorMessage).toContain(why)
    }
    expect(await snapshot(h)).toEqual(before)
  })

  it('Add Proof never signs bbs-2023, even by a wallet with a BBS assertion key (its own key is no BLS key)', async () => {
    const before = await snapshot(h)
    const json = { iss: issuer.did, cryptosuite: 'bbs-2023', vcs: [{ jsonld: base }] }
    const res = await h.request('POST', '/claims/proofs', { json, didAuth: issuer.jwt })
    expectError(res, 422, 'VALIDATION_ERROR')
    expect(res.body.errorMessage).toContain('Bls12381G2')
    expect(await snapshot(h)).toEqual(before)
  })

  it('a wallet that is not stored (its alias taken) leaves no BBS key behind', async () => {
    const before = await snapshot(h)
    const json = { wallet: { alias: issuer.did }, walletConfig: { didMethod: 'web', keyType: 'P-256', bbsKey: true } }
    const res = await h.request('POST', '/wallet', { json })
    expectError(res, 422, 'CONFLICT')
    expect(await snapshot(h)).toEqual(before)
  })
})

describe('a newOwner', () => {
  it('removes #bbs-0 with #key-0 from the document: the service’s keys no longer speak for the DID', async () => {
    const handed = await makeWallet({ didMethod: 'web', keyType: 'Ed25519', bbsKey: true })
    const json = { wallet: { did: handed.did }, walletConfig: { txsInput: [{ newOwner: holder.did }] } }
    const res = await h.request('POST', '/wallet/configure', { json, didAuth: handed.jwt })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.wallet.registry.errors).toEqual([])
    const document = await served(handed.did)
    expect(document.controller).toBe(holder.did)
    expect(JSON.stringify(document)).not.toContain('#bbs-0')
    expect(JSON.stringify(document)).not.toContain('#key-0')
  })
})

describe('deleting the wallet', () => {
  it('destroys its BBS key; the DID is deactivated and its first version still lists #bbs-0', async () => {
    const doomed = await makeWallet({ didMethod: 'web', keyType: 'P-256', bbsKey: true })
    const { bbsKey, tenantId } = await walletRecord(doomed.did)
    expect(await sealedRecord(tenantId, bbsKey!.keyRef)).toBeDefined()
    const res = await h.request('DELETE', '/wallet', { json: { ids: [doomed.did] }, didAuth: doomed.jwt })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.ids).toEqual([doomed.did])
    expect(await sealedRecord(tenantId, bbsKey!.keyRef)).toBeUndefined()
    const now = await h.request('GET', `/1.0/identifiers/${encodeURIComponent(doomed.did)}`)
    expect(now.body.didDocumentMetadata).toMatchObject({ deactivated: true })
    const first = await h.request('GET', `/1.0/identifiers/${encodeURIComponent(`${doomed.did}?versionId=0`)}`)
    expect(first.status, JSON.stringify(first.body)).toBe(200)
    expect(first.body.didDocument.assertionMethod).toContain(`${doomed.did}#bbs-0`)
  })
})
