/**
 * The key port (src/keys/port.ts) over the sealed backend on a real SQLite file: keys of every
 * type are created and named by their RFC 7638 thumbprint, their signatures check in OpenSSL
 * (node:crypto), a key of one tenant signs nothing for another, the private key never reaches
 * the database file in plaintext, and master-key rotation re-seals the keys collection.
 */
import { createPublicKey, verify } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { resealAll } from '../../src/custody/rotation.js'
import { SEALED_KEYS, SealedKeyBackend } from '../../src/keys/backends/sealed/index.js'
import { ALGORITHMS_OF, KEY_TYPES, type PublicJwk, type SignatureAlgorithm } from '../../src/keys/key-types.js'
import { Keyring, randomMasterKey } from '../../src/keys/keyring.js'
import { BackendKeyManager } from '../../src/keys/port.js'
import { jwkThumbprint } from '../../src/keys/thumbprint.js'
import { CURVES } from '../../src/keys/types/index.js'
import { createSqliteStorage } from '../../src/storage/sqlite/index.js'
import type { StorageAdapter } from '../../src/storage/port.js'

let dir: string
let storage: StorageAdapter
let keyring: Keyring
let sealed: SealedKeyBackend
let keys: BackendKeyManager

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'didvault-keys-'))
  storage = createSqliteStorage({ path: join(dir, 'db.sqlite') })
  await storage.init([SEALED_KEYS])
  keyring = new Keyring(randomMasterKey())
  sealed = new SealedKeyBackend(storage, keyring)
  keys = new BackendKeyManager({ sealed }, 'sealed')
})

afterEach(async () => {
  await storage.close()
  rmSync(dir, { recursive: true, force: true })
})

const data = new TextEncoder().encode('eyJhbGciOiJFUzI1NksifQ.eyJpc3MiOiJ0ZXN0In0')

