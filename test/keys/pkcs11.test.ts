/**
 * The `hsm` key backend (src/keys/backends/pkcs11/) on a real SoftHSM2 token and a SQLite file: the key-backend
 * conformance suite of `didvault/testing` (keys named by CKA_ID, signatures checked in OpenSSL, tenants apart, staged
 * and destroyed records, no plaintext private key in the database file — for keys imported into the token with a
 * private key the test knows), then the backend's own: the private key cannot be read (CKA_VALUE refused) and its
 * attributes say so to pkcs11js and to OpenSC's `pkcs11-tool --list-objects`; signatures checked by @noble/curves;
 * 50 concurrent signatures over a pool of 4 sessions; destroyed keys leave the token only after the deletion commits.
 */
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, renameSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ed25519 } from '@noble/curves/ed25519.js'
import { p256 } from '@noble/curves/nist.js'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import pkcs11js from 'pkcs11js'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import { HSM_KEYS, pkcs11, type Pkcs11KeyBackend } from '../../src/keys/backends/pkcs11/index.js'
import { KEY_TYPES, type KeyType, type PublicJwk } from '../../src/keys/key-types.js'
import { BackendKeyManager } from '../../src/keys/port.js'
import { createSqliteStorage } from '../../src/storage/sqlite/index.js'
import type { StorageAdapter } from '../../src/storage/port.js'
import { runKeyBackendConformance } from '../../src/testing/index.js'
import { privateKeyReadable, startSoftHsm, tokenObject, type KeyObjectClass } from '../helpers/softhsm.js'

const hsm = startSoftHsm()
const hsmModule = pkcs11({ module: hsm.module, tokenLabel: hsm.tokenLabel, pin: hsm.pin, sessions: 4 })
afterAll(async () => {
  await hsmModule.close()
  hsm.stop()
})

const data = new TextEncoder().encode('eyJhbGciOiJFUzI1NksifQ.eyJpc3MiOiJoc20ifQ')
const EC_PARAMS: Record<KeyType, string> = { secp256k1: '06052b8104000a', 'P-256': '06082a8648ce3d030107', Ed25519: '06032b6570' }

/**
 * Puts a key pair whose private key the test chose into the token (C_CreateObject; sensitive, not extractable), as an
 * HSM's key ceremony would, and has the backend record it for `tenantId`.
 */
async function importKnownKey(backend: Pkcs11KeyBackend, tenantId: string, type: KeyType, privateKey: Uint8Array) {
  const id = randomBytes(16)
  const publicPoint =
    type === 'Ed25519' ? ed25519.getPublicKey(privateKey) : ({ secp256k1, 'P-256': p256 } as const)[type].getPublicKey(privateKey, false)
  await hsmModule.token.withSession('import', (p, session) => {
    const common = [
      { type: pkcs11js.CKA_TOKEN, value: true },
      { type: pkcs11js.CKA_ID, value: id },
      { type: pkcs11js.CKA_KEY_TYPE, value: type === 'Ed25519' ? 0x40 : pkcs11js.CKK_EC },
      { type: pkcs11js.CKA_EC_PARAMS, value: Buffer.from(EC_PARAMS[type], 'hex') },
    ]
    p.C_CreateObject(session, [
      ...common,
      { type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_PRIVATE_KEY },
      { type: pkcs11js.CKA_PRIVATE, value: true },
      { type: pkcs11js.CKA_SENSITIVE, value: true },
      { type: pkcs11js.CKA_EXTRACTABLE, value: false },
      { type: pkcs11js.CKA_SIGN, value: true },
      { type: pkcs11js.CKA_VALUE, value: Buffer.from(privateKey) },
    ])
    p.C_CreateObject(session, [
      ...common,
      { type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_PUBLIC_KEY },
      { type: pkcs11js.CKA_VERIFY, value: true },
      { type: pkcs11js.CKA_EC_POINT, value: Buffer.concat([Buffer.from([4, publicPoint.length]), publicPoint]) },
    ])
  })
  const { id: keyId, publicJwk } = await backend.adoptKey(tenantId, id.toString('hex'))
  return { keyRef: `hsm:${keyId}`, publicJwk }
}

