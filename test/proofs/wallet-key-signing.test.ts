/**
 * What a wallet signs, signed by the wallet's key whatever its type (src/wallets/signers.ts →
 * `KeySigner`): for did:key and did:jwk wallets of secp256k1, P-256 and Ed25519 keys (sealed
 * backend, real SQLite file), the DID-auth token and the VC-JWT carry the key type's algorithm
 * (ES256K, ES256, EdDSA) and the `kid` of the verification method the DID's document lists, and
 * verify in independent verifiers (did-jwt's `verifyJWT`, did-jwt-vc's `verifyCredential`)
 * through key-did-resolver and Veramo's did:jwk resolver; a P-256/Ed25519 DID-auth token's
 * JSON-LD form has a Data Integrity proof, and JSON-LD issuance with those keys takes their Data Integrity suite
 * (credentials v2; a credentials/v1 one with the Data Integrity v2 context appended). Forged (another key) and expired
 * JWTs are refused by the same verifiers.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { getDidJwkResolver } from '@veramo/did-provider-jwk'
import { decodeJWT, verifyJWT } from 'did-jwt'
import { verifyCredential } from 'did-jwt-vc'
import { Resolver } from 'did-resolver'
import KeyDidResolver from 'key-did-resolver'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { issueJsonLdCredential } from '../../src/credentials/formats/jsonld/issue.js'
import { verifyJsonLd } from '../../src/proofs/jsonld/index.js'
import { issueJwtCredential } from '../../src/credentials/formats/jwt/issue.js'
import type { CredentialContent } from '../../src/credentials/formats/index.js'
import { KeyCustody } from '../../src/custody/key-custody.js'
import { didMethodNamed, didMethodNames } from '../../src/did/methods/index.js'
import { SEALED_KEYS, SealedKeyBackend } from '../../src/keys/backends/sealed/index.js'
import { KEY_TYPES, type KeyType } from '../../src/keys/key-types.js'
import { Keyring, randomMasterKey } from '../../src/keys/keyring.js'
import { BackendKeyManager } from '../../src/keys/port.js'
import { createSqliteStorage } from '../../src/storage/sqlite/index.js'
import type { StorageAdapter } from '../../src/storage/port.js'
import { issueDidAuthToken } from '../../src/tokens/did-auth-credential.js'
import { WalletSigners } from '../../src/wallets/signers.js'

const ALG: Record<KeyType, string> = { secp256k1: 'ES256K', 'P-256': 'ES256', Ed25519: 'EdDSA' }

let dir: string
let storage: StorageAdapter
let keys: BackendKeyManager
let signers: WalletSigners

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'didvault-wallet-signing-'))
  storage = createSqliteStorage({ path: join(dir, 'db.sqlite') })
  await storage.init([SEALED_KEYS])
  const keyring = new Keyring(randomMasterKey())
  keys = new BackendKeyManager({ sealed: new SealedKeyBackend(storage, keyring) }, 'sealed')
  const noMpc = { signerFor: () => expect.unreachable(), authorize: () => expect.unreachable() }
  signers = new WalletSigners(new KeyCustody(keyring), keys, noMpc)
})
afterAll(async () => {
  await storage.close()
  rmSync(dir, { recursive: true, force: true })
})

/** Our resolver over the method registry, and the independent ones. */
const ours = new Resolver(Object.fromEntries(didMethodNames().map((name) => [name, (did) => didMethodNamed(name)!.resolve(did)])), {
  cache: false,
})
const theirs = new Resolver({ ...KeyDidResolver.getResolver(), ...getDidJwkResolver() }, { cache: false })

/** A wallet of `method` over a new port key of `type` (what H1's Generate Identity Wallet records). */
async function wallet(type: KeyType, method: string) {
  const { keyRef, publicJwk } = await keys.createKey({ tenantId: 't', type })
  const { did } = await didMethodNamed(method)!.create({ publicJwk })
  const document = (await didMethodNamed(method)!.resolve(did)).didDocument!
  const record = { tenantId: 't', id: did, did, keyRef, publicKeyJwk: publicJwk, publicKeyHex: '', ethereumAddress: '' }
  return { did, document, signer: signers.signerFor(record) }
}