/** Whether OpenSSL accepts `signature` (JOSE form) of `data` under `jwk` and `alg`. */
function opensslVerifies(jwk: PublicJwk, alg: SignatureAlgorithm, signature: Uint8Array): boolean {
  const key = createPublicKey({ key: { ...jwk }, format: 'jwk' })
  if (alg === 'EdDSA') return verify(null, data, key, signature)
  return verify('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, signature.subarray(0, 64))
}

/** The uncompressed secp256k1 point of a JWK. */
const pointOf = (jwk: PublicJwk) => Uint8Array.from([4, ...Buffer.from(jwk.x, 'base64url'), ...Buffer.from(jwk.y!, 'base64url')])

describe('the key port, sealed backend', () => {
  it('computes the RFC 7638 §3.1 thumbprint', () => {
    const n =
      '0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64t' +
      'Z_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbI' +
      'SD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw'
    expect(jwkThumbprint({ kty: 'RSA', n, e: 'AQAB', alg: 'RS256', kid: '2011-04-29' } as { kty: string })).toBe(
      'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs',
    )
  })

  for (const type of KEY_TYPES) {
    it(`creates a ${type} key named by its thumbprint and signs under ${ALGORITHMS_OF[type].join(', ')}`, async () => {
      const { keyRef, publicJwk } = await keys.createKey({ tenantId: 'a', type })
      expect(keyRef).toBe(`sealed:${jwkThumbprint(publicJwk)}`)
      expect(await keys.publicKey('a', keyRef)).toEqual(publicJwk)
      for (const alg of ALGORITHMS_OF[type]) {
        const signature = await keys.sign({ tenantId: 'a', keyRef, alg, data })
        expect(signature.length).toBe(alg === 'ES256K-R' ? 65 : 64)
        expect(opensslVerifies(publicJwk, alg, signature)).toBe(true)
      }
      const wrong: SignatureAlgorithm = type === 'Ed25519' ? 'ES256' : 'EdDSA'
      await expect(keys.sign({ tenantId: 'a', keyRef, alg: wrong, data })).rejects.toMatchObject({ errorType: 'VALIDATION_ERROR' })
    })
  }

  it('signs ES256K-R as r‖s‖v (low-S) that recovers the key, over the data or a digest the caller hashed', async () => {
    const { keyRef, publicJwk } = await keys.createKey({ tenantId: 'a', type: 'secp256k1' })
    const recovered = (signature: Uint8Array, digest: Uint8Array) => {
      const sig = secp256k1.Signature.fromBytes(signature.subarray(0, 64), 'compact').addRecoveryBit(signature[64])
      expect(sig.hasHighS()).toBe(false)
      return sig.recoverPublicKey(digest).toBytes(false)
    }
    const overData = await keys.sign({ tenantId: 'a', keyRef, alg: 'ES256K-R', data })
    expect(recovered(overData, sha256(data))).toEqual(pointOf(publicJwk))
    const digest = keccak_256(data)
    const overDigest = await keys.sign({ tenantId: 'a', keyRef, alg: 'ES256K-R', digest })
    expect(recovered(overDigest, digest)).toEqual(pointOf(publicJwk))
    await expect(keys.sign({ tenantId: 'a', keyRef, alg: 'ES256K-R', digest: digest.subarray(0, 31) })).rejects.toMatchObject({
      errorType: 'VALIDATION_ERROR',
    })
    const ed = await keys.createKey({ tenantId: 'a', type: 'Ed25519' })
    await expect(keys.sign({ tenantId: 'a', keyRef: ed.keyRef, alg: 'ES256K-R', digest })).rejects.toMatchObject({
      errorType: 'VALIDATION_ERROR',
    })
  })

  it('signs nothing for another tenant, and answers it as for a key that does not exist', async () => {
    const { keyRef } = await keys.createKey({ tenantId: 'a', type: 'P-256' })
    const foreign = keys.sign({ tenantId: 'b', keyRef, alg: 'ES256', data })
    await expect(foreign).rejects.toMatchObject({ errorType: 'NOT_FOUND', message: `no key ${keyRef}` })
    await expect(keys.publicKey('b', keyRef)).rejects.toMatchObject({ errorType: 'NOT_FOUND' })
    for (const bad of ['sealed:', 'nope', 'hsm:' + keyRef.slice(7), 'constructor:x'])
      await expect(keys.sign({ tenantId: 'a', keyRef: bad, alg: 'ES256', data })).rejects.toMatchObject({ errorType: 'NOT_FOUND' })
  })

  it('keeps the same key of two tenants apart: each tenant signs with its own record', async () => {
    const secret = CURVES.Ed25519.generate()
    const a = await sealed.importKey('a', 'Ed25519', secret)
    const b = await sealed.importKey('b', 'Ed25519', secret)
    expect(a.id).toBe(b.id)
    expect(await storage.collection(SEALED_KEYS.name).count({ and: [] })).toBe(2)
    for (const tenantId of ['a', 'b']) expect(await keys.sign({ tenantId, keyRef: `sealed:${a.id}`, alg: 'EdDSA', data })).toHaveLength(64)
  })

  it('never writes a private key to the database file in plaintext', async () => {
    const secrets = KEY_TYPES.map((type) => ({ type, secret: CURVES[type].generate() }))
    for (const { type, secret } of secrets) await sealed.importKey('a', type, Uint8Array.from(secret))
    await storage.close()
    const bytes = readFileSync(join(dir, 'db.sqlite'))
    for (const { secret } of secrets) {
      const forms = [
        Buffer.from(secret),
        Buffer.from(Buffer.from(secret).toString('hex')),
        Buffer.from(Buffer.from(secret).toString('base64url')),
      ]
      for (const form of forms) expect(bytes.includes(form)).toBe(false)
    }
    storage = createSqliteStorage({ path: join(dir, 'db.sqlite') })
  })

  it('re-seals every key under a new master key (rotation), which then signs alone', async () => {
    const created = await Promise.all(KEY_TYPES.map((type) => keys.createKey({ tenantId: 'a', type })))
    const fresh = randomMasterKey()
    keyring.useKey(fresh)
    expect((await resealAll(storage, keyring, [SEALED_KEYS])).resealed).toBe(3)
    const rotated = new Keyring(fresh)
    const after = new BackendKeyManager({ sealed: new SealedKeyBackend(storage, rotated) }, 'sealed')
    for (const [i, { keyRef, publicJwk }] of created.entries()) {
      const alg = ALGORITHMS_OF[KEY_TYPES[i]][0]
      expect(opensslVerifies(publicJwk, alg, await after.sign({ tenantId: 'a', keyRef, alg, data }))).toBe(true)
    }
  })
})
