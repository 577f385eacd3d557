/**
 * The key port (src/keys/port.ts) over the sealed backend on a real SQLite file: the key-backend
 * conformance suite of `didvault/testing` (keys of every type named by their RFC 7638 thumbprint,
 * signatures checked in OpenSSL, tenants apart, staged and destroyed keys, no plaintext private key
 * in the database file, 50 concurrent signatures, the storage unreachable while signing — 503, then signing again),
 * then what is the sealed backend's own: didvault's thumbprint against the
 * RFC's vector, one key held by two tenants, and master-key rotation re-sealing the keys collection.
 */
import { createPublicKey, verify } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { resealAll } from '../../src/custody/rotation.js'
import { SEALED_KEYS, SealedKeyBackend } from '../../src/keys/backends/sealed/index.js'
import { ALGORITHMS_OF, KEY_TYPES, type PublicJwk, type SignatureAlgorithm } from '../../src/keys/key-types.js'
import { Keyring, randomMasterKey } from '../../src/keys/keyring.js'
import { BackendKeyManager } from '../../src/keys/port.js'
import { jwkThumbprint } from '../../src/keys/thumbprint.js'
import { CURVES } from '../../src/keys/types/index.js'
import { createSqliteStorage } from '../../src/storage/sqlite/index.js'
import { runKeyBackendConformance } from '../../src/testing/index.js'
import type { StorageAdapter } from '../../src/storage/port.js'
import { breakableStorage } from '../helpers/breakable-storage.js'

const data = new TextEncoder().encode('eyJhbGciOiJFUzI1NksifQ.eyJpc3MiOiJ0ZXN0In0')

/** Whether OpenSSL accepts `signature` (JOSE form) of `data` under `jwk` and `alg`. */
function opensslVerifies(jwk: PublicJwk, alg: SignatureAlgorithm, signature: Uint8Array): boolean {
  const key = createPublicKey({ key: { ...jwk }, format: 'jwk' })
  if (alg === 'EdDSA') return verify(null, data, key, signature)
  return verify('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, signature.subarray(0, 64))
}

runKeyBackendConformance('sealed (SQLite file)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'didvault-keys-conformance-'))
  const path = join(dir, 'db.sqlite')
  const sqlite = createSqliteStorage({ path })
  await sqlite.init([SEALED_KEYS])
  // Sealed keys live in the service's storage: "unreachable" is that storage failing as an adapter does when its
  // database cannot be reached (StorageUnavailableError, 503), which the backend passes on as it is.
  const { storage, break: breakStorage } = breakableStorage(sqlite)
  const sealed = new SealedKeyBackend(storage, new Keyring(randomMasterKey()))
  const keys = new BackendKeyManager({ sealed }, 'sealed')
  return {
    keys,
    backend: 'sealed',
    storage,
    breakBackend: breakStorage,
    makeKey: (tenantId, type) => keys.createKey({ tenantId, type }),
    knownKey: async (tenantId, type, privateKey) => {
      const { id, publicJwk } = await sealed.importKey(tenantId, type, privateKey)
      return { keyRef: `sealed:${id}`, publicJwk }
    },
    storedBytes: async () => Buffer.concat([path, `${path}-wal`].filter((file) => existsSync(file)).map((file) => readFileSync(file))),
    cleanup: async () => {
      await sqlite.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
})

describe('the key port, sealed backend', () => {
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

  it('computes the RFC 7638 §3.1 thumbprint', () => {
    const n =
      '0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64t' +
      'Z_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbI' +
      'SD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw'
    expect(jwkThumbprint({ kty: 'RSA', n, e: 'AQAB', alg: 'RS256', kid: '2011-04-29' } as { kty: string })).toBe(
      'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs',
    )
  })

  it('keeps the same key of two tenants apart: each tenant signs with its own record', async () => {
    const secret = CURVES.Ed25519.generate()
    const a = await sealed.importKey('a', 'Ed25519', secret)
    const b = await sealed.importKey('b', 'Ed25519', secret)
    expect(a.id).toBe(b.id)
    expect(await storage.collection(SEALED_KEYS.name).count({ and: [] })).toBe(2)
    for (const tenantId of ['a', 'b']) expect(await keys.sign({ tenantId, keyRef: `sealed:${a.id}`, alg: 'EdDSA', data })).toHaveLength(64)
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
