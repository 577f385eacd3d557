/**
 * Every operation that signs, with HSM wallets (`walletConfig.keyManagement: "HSM"`, keys generated in a real SoftHSM2
 * token through `pkcs11(...)` of `didvault/pkcs11`) of each key type, through the router on loopback HTTP (SQLite file),
 * each result verified by an implementation outside didvault:
 * - DID-auth tokens (`POST /did-auth-jwt`): did-jwt's `verifyJWT` through key-did-resolver / Veramo's did:jwk resolver;
 * - VC-JWTs: did-jwt-vc's `verifyCredential`; SD-JWT VCs: `@sd-jwt/sd-jwt-vc` with node:crypto verifiers;
 * - JSON-LD credentials: digitalbazaar's `@digitalbazaar/vc` with the key type's Data Integrity cryptosuite
 *   (ecdsa-rdfc-2019 / eddsa-rdfc-2022) for P-256 / Ed25519, transmute's EcdsaSecp256k1RecoverySignature2020 suite on
 *   jsonld-signatures for secp256k1 (a did:ethr issuer: the 2020 suite recovers an Ethereum address);
 * - presentations: VP-JWTs by did-jwt-vc's `verifyPresentation` (nonce), JSON-LD presentations by digitalbazaar's
 *   `verifyPresentation` (challenge) or the transmute suite's `AuthenticationProofPurpose`;
 * - status lists: a credential with status, its list fetched over HTTP and checked by
 *   `@digitalbazaar/vc-bitstring-status-list`'s `checkStatus` (the list's proof verified), before and after revocation;
 * - DID-document updates: a did:web wallet's `txsInput` (authorized by its HSM-signed DID-auth token) served in its
 *   did.json; a did:ethr wallet's changes signed by its HSM key as EthereumDIDRegistry meta-transactions on a local EVM
 *   (ganache) — the contract's `ecrecover` is the verifier — and read back by ethr-did-resolver from the chain.
 * BBS keys are never HSM keys (422). After all of it, the SQLite file holds no private key of any HSM wallet in any
 * encoding we can search for, and the HSM wallets' records hold the key reference and public key only.
 */
import { createRequire } from 'node:module'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { digest } from '@sd-jwt/crypto-nodejs'
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc'
import { getDidJwkResolver } from '@veramo/did-provider-jwk'
import { checkStatus } from '@digitalbazaar/vc-bitstring-status-list'
import { decodeJWT, verifyJWT } from 'did-jwt'
import { verifyCredential, verifyPresentation } from 'did-jwt-vc'
import { Resolver } from 'did-resolver'
import { getResolver as ethrResolver } from 'ethr-did-resolver'
import KeyDidResolver from 'key-did-resolver'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { pkcs11, type Pkcs11Module } from '../../src/pkcs11.js'
import { CREDENTIALS_V2_URL, type JsonLdDocument } from '../../src/proofs/jsonld/index.js'
import { documentLoader as contexts } from '../../src/proofs/jsonld/document-loader.js'
import type { WalletRecord } from '../../src/wallets/records.js'
import { nodeVerifier } from '../credentials/sd-jwt/helpers.js'
import { startEvm, type LocalEvm } from '../helpers/evm.js'
import { expectError, startHarness, type Harness } from '../helpers/harness.js'
import { startSoftHsm, type SoftHsm } from '../helpers/softhsm.js'
import { transmuteDocumentLoader } from '../helpers/transmute.js'

const require = createRequire(import.meta.url)
const { EcdsaSecp256k1RecoverySignature2020 } = require('@transmute/lds-ecdsa-secp256k1-recovery2020')
const jsigs = require('jsonld-signatures')
const importEsm = (specifier: string): Promise<any> => import(specifier)

