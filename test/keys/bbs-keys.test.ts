/**
 * Bls12381G2 keys in the sealed backend (src/keys/backends/sealed/, `createBbsKey` / `signBbs` on the key port), on a
 * real SQLite file: a key made in the backend signs a bbs-2023 base proof through the port (`portBbsSigner`), which
 * derives and verifies with ours and with @digitalbazaar/vc; the secret key is never in the database file; a BLS key
 * signs no JOSE algorithm, a JOSE key no BBS signature, other tenants' keys nothing, a backend without BLS keys makes
 * none, and over-bound inputs are refused — each a 422 (another tenant's key is `no key`, as an unknown one).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { base58 } from '@scure/base'
import type { DIDDocument } from 'did-resolver'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SEALED_KEYS, SealedKeyBackend, type SealedKeyRecord } from '../../src/keys/backends/sealed/index.js'
import { Keyring, randomMasterKey } from '../../src/keys/keyring.js'
import { BackendKeyManager, MAX_BBS_HEADER_BYTES, type KeyBackend } from '../../src/keys/port.js'
import { portBbsSigner } from '../../src/keys/port-signers.js'
import { secretContext } from '../../src/keys/secret-context.js'
import { bbs2023 } from '../../src/proofs/data-integrity/index.js'
import { documentLoader as contexts } from '../../src/proofs/jsonld/document-loader.js'
import { createSqliteStorage } from '../../src/storage/sqlite/index.js'
import type { StorageAdapter } from '../../src/storage/port.js'
import { fixedResolver } from '../proofs/data-integrity/helpers.js'

let dir: string
let path: string
let storage: StorageAdapter
let keyring: Keyring
let keys: BackendKeyManager

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'didvault-bbs-keys-'))
  path = join(dir, 'db.sqlite')
  storage = createSqliteStorage({ path })
  await storage.init([SEALED_KEYS])
  keyring = new Keyring(randomMasterKey())
  const noBbs: KeyBackend = { createKey: () => Promise.reject(new Error('unused')), find: async () => undefined }
  keys = new BackendKeyManager({ sealed: new SealedKeyBackend(storage, keyring), other: noBbs }, 'sealed')
})
afterAll(async () => {
  await storage.close()
  rmSync(dir, { recursive: true, force: true })
})

const importEsm = (specifier: string): Promise<any> => import(specifier)

describe('Bls12381G2 keys in the sealed backend', () => {
  it('sign a bbs-2023 base proof through the port; derived proofs verify with ours and @digitalbazaar/vc', async () => {
    const { keyRef, publicJwk } = await keys.createBbsKey({ tenantId: 't' })
    expect(keyRef).toMatch(/^sealed:[\w-]{43}$/)
    expect(publicJwk).toMatchObject({ kty: 'OKP', crv: 'Bls12381G2' })
    const publicKey = Buffer.from(publicJwk.x, 'base64url')
    expect(publicKey).toHaveLength(96)
    const multibase = `z${base58.encode(Uint8Array.from([0xeb, 0x01, ...publicKey]))}`
    expect(multibase.startsWith('zUC7')).toBe(true)
    const did = `did:key:${multibase}`
    const verificationMethod = `${did}#${multibase}`
    const method = { id: verificationMethod, type: 'Multikey', controller: did, publicKeyMultibase: multibase }
    const document = { id: did, verificationMethod: [method], assertionMethod: [verificationMethod] } as unknown as DIDDocument
    const credential = {
      '@context': ['https://www.w3.org/ns/credentials/v2', { '@vocab': 'https://example.org/vocab#' }],
      type: ['VerifiableCredential'],
      issuer: did,
      credentialSubject: { name: 'Alice', age: 42 },
    }
    const signer = portBbsSigner(keys, { tenantId: 't', keyRef, publicJwk })
    const base = await bbs2023.sign(credential, signer, { verificationMethod, mandatoryPointers: ['/issuer'] })
    const derived = await bbs2023.derive(base, ['/credentialSubject/age'])
    expect(derived.credentialSubject).toEqual({ age: 42 })
    const resolver = fixedResolver([document])
    expect(
      await bbs2023.verify(derived, derived.proof as Record<string, unknown>, {
        resolver,
        proofPurpose: 'assertionMethod',
        controller: did,
      }),
    ).toEqual({ verified: true, verificationMethod, controller: did })
    const [di, vc, bbs] = await Promise.all(
      ['@digitalbazaar/data-integrity', '@digitalbazaar/vc', '@digitalbazaar/bbs-2023-cryptosuite'].map(importEsm),
    )
    const didDocument = { '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/multikey/v1'], ...document }
    const loader = async (url: string) =>
      url === did
        ? { contextUrl: null, documentUrl: url, document: didDocument }
        : url === verificationMethod
          ? { contextUrl: null, documentUrl: url, document: { '@context': 'https://w3id.org/security/multikey/v1', ...method } }
          : contexts(url)
    const theirs = await vc.verifyCredential({
      credential: derived,
      suite: new di.DataIntegrityProof({ cryptosuite: bbs.createVerifyCryptosuite() }),
      documentLoader: loader,
    })
    expect(theirs.error).toBeUndefined()
    expect(theirs.verified).toBe(true)

    // the secret key is in the file only as its envelope
    const record = (await storage.collection<SealedKeyRecord>(SEALED_KEYS.name).find({ and: [] }, { limit: 10 })).items.find(
      (r) => `sealed:${r.thumbprint}` === keyRef,
    )!
    expect(record.type).toBe('Bls12381G2')
    const secretKey = keyring.open(record.privateKey, secretContext(SEALED_KEYS.name, record, 'privateKey'))
    expect(secretKey).toHaveLength(32)
    // the database file and its write-ahead log
    const file = Buffer.concat([path, `${path}-wal`].filter((p) => existsSync(p)).map((p) => readFileSync(p)))
    for (const form of [
      Buffer.from(secretKey),
      Buffer.from(Buffer.from(secretKey).toString('hex')),
      Buffer.from(Buffer.from(secretKey).toString('base64url')),
    ])
      expect(file.includes(form)).toBe(false)
    expect(file.includes(Buffer.from(record.privateKey))).toBe(true)
  })

  it('refuses: JOSE with a BLS key, BBS with a P-256 key, another tenant, a backend without BLS keys, over-bound input', async () => {
    const bls = await keys.createBbsKey({ tenantId: 't' })
    const p256 = await keys.createKey({ tenantId: 't', type: 'P-256' })
    const header = new Uint8Array(64)
    const messages = [new Uint8Array([1])]
    await expect(keys.sign({ tenantId: 't', keyRef: bls.keyRef, alg: 'ES256', data: header })).rejects.toMatchObject({
      statusCode: 422,
      message: expect.stringContaining('under no JOSE algorithm'),
    })
    await expect(keys.publicKey('t', bls.keyRef)).rejects.toMatchObject({ statusCode: 422 })
    await expect(keys.signBbs({ tenantId: 't', keyRef: p256.keyRef, header, messages })).rejects.toMatchObject({
      statusCode: 422,
      message: 'a P-256 key signs no BBS signatures',
    })
    await expect(keys.signBbs({ tenantId: 'u', keyRef: bls.keyRef, header, messages })).rejects.toMatchObject({
      message: `no key ${bls.keyRef}`,
    })
    await expect(keys.createBbsKey({ tenantId: 't', backend: 'other' })).rejects.toMatchObject({
      statusCode: 422,
      message: 'the other key backend holds no Bls12381G2 keys',
    })
    const long = new Uint8Array(MAX_BBS_HEADER_BYTES + 1)
    await expect(keys.signBbs({ tenantId: 't', keyRef: bls.keyRef, header: long, messages })).rejects.toMatchObject({ statusCode: 422 })
    expect(await keys.signBbs({ tenantId: 't', keyRef: bls.keyRef, header, messages })).toHaveLength(80)
  })
})