runKeyBackendConformance('hsm (PKCS#11, SoftHSM2 token, SQLite file)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'didvault-hsm-conformance-'))
  const path = join(dir, 'db.sqlite')
  const storage = createSqliteStorage({ path })
  await storage.init([HSM_KEYS])
  const backend = hsmModule.keyBackend(storage)
  const keys = new BackendKeyManager({ hsm: backend }, 'hsm')
  return {
    keys,
    backend: 'hsm',
    keyIdPattern: /^[0-9a-f]{32}$/,
    storage,
    makeKey: (tenantId, type) => keys.createKey({ tenantId, type }),
    knownKey: (tenantId, type, privateKey) => importKnownKey(backend, tenantId, type, privateKey),
    // The token says whether the private key can be read: CKA_SENSITIVE and not CKA_EXTRACTABLE, and CKA_VALUE refused.
    privateKeyReadable: (_tenantId, keyRef) => privateKeyReadable(hsmModule.token, keyRef.slice('hsm:'.length)),
    // The token taken out: its directory moved away; brought back, the backend re-initializes and logs in again.
    breakBackend: async () => {
      renameSync(hsm.tokenDir, `${hsm.tokenDir}.away`)
      return async () => {
        renameSync(`${hsm.tokenDir}.away`, hsm.tokenDir)
        await expect.poll(() => hsmModule.ready(), { timeout: 15_000, interval: 50 }).toBe(true)
      }
    },
    storedBytes: async () => Buffer.concat([path, `${path}-wal`].filter((file) => existsSync(file)).map((file) => readFileSync(file))),
    cleanup: async () => {
      await storage.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
})

/** Whether @noble/curves accepts a JOSE signature (r‖s over SHA-256 for ECDSA; ES256K: low-S). */
function nobleVerifies(jwk: PublicJwk, signature: Uint8Array): boolean {
  const x = Buffer.from(jwk.x, 'base64url')
  if (jwk.crv === 'Ed25519') return ed25519.verify(signature, data, x)
  const point = Buffer.concat([Buffer.from([4]), x, Buffer.from(jwk.y!, 'base64url')])
  const curve = jwk.crv === 'secp256k1' ? secp256k1 : p256
  return curve.verify(signature.subarray(0, 64), data, point, { lowS: jwk.crv === 'secp256k1' })
}

const ALG: Record<KeyType, 'ES256K' | 'ES256' | 'EdDSA'> = { secp256k1: 'ES256K', 'P-256': 'ES256', Ed25519: 'EdDSA' }

describe('the hsm key backend on SoftHSM2', () => {
  let dir: string
  let storage: StorageAdapter
  let backend: Pkcs11KeyBackend
  let keys: BackendKeyManager

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'didvault-hsm-'))
    storage = createSqliteStorage({ path: join(dir, 'db.sqlite') })
    await storage.init([HSM_KEYS])
    backend = hsmModule.keyBackend(storage)
    keys = new BackendKeyManager({ hsm: backend }, 'hsm')
  })

  afterEach(async () => {
    await storage.close()
    rmSync(dir, { recursive: true, force: true })
  })

  /** The attributes of the object of class `kind` with CKA_ID `keyId`, or undefined when there is none. */
  const objectOf = (keyId: string, kind: KeyObjectClass) => tokenObject(hsmModule.token, keyId, kind)

  it('each key type: generated in the token, signatures that @noble/curves verifies (ES256K low-S)', async () => {
    for (const type of KEY_TYPES) {
      const { keyRef, publicJwk } = await keys.createKey({ tenantId: 't', type })
      for (let i = 0; i < 8; i++) {
        const signature = await keys.sign({ tenantId: 't', keyRef, alg: ALG[type], data })
        expect(nobleVerifies(publicJwk, signature), type).toBe(true)
      }
    }
  })

  it('the private key cannot be read: CKA_VALUE refused, sensitive and never extractable (pkcs11js and pkcs11-tool)', async () => {
    const made = await Promise.all(KEY_TYPES.map((type) => keys.createKey({ tenantId: 't', type })))
    for (const { keyRef } of made) {
      const keyId = keyRef.slice('hsm:'.length)
      const handle = await objectOf(keyId, 'private')
      if (handle === undefined) throw new Error(`no private key ${keyRef} in the token`)
      await hsmModule.token.withSession('test', (p, session) => {
        expect(() => p.C_GetAttributeValue(session, handle, [{ type: pkcs11js.CKA_VALUE }])).toThrow(/CKR_ATTRIBUTE_SENSITIVE/)
        const flags = p.C_GetAttributeValue(session, handle, [
          { type: pkcs11js.CKA_TOKEN },
          { type: pkcs11js.CKA_PRIVATE },
          { type: pkcs11js.CKA_SENSITIVE },
          { type: pkcs11js.CKA_ALWAYS_SENSITIVE },
          { type: pkcs11js.CKA_EXTRACTABLE },
          { type: pkcs11js.CKA_NEVER_EXTRACTABLE },
          { type: pkcs11js.CKA_SIGN },
          { type: pkcs11js.CKA_LABEL },
        ])
        const bool = (i: number) => flags[i].value[0] === 1
        expect([bool(0), bool(1), bool(2), bool(3), bool(4), bool(5), bool(6)]).toEqual([true, true, true, true, false, true, true])
        expect(flags[7].value.toString()).toMatch(new RegExp(`^didvault:[0-9a-f]{16}:${keyId}$`))
      })
    }
    // OpenSC's view of the same objects: each private key sensitive, always sensitive, never extractable.
    const listing = execFileSync(
      'pkcs11-tool',
      ['--module', hsm.module, '--token-label', hsm.tokenLabel, '--login', '--pin', hsm.pin, '--list-objects', '--type', 'privkey'],
      { env: hsm.env, encoding: 'utf8' },
    )
    for (const { keyRef } of made) {
      const keyId = keyRef.slice('hsm:'.length)
      const block = listing.split(/\n(?=Private Key Object)/).find((b) => b.includes(`ID:         ${keyId}`))
      expect(block, `pkcs11-tool lists ${keyRef}`).toBeDefined()
      expect(block).toMatch(/Access:\s+sensitive, always sensitive, never extractable, local/)
      expect(block).toMatch(/Usage:\s+sign\n/)
    }
  })

  it('50 concurrent signatures over the pool of 4 sessions, each verified', async () => {
    const made = await Promise.all(KEY_TYPES.map((type) => keys.createKey({ tenantId: 't', type })))
    const signatures = await Promise.all(
      Array.from({ length: 50 }, (_, i) => {
        const key = made[i % made.length]
        const type = KEY_TYPES[i % made.length]
        return keys.sign({ tenantId: 't', keyRef: key.keyRef, alg: ALG[type], data }).then((signature) => ({ key, signature }))
      }),
    )
    expect(signatures).toHaveLength(50)
    for (const { key, signature } of signatures) expect(nobleVerifies(key.publicJwk, signature)).toBe(true)
  })

  it("another tenant's key reference is NOT_FOUND (the service's 'not found' answer), for signing and its public key", async () => {
    const { keyRef } = await keys.createKey({ tenantId: 'owner', type: 'P-256' })
    await expect(keys.sign({ tenantId: 'intruder', keyRef, alg: 'ES256', data })).rejects.toMatchObject({
      errorType: 'NOT_FOUND',
      message: `no key ${keyRef}`,
    })
    await expect(keys.publicKey('intruder', keyRef)).rejects.toMatchObject({ errorType: 'NOT_FOUND' })
  })

  it('destroyKeys: the records go in the transaction; the token objects only by destroyMaterial once it committed', async () => {
    const mine = await keys.createKey({ tenantId: 't', type: 'secp256k1' })
    const keyId = mine.keyRef.slice('hsm:'.length)
    // Rolled back: the record stays, so the key stays in the token (destroyMaterial refuses) and signs.
    const rollback = new Error('the wallet delete failed')
    await expect(
      storage.transaction(async (tx) => {
        await keys.destroyKeys(tx, 't', [mine.keyRef])
        throw rollback
      }),
    ).rejects.toBe(rollback)
    expect(await keys.destroyMaterial('t', [mine.keyRef])).toEqual([
      { keyRef: mine.keyRef, error: expect.objectContaining({ errorType: 'VALIDATION_ERROR' }) },
    ])
    expect(await objectOf(keyId, 'private')).toBeDefined()
    expect(nobleVerifies(mine.publicJwk, await keys.sign({ tenantId: 't', keyRef: mine.keyRef, alg: 'ES256K', data }))).toBe(true)

    // Committed: the record is gone at once (the key reaches nothing), the token's private and public objects once
    // destroyMaterial ran; a second run finds nothing left to destroy.
    await storage.transaction((tx) => keys.destroyKeys(tx, 't', [mine.keyRef]))
    await expect(keys.sign({ tenantId: 't', keyRef: mine.keyRef, alg: 'ES256K', data })).rejects.toMatchObject({ errorType: 'NOT_FOUND' })
    expect(await objectOf(keyId, 'private')).toBeDefined()
    expect(await keys.destroyMaterial('t', [mine.keyRef])).toEqual([{ keyRef: mine.keyRef }])
    expect(await objectOf(keyId, 'private')).toBeUndefined()
    expect(await objectOf(keyId, 'public')).toBeUndefined()
    expect(await keys.destroyMaterial('t', [mine.keyRef])).toEqual([{ keyRef: mine.keyRef }])
  })

  it('a key is not derived from an HD seed (422), and adoptKey refuses an extractable key', async () => {
    await expect(keys.createKey({ tenantId: 't', type: 'secp256k1', backend: 'hsm', derive: { index: 0 } })).rejects.toMatchObject({
      errorType: 'VALIDATION_ERROR',
    })
    const id = randomBytes(16)
    await hsmModule.token.withSession('test', async (p, session) => {
      await p.C_GenerateKeyPairAsync(
        session,
        { mechanism: pkcs11js.CKM_EC_KEY_PAIR_GEN },
        [
          { type: pkcs11js.CKA_TOKEN, value: true },
          { type: pkcs11js.CKA_ID, value: id },
          { type: pkcs11js.CKA_EC_PARAMS, value: Buffer.from(EC_PARAMS['P-256'], 'hex') },
        ],
        [
          { type: pkcs11js.CKA_TOKEN, value: true },
          { type: pkcs11js.CKA_ID, value: id },
          { type: pkcs11js.CKA_SIGN, value: true },
          { type: pkcs11js.CKA_SENSITIVE, value: false },
          { type: pkcs11js.CKA_EXTRACTABLE, value: true },
        ],
      )
    })
    await expect(backend.adoptKey('t', id.toString('hex'))).rejects.toMatchObject({ errorType: 'VALIDATION_ERROR' })
    await expect(backend.adoptKey('t', randomBytes(16).toString('hex'))).rejects.toMatchObject({ errorType: 'NOT_FOUND' })
  })
})