const PUBLIC_URL = 'https://vault.example.com/id'
const V2 = CREDENTIALS_V2_URL
const KEY_TYPES = ['secp256k1', 'P-256', 'Ed25519'] as const
type KeyType = (typeof KEY_TYPES)[number]
const ALG: Record<KeyType, string> = { secp256k1: 'ES256K', 'P-256': 'ES256', Ed25519: 'EdDSA' }
const CRYPTOSUITE = { 'P-256': 'ecdsa-rdfc-2019', Ed25519: 'eddsa-rdfc-2022' } as const

let token: SoftHsm
let hsm: Pkcs11Module
let evm: LocalEvm
let h: Harness
/** Resolvers outside didvault: did:key, did:jwk, and did:ethr read from the local chain. */
let theirs: Resolver

interface HsmWallet {
  did: string
  _id: string
  jwt: string
  publicKeyJwk: Record<string, string>
}
const made: HsmWallet[] = []

/** An HSM wallet (Generate Identity Wallet), checked to hold its key in the token, and its DID-auth token. */
async function hsmWallet(walletConfig: Record<string, unknown>): Promise<HsmWallet> {
  const res = await h.request('POST', '/wallet', { json: { walletConfig: { keyManagement: 'HSM', ...walletConfig } } })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  const { wallet } = res.body
  expect(wallet.keyManagement).toBe('HSM')
  const record = (await h.storage.collection<WalletRecord>('wallets').get(wallet._id))!
  expect(record.keyRef).toMatch(/^hsm:[0-9a-f]{32}$/)
  const auth = await h.request('POST', '/did-auth-jwt', { json: { iss: wallet.did } })
  expect(auth.status, JSON.stringify(auth.body)).toBe(200)
  const result = { did: wallet.did, _id: wallet._id, jwt: auth.body.jwt, publicKeyJwk: wallet.publicKeyJwk ?? record.publicKeyJwk }
  made.push(result)
  return result
}

const sign = (issuer: HsmWallet, json: Record<string, unknown>) =>
  h.request('POST', '/claims/sign', { json: { iss: issuer.did, ...json }, didAuth: issuer.jwt })
const present = (holder: HsmWallet, json: Record<string, unknown>) =>
  h.request('POST', '/presentations/sign', { json: { holder: holder.did, ...json }, didAuth: holder.jwt })

/** A JSON-LD document loader for digitalbazaar's libraries: DIDs as the router resolves them, our lists over HTTP, contexts. */
async function documentLoader(url: string) {
  if (url.startsWith(`${PUBLIC_URL}/status/`)) {
    const res = await fetch(h.url + url.slice(PUBLIC_URL.length))
    if (res.status !== 200) throw new Error(`GET ${url}: HTTP ${res.status}`)
    return { contextUrl: null, documentUrl: url, document: await res.json() }
  }
  if (!url.startsWith('did:')) return contexts(url)
  const resolved = await h.request('GET', `/1.0/identifiers/${encodeURIComponent(url.split('#')[0])}`, { token: null })
  const didDocument = resolved.body.didDocument ?? resolved.body
  const document = url.includes('#')
    ? { '@context': didDocument['@context'], ...didDocument.verificationMethod.find((m: { id: string }) => m.id === url) }
    : didDocument
  return { contextUrl: null, documentUrl: url, document }
}

/** jsonld-signatures' loader for the transmute suite: DIDs from the chain (ethr-did-resolver), contexts from the bundle. */
async function transmuteLoader(url: string) {
  if (url.startsWith(`${PUBLIC_URL}/status/`)) return documentLoader(url)
  return transmuteDocumentLoader(theirs, url)
}

/** The proof's options stated in the document's own context (jsonld-signatures 5: see test/credentials/transmute-interop.test.ts). */
const proofInDocumentContext = (document: JsonLdDocument): JsonLdDocument => ({
  ...document,
  proof: { '@context': document['@context'], ...(document.proof as object) },
})

