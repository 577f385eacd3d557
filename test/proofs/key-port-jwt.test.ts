/**
 * JWT signing by algorithm through the key port: VC-JWTs signed by P-256 (ES256), Ed25519
 * (EdDSA) and secp256k1 (ES256K) keys of the sealed backend on a real SQLite file, for did:key
 * and did:jwk DIDs made by the method registry (`did/methods`), verify in did-jwt-vc through a
 * resolver built from that registry — and, for did:key, through Ceramic's key-did-resolver, an
 * independent implementation. A signature under an algorithm the key cannot sign is 422.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createVerifiableCredentialJwt, verifyCredential, type JwtCredentialPayload } from 'did-jwt-vc'
import { Resolver } from 'did-resolver'
import KeyDidResolver from 'key-did-resolver'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { didMethodNamed, didMethodNames } from '../../src/did/methods/index.js'
import { SEALED_KEYS, SealedKeyBackend } from '../../src/keys/backends/sealed/index.js'
import type { KeyType, SignatureAlgorithm } from '../../src/keys/key-types.js'
import { Keyring, randomMasterKey } from '../../src/keys/keyring.js'
import { BackendKeyManager } from '../../src/keys/port.js'
import { portKeySigner } from '../../src/keys/port-signers.js'
import { keySignerJwtSigner } from '../../src/proofs/jwt-signer.js'
import { createSqliteStorage } from '../../src/storage/sqlite/index.js'
import type { StorageAdapter } from '../../src/storage/port.js'

let dir: string
let storage: StorageAdapter
let keys: BackendKeyManager

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'didvault-port-jwt-'))
  storage = createSqliteStorage({ path: join(dir, 'db.sqlite') })
  await storage.init([SEALED_KEYS])
  keys = new BackendKeyManager({ sealed: new SealedKeyBackend(storage, new Keyring(randomMasterKey())) }, 'sealed')
})
afterAll(async () => {
  await storage.close()
  rmSync(dir, { recursive: true, force: true })
})

/** A did-resolver over the method registry: every method it lists, reached by name only. */
const ours = new Resolver(Object.fromEntries(didMethodNames().map((name) => [name, (did) => didMethodNamed(name)!.resolve(did)])), {
  cache: false,
})
const theirs = new Resolver(KeyDidResolver.getResolver(), { cache: false })

const CASES: Array<{ type: KeyType; alg: SignatureAlgorithm }> = [
  { type: 'P-256', alg: 'ES256' },
  { type: 'Ed25519', alg: 'EdDSA' },
  { type: 'secp256k1', alg: 'ES256K' },
]

describe('VC-JWT signed through the key port, verified by did-jwt-vc', () => {
  for (const { type, alg } of CASES) {
    for (const method of ['key', 'jwk']) {
      it(`${type} (${alg}), did:${method}`, async () => {
        const { keyRef, publicJwk } = await keys.createKey({ tenantId: 't', type })
        const { did } = await didMethodNamed(method)!.create({ publicJwk })
        const document = (await didMethodNamed(method)!.resolve(did)).didDocument!
        const issuer = {
          did,
          alg,
          signer: keySignerJwtSigner(portKeySigner(keys, { tenantId: 't', keyRef, publicJwk }), alg),
          kid: document.assertionMethod![0] as string,
        }
        const payload: JwtCredentialPayload = {
          sub: 'did:example:holder',
          nbf: Math.floor(Date.now() / 1000),
          vc: {
            '@context': ['https://www.w3.org/2018/credentials/v1'],
            type: ['VerifiableCredential'],
            credentialSubject: { degree: 'BSc' },
          },
        }
        const jwt = await createVerifiableCredentialJwt(payload, issuer)
        expect(JSON.parse(Buffer.from(jwt.split('.')[0], 'base64url').toString()).alg).toBe(alg)
        const verified = await verifyCredential(jwt, ours)
        expect(verified.issuer).toBe(did)
        expect(verified.verifiableCredential.credentialSubject).toMatchObject({ degree: 'BSc' })
        if (method === 'key') expect((await verifyCredential(jwt, theirs)).issuer).toBe(did)
        // the same key refuses another tenant (404) and an algorithm of another key type (422)
        const signerOf = (tenantId: string, under: SignatureAlgorithm) =>
          keySignerJwtSigner(portKeySigner(keys, { tenantId, keyRef, publicJwk }), under)
        await expect(signerOf('other', alg)('x')).rejects.toMatchObject({ errorType: 'NOT_FOUND' })
        const wrong: SignatureAlgorithm = alg === 'EdDSA' ? 'ES256' : 'EdDSA'
        await expect(signerOf('t', wrong)('x')).rejects.toMatchObject({ errorType: 'VALIDATION_ERROR' })
      })
    }
  }
})