const content = (issuer: string, issuedAt: number, expiresAt?: number): CredentialContent => ({
  id: 'urn:uuid:5b7c9d1e-0000-4000-8000-000000000001',
  issuer,
  subject: 'did:example:holder',
  claims: { degree: 'BSc' },
  contexts: [],
  types: [],
  issuedAt,
  ...(expiresAt !== undefined && { expiresAt }),
})

describe('a wallet signs with its own key, under its key type’s algorithm', () => {
  for (const type of KEY_TYPES) {
    for (const method of ['key', 'jwk']) {
      it(`${type} did:${method}: DID-auth token and VC-JWT verify in did-jwt / did-jwt-vc; forged and expired ones do not`, async () => {
        const { did, document, signer } = await wallet(type, method)
        const kid = document.authentication![0] as string
        const now = Date.now()

        const token = await issueDidAuthToken({
          issuer: did,
          signer,
          issuedAt: now,
          expiresAt: now + 600_000,
          audience: 'aud',
          resolver: ours,
        })
        expect(decodeJWT(token.jwt).header).toMatchObject({ alg: ALG[type], kid })
        expect(token.verifications.issuer).toBe(did)
        // JSON-LD too, with the key type's default suite (before issue 32: none for P-256/Ed25519).
        expect(token.jsonld).toMatchObject({ proof: { type: type === 'secp256k1' ? 'EcdsaKoblitzSignature2016' : 'DataIntegrityProof' } })
        expect((await verifyJWT(token.jwt, { resolver: theirs, audience: 'aud' })).issuer).toBe(did)

        const jwt = await issueJwtCredential(content(did, now), signer)
        expect(decodeJWT(jwt).header).toMatchObject({ alg: ALG[type], kid })
        const verified = await verifyCredential(jwt, theirs)
        expect(verified.issuer).toBe(did)
        expect(verified.verifiableCredential.credentialSubject).toMatchObject({ degree: 'BSc' })

        // forged: the same credential signed by another key of the same type, claimed by this DID
        const other = await wallet(type, method)
        const forged = (await issueJwtCredential(content(did, now), other.signer)).split('.')
        const spliced = [jwt.split('.')[0], forged[1], forged[2]].join('.')
        await expect(verifyCredential(spliced, theirs)).rejects.toThrow(/signature/i)
        const forgedToken = token.jwt.split('.').slice(0, 2).concat(forged[2]).join('.')
        await expect(verifyJWT(forgedToken, { resolver: theirs, audience: 'aud' })).rejects.toThrow(/signature/i)

        // expired
        const expired = await issueJwtCredential(content(did, now - 7_200_000, now - 3_600_000), signer)
        await expect(verifyCredential(expired, theirs)).rejects.toThrow(/expired/i)
      })
    }

    if (type !== 'secp256k1')
      it(`${type}: JSON-LD issuance (credentials v2) takes the Data Integrity default and verifies; credentials v1 too, with the Data Integrity context`, async () => {
        const { did, signer } = await wallet(type, 'key')
        const v2 = { ...content(did, Date.parse('2026-01-01T00:00:00Z')), contexts: ['https://www.w3.org/ns/credentials/v2'] }
        const signed = await issueJsonLdCredential(v2, signer, { resolver: ours })
        const cryptosuite = type === 'P-256' ? 'ecdsa-rdfc-2019' : 'eddsa-rdfc-2022'
        const method = (await ours.resolve(did)).didDocument!.assertionMethod![0]
        expect(signed.proof).toEqual({
          type: 'DataIntegrityProof',
          cryptosuite,
          created: '2026-01-01T00:00:00Z',
          verificationMethod: method,
          proofPurpose: 'assertionMethod',
          proofValue: expect.stringMatching(/^z[1-9A-HJ-NP-Za-km-z]+$/),
        })
        const verified = await verifyJsonLd(signed, { resolveSigningKeys: async () => [], resolver: ours })
        expect(verified).toMatchObject({ verified: true, proofs: [{ did, verified: true }] })
        // Credentials v1 takes the Data Integrity v2 context, appended (before issue 32's v1 support: 422).
        const v1 = await issueJsonLdCredential(content(did, Date.now()), signer, { resolver: ours })
        expect([v1['@context']].flat().at(-1)).toBe('https://w3id.org/security/data-integrity/v2')
        expect(v1.proof).toMatchObject({ type: 'DataIntegrityProof', cryptosuite })
        expect(await verifyJsonLd(v1, { resolveSigningKeys: async () => [], resolver: ours })).toMatchObject({ verified: true })
      })
  }
})