beforeAll(async () => {
  token = startSoftHsm()
  hsm = pkcs11({ module: token.module, tokenLabel: token.tokenLabel, pin: token.pin, sessions: 4 })
  evm = await startEvm()
  const networks = [{ name: 'dev', chainId: evm.chainId, rpcUrl: evm.rpcUrl, registry: evm.registry }]
  h = await startHarness({
    storage: 'sqlite',
    service: { hsm, publicUrl: PUBLIC_URL, statusPublishIntervalMs: 3_600_000, networks, onchain: { dev: { gasPayer: evm.gasPayer } } },
  })
  theirs = new Resolver({ ...KeyDidResolver.getResolver(), ...getDidJwkResolver(), ...ethrResolver({ networks }) }, { cache: false })
}, 60_000)
afterAll(async () => {
  await h?.close()
  await evm?.close()
  token?.stop()
})

describe.each(KEY_TYPES)('a %s HSM wallet (did:key and did:jwk)', (keyType) => {
  it('DID-auth tokens: did-jwt verifies them through key-did-resolver and the did:jwk resolver; they authenticate', async () => {
    for (const didMethod of ['key', 'jwk']) {
      const wallet = await hsmWallet({ keyType, didMethod })
      const { header, payload } = decodeJWT(wallet.jwt)
      expect(header.alg).toBe(ALG[keyType])
      const verified = await verifyJWT(wallet.jwt, { resolver: theirs, audience: payload.aud as string })
      expect(verified.issuer).toBe(wallet.did)
      const checked = await h.request('POST', '/claims/verify', { json: { vcs: [{ jwt: wallet.jwt }] }, didAuth: wallet.jwt })
      expect(checked.status).toBe(200)
      expect(checked.body.vcs[0]).toMatchObject({ verified: true, issuer: wallet.did })
    }
  })

  it('VC-JWT and VP-JWT: did-jwt-vc verifies both (the presentation’s nonce checked)', async () => {
    const wallet = await hsmWallet({ keyType, didMethod: 'key' })
    const signed = await sign(wallet, { format: 'JWT', sub: wallet.did, claims: [{ payload: { degree: 'BSc' } }] })
    expect(signed.status, JSON.stringify(signed.body)).toBe(200)
    const vc: string = signed.body.vcs[0].jwt
    expect(decodeJWT(vc).header.alg).toBe(ALG[keyType])
    await expect(verifyCredential(vc, theirs)).resolves.toMatchObject({ verified: true, issuer: wallet.did })
    const presented = await present(wallet, { format: 'JWT', nonce: 'n-hsm', vcs: [{ jwt: vc }] })
    expect(presented.status, JSON.stringify(presented.body)).toBe(200)
    const vp: string = presented.body.presentation.jwt
    await expect(verifyPresentation(vp, theirs, { challenge: 'n-hsm' })).resolves.toMatchObject({ verified: true, issuer: wallet.did })
    await expect(verifyPresentation(vp, theirs, { challenge: 'n-other' })).rejects.toThrow(/nonce/)
  })

  it('SD-JWT VC: @sd-jwt/sd-jwt-vc verifies it with the disclosed claims, under the wallet’s public key', async () => {
    const wallet = await hsmWallet({ keyType, didMethod: 'jwk' })
    const payload = { given_name: 'Erika', family_name: 'Mustermann', address: { locality: 'Berlin', country: 'DE' } }
    const signed = await sign(wallet, {
      format: 'SD-JWT',
      sub: wallet.did,
      claims: [{ vct: 'https://credentials.example.com/identity', payload, disclose: ['/given_name', '/address/locality'], decoys: 2 }],
    })
    expect(signed.status, JSON.stringify(signed.body)).toBe(200)
    const compact: string = signed.body.vcs[0].sdjwt
    const header = JSON.parse(Buffer.from(compact.split('.')[0], 'base64url').toString())
    expect(header).toMatchObject({ typ: 'dc+sd-jwt', alg: ALG[keyType] })
    const library = new SDJwtVcInstance({ hasher: digest, verifier: nodeVerifier(wallet.publicKeyJwk) })
    const verified = await library.verify(compact)
    expect(verified.payload).toMatchObject({ ...payload, iss: wallet.did, vct: 'https://credentials.example.com/identity' })
    // Another key's verifier refuses it.
    const other = await hsmWallet({ keyType, didMethod: 'jwk' })
    await expect(new SDJwtVcInstance({ hasher: digest, verifier: nodeVerifier(other.publicKeyJwk) }).verify(compact)).rejects.toThrow()
  })
})

describe.each(['P-256', 'Ed25519'] as const)('a %s HSM wallet: Data Integrity proofs', (keyType) => {
  const cryptosuite = CRYPTOSUITE[keyType]
  const suiteOf = async () => {
    const [di, suiteLib] = await Promise.all(['@digitalbazaar/data-integrity', `@digitalbazaar/${cryptosuite}-cryptosuite`].map(importEsm))
    return new di.DataIntegrityProof({ cryptosuite: suiteLib.cryptosuite })
  }

  it.each(['key', 'web'])(
    `did:%s: a JSON-LD credential (${cryptosuite}) and a JSON-LD presentation verify in @digitalbazaar/vc; tampered, not`,
    async (didMethod) => {
      const vcLib = await importEsm('@digitalbazaar/vc')
      const wallet = await hsmWallet({ keyType, didMethod })
      const signed = await sign(wallet, { context: [V2], sub: wallet.did, claims: [{ payload: { name: 'Alice' } }] })
      expect(signed.status, JSON.stringify(signed.body)).toBe(200)
      const credential = signed.body.vcs[0].jsonld
      expect(credential.proof).toMatchObject({ type: 'DataIntegrityProof', cryptosuite })
      const suite = await suiteOf()
      const result = await vcLib.verifyCredential({ credential, suite, documentLoader })
      expect(result.verified, JSON.stringify(result.error)).toBe(true)
      const tampered = { ...credential, credentialSubject: { ...credential.credentialSubject, name: 'Mallory' } }
      expect((await vcLib.verifyCredential({ credential: tampered, suite, documentLoader })).verified).toBe(false)

      const presented = await present(wallet, { format: 'JSON-LD', challenge: 'c-hsm', vcs: [{ jsonld: credential }] })
      expect(presented.status, JSON.stringify(presented.body)).toBe(200)
      const presentation = presented.body.presentation.jsonld
      expect(presentation.proof).toMatchObject({ type: 'DataIntegrityProof', cryptosuite, challenge: 'c-hsm' })
      const checked = await vcLib.verify({ presentation, suite, documentLoader, challenge: 'c-hsm' })
      expect(checked.verified, JSON.stringify(checked.error ?? checked.presentationResult)).toBe(true)
      expect((await vcLib.verify({ presentation, suite, documentLoader, challenge: 'c-other' })).verified).toBe(false)
    },
  )

  it(`status: the Bitstring Status List is signed by the HSM key (${cryptosuite}); checkStatus verifies it, before and after revocation`, async () => {
    const wallet = await hsmWallet({ keyType, didMethod: 'key' })
    const id = `urn:uuid:35e00000-0000-4000-8000-00000000000${keyType === 'P-256' ? 1 : 2}`
    const signed = await sign(wallet, { context: V2, status: { purposes: ['revocation'] }, claims: [{ id, payload: { n: 1 } }] })
    expect(signed.status, JSON.stringify(signed.body)).toBe(200)
    const vc = signed.body.vcs[0].jsonld as JsonLdDocument
    const url = (vc.credentialStatus as { statusListCredential: string }).statusListCredential
    const list = (await documentLoader(url)).document
    expect(list.proof).toMatchObject({ type: 'DataIntegrityProof', cryptosuite })
    expect(list.proof.verificationMethod.startsWith(`${wallet.did}#`)).toBe(true)
    const suite = await suiteOf()
    const outside = () => checkStatus({ credential: vc, documentLoader, suite } as never)
    expect(await outside()).toMatchObject({ verified: true, results: [{ verified: true, status: false }] })
    const revoked = await h.request('POST', '/claims/status', {
      json: { items: [{ id, purpose: 'revocation', value: true }] },
      didAuth: wallet.jwt,
    })
    expect(revoked.body.errors).toEqual([])
    await h.service.publishStatusLists()
    expect(await outside()).toMatchObject({ verified: true, results: [{ verified: true, status: true }] })
    // The list with another issuer named: its signature no longer verifies.
    const forged = await checkStatus({
      credential: vc,
      suite,
      documentLoader: async (u: string) => {
        const loaded = await documentLoader(u)
        return u === url
          ? { ...loaded, document: { ...loaded.document, issuer: 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK' } }
          : loaded
      },
    } as never)
    expect(forged.verified).toBe(false)
  })

  it('did:web update: txsInput authorized by the HSM-signed DID-auth token, served in did.json', async () => {
    const wallet = await hsmWallet({ keyType, didMethod: 'web' })
    const res = await h.request('POST', '/wallet/configure', {
      json: {
        wallet: { did: wallet.did },
        walletConfig: { txsInput: [{ service: { name: 'HsmHub', value: 'https://hub.example.com/hsm', validity: 3_600_000 } }] },
      },
      didAuth: wallet.jwt,
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.wallet.registry.errors).toEqual([])
    const served = await h.request('GET', `/dids/${wallet.did.split(':').pop()}/did.json`, { token: null })
    expect(served.status).toBe(200)
    expect(served.body.service).toEqual([expect.objectContaining({ type: 'HsmHub', serviceEndpoint: 'https://hub.example.com/hsm' })])
    // A token signed by another HSM wallet's key in this DID's name does not authorize a change.
    const other = await hsmWallet({ keyType, didMethod: 'web' })
    const [head, body] = wallet.jwt.split('.')
    const forged = `${head}.${body}.${other.jwt.split('.')[2]}`
    const refused = await h.request('POST', '/wallet/configure', {
      json: { wallet: { did: wallet.did }, walletConfig: { txsInput: [] } },
      didAuth: forged,
    })
    expectError(refused, 403, 'UNAUTHENTICATED')
  })
})

describe('a secp256k1 HSM wallet on did:ethr (EthereumDIDRegistry on a local EVM)', () => {
  let wallet: HsmWallet
  beforeAll(async () => {
    // Generate Identity Wallet writes its txsInput as meta-transactions the HSM key signs (ES256K-R over the registry's hash).
    wallet = await hsmWallet({
      keyType: 'secp256k1',
      didMethod: 'ethr',
      apiUrl: evm.rpcUrl,
      txsInput: [{ service: { name: 'HsmHub', value: 'https://hub.example.com/ethr', validity: 3_600_000 } }],
    })
  })

  it('its DID-document changes are signed by the HSM key: the registry contract accepts them, ethr-did-resolver reads them from the chain', async () => {
    const first = await theirs.resolve(wallet.did)
    expect(first.didDocument?.service).toEqual([
      expect.objectContaining({ type: 'HsmHub', serviceEndpoint: 'https://hub.example.com/ethr' }),
    ])
    const res = await h.request('POST', '/wallet/configure', {
      json: {
        wallet: { did: wallet.did },
        walletConfig: { txsInput: [{ service: { name: 'HsmHub2', value: 'https://hub2.example.com', validity: 3_600_000 } }] },
      },
      didAuth: wallet.jwt,
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.wallet.registry.errors).toEqual([])
    expect(res.body.wallet.registry.transactions[0].txHash).toMatch(/^0x[0-9a-f]{64}$/)
    const second = await theirs.resolve(wallet.did)
    expect(second.didDocument?.service?.map((s) => s.type).sort()).toEqual(['HsmHub', 'HsmHub2'])
    // Its DID-auth token and a VC-JWT verify through the chain's document.
    await expect(verifyJWT(wallet.jwt, { resolver: theirs, audience: decodeJWT(wallet.jwt).payload.aud as string })).resolves.toMatchObject(
      {
        issuer: wallet.did,
      },
    )
  })

  it('JSON-LD (EcdsaSecp256k1RecoverySignature2020): credential and presentation verify with the transmute suite', async () => {
    const signed = await sign(wallet, {
      proofType: 'EcdsaSecp256k1RecoverySignature2020',
      claims: [{ id: 'urn:uuid:35e00000-0000-4000-8000-0000000000e1', payload: { name: 'Alice' } }],
    })
    expect(signed.status, JSON.stringify(signed.body)).toBe(200)
    const vc = signed.body.vcs[0].jsonld as JsonLdDocument
    const verify = async (document: JsonLdDocument, purpose: unknown) =>
      (
        await jsigs.verify(structuredClone(proofInDocumentContext(document)), {
          suite: new EcdsaSecp256k1RecoverySignature2020(),
          purpose,
          documentLoader: transmuteLoader,
          compactProof: false,
        })
      ).verified
    expect(await verify(vc, new jsigs.purposes.AssertionProofPurpose())).toBe(true)
    const tampered = { ...vc, credentialSubject: { ...(vc.credentialSubject as object), name: 'Mallory' } }
    expect(await verify(tampered, new jsigs.purposes.AssertionProofPurpose())).toBe(false)

    const presented = await present(wallet, { format: 'JSON-LD', challenge: 'c-ethr', domain: 'verifier.example', vcs: [{ jsonld: vc }] })
    expect(presented.status, JSON.stringify(presented.body)).toBe(200)
    const vp = presented.body.presentation.jsonld as JsonLdDocument
    const auth = (challenge: string) => new jsigs.purposes.AuthenticationProofPurpose({ challenge, domain: 'verifier.example' })
    expect(await verify(vp, auth('c-ethr'))).toBe(true)
    expect(await verify(vp, auth('c-other'))).toBe(false)
  })

  it('status: the JSON-LD list signed by the HSM key (Recovery2020) passes checkStatus; the JWT list verifies in did-jwt-vc', async () => {
    const id = 'urn:uuid:35e00000-0000-4000-8000-0000000000e2'
    const signed = await sign(wallet, { context: V2, status: { purposes: ['revocation'] }, claims: [{ id, payload: { n: 2 } }] })
    expect(signed.status, JSON.stringify(signed.body)).toBe(200)
    const vc = signed.body.vcs[0].jsonld as JsonLdDocument
    const url = (vc.credentialStatus as { statusListCredential: string }).statusListCredential
    expect((await documentLoader(url)).document.proof).toMatchObject({ type: 'EcdsaSecp256k1RecoverySignature2020' })
    const outside = () =>
      checkStatus({ credential: vc, documentLoader: transmuteLoader, suite: new EcdsaSecp256k1RecoverySignature2020() } as never)
    expect(await outside()).toMatchObject({ verified: true, results: [{ verified: true, status: false }] })
    expect(
      (await h.request('POST', '/claims/status', { json: { items: [{ id, purpose: 'revocation', value: true }] }, didAuth: wallet.jwt }))
        .body.errors,
    ).toEqual([])
    await h.service.publishStatusLists()
    expect(await outside()).toMatchObject({ verified: true, results: [{ verified: true, status: true }] })

    const jwtSigned = await sign(wallet, { format: 'JWT', status: { purposes: ['revocation'] }, claims: [{ payload: { n: 3 } }] })
    expect(jwtSigned.status, JSON.stringify(jwtSigned.body)).toBe(200)
    const jwt: string = jwtSigned.body.vcs[0].jwt
    await expect(verifyCredential(jwt, theirs)).resolves.toMatchObject({ verified: true, issuer: wallet.did })
    const listUrl = (decodeJWT(jwt).payload as { vc: { credentialStatus: { statusListCredential: string } } }).vc.credentialStatus
      .statusListCredential
    const listRes = await fetch(h.url + listUrl.slice(PUBLIC_URL.length))
    expect(listRes.headers.get('content-type')).toMatch(/^application\/vc\+jwt/)
    await expect(verifyCredential(await listRes.text(), theirs)).resolves.toMatchObject({ verified: true, issuer: wallet.did })
  })
})

describe('what is refused', () => {
  it('a BBS key is never an HSM key: a Bls12381G2 HSM wallet and an HSM wallet with bbsKey are 422, nothing made', async () => {
    const before = (await h.storage.collection<WalletRecord>('wallets').find({ and: [] }, { limit: 10_000 })).items.length
    const bbsWallet = await h.request('POST', '/wallet', { json: { walletConfig: { keyManagement: 'HSM', keyType: 'Bls12381G2' } } })
    expectError(bbsWallet, 422, 'VALIDATION_ERROR')
    expect(bbsWallet.body.errorMessage).toContain('Bls12381G2')
    const bbsKey = await h.request('POST', '/wallet', {
      json: { walletConfig: { keyManagement: 'HSM', didMethod: 'web', keyType: 'P-256', bbsKey: true } },
    })
    // An HSM wallet keeps every key of its DID in the token, which holds no BBS keys: not a sealed key on the side.
    expectError(bbsKey, 422, 'VALIDATION_ERROR')
    expect(bbsKey.body.errorMessage).toContain('walletConfig.bbsKey')
    expect((await h.storage.collection<WalletRecord>('wallets').find({ and: [] }, { limit: 10_000 })).items.length).toBe(before)
  })
})

describe('after all of it', () => {
  it('the HSM wallets’ records hold the key reference and the public key only; no private key in the SQLite file', async () => {
    expect(made.length).toBeGreaterThan(10)
    const records = await Promise.all(made.map((w) => h.storage.collection<WalletRecord>('wallets').get(w._id)))
    for (const record of records) {
      expect(record).toBeDefined()
      expect(record!.keyRef).toMatch(/^hsm:/)
      const serialized = JSON.stringify(record)
      expect(serialized).not.toMatch(/privateKey|"d"\s*:|sealed|envelope|wrapped/i)
    }
    // The hsm_keys records: the reference and the public JWK, no private member.
    const keys = await h.storage.collection<{ id: string; publicJwk: object }>('hsm_keys').find({ and: [] }, { limit: 1000 })
    expect(keys.items.length).toBeGreaterThanOrEqual(made.length)
    for (const key of keys.items) {
      expect(Object.keys(key).sort()).toEqual(expect.arrayContaining(['id', 'keyId', 'publicJwk', 'type']))
      expect(key.publicJwk).not.toHaveProperty('d')
    }
    const bytes = Buffer.concat(readdirSync(h.dir!).map((name) => readFileSync(join(h.dir!, name))))
    const text = bytes.toString('latin1')
    // No private JWK member, no PEM or PKCS#8 key, anywhere in the file (ECS wallets' keys are sealed, not in these forms).
    for (const marker of ['"d":', 'BEGIN PRIVATE KEY', 'BEGIN EC PRIVATE KEY', 'PRIVATE KEY-----'])
      expect(text.includes(marker), `${marker} in the SQLite file`).toBe(false)
    // The sealed key records (the only records holding "privateKey": ciphertext under the master key) are none of an
    // HSM wallet's key: no HSM wallet's public key appears in a sealed record.
    const xs = made.map((w) => w.publicKeyJwk.x)
    let sealed = 0
    for (let at = text.indexOf('"privateKey"'); at !== -1; at = text.indexOf('"privateKey"', at + 1)) {
      sealed++
      const record = text.slice(text.lastIndexOf('{"id"', at), at)
      for (const x of xs) expect(record.includes(x), `an HSM wallet's public key beside a sealed private key`).toBe(false)
    }
    expect(sealed).toBeGreaterThan(0) // the search finds the sealed records it looks at
    for (const x of xs) expect(text.includes(x)).toBe(true) // and the HSM wallets' public keys, which are stored
    expect(text.includes(made[0].did)).toBe(true)
  })
})
