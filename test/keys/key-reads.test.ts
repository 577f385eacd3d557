/**
 * Each signature reads its key once (src/keys/port.ts `BackendKey`): the manager's algorithm
 * check and the backend's signature share one read of the sealed key's record (counted on a real
 * SQLite file) and, for MPC keys, one fetch of the provider's public key (counted on the shipped
 * quorum custody), for every key type and algorithm.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { KeyCustody } from '../../src/custody/key-custody.js'
import { SEALED_KEYS, SealedKeyBackend } from '../../src/keys/backends/sealed/index.js'
import { ALGORITHMS_OF, KEY_TYPES, type KeyType } from '../../src/keys/key-types.js'
import { Keyring, randomMasterKey } from '../../src/keys/keyring.js'
import { BackendKeyManager } from '../../src/keys/port.js'
import { verifyJose } from '../../src/keys/verify-jose.js'
import { MpcKeyBackend, mpcKeyId } from '../../src/mpc/key-backend.js'
import type { MpcVaultRef } from '../../src/mpc/port.js'
import { MPC_KEYS, MPC_SHARES } from '../../src/mpc/records.js'
import { ShamirQuorumCustody } from '../../src/mpc/shamir-quorum-custody.js'
import { createSqliteStorage } from '../../src/storage/sqlite/index.js'
import type { StorageAdapter } from '../../src/storage/port.js'

const members = ['did:ethr:0x1111111111111111111111111111111111111111', 'did:ethr:0x2222222222222222222222222222222222222222']
const data = new TextEncoder().encode('header.payload')
const READS = new Set(['get', 'getMany', 'find', 'findOne', 'all', 'count'])

let dir: string
let storage: StorageAdapter
/** Reads of the `keys` collection through the backends' storage. */
let keyReads: number
let keys: BackendKeyManager
let custody: ShamirQuorumCustody
let publicKeyFetches: number
const vaults = new Map<string, MpcVaultRef>()

/** `storage` whose `keys` collection counts every read. */
function countingKeyReads(inner: StorageAdapter): StorageAdapter {
  return new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop !== 'collection') return Reflect.get(target, prop, receiver) as unknown
      return (name: string) => {
        const collection = target.collection(name)
        if (name !== SEALED_KEYS.name) return collection
        return new Proxy(collection, {
          get(c, method, r) {
            const value = Reflect.get(c, method, r) as unknown
            if (typeof value !== 'function' || !READS.has(String(method))) return value
            return (...args: unknown[]) => {
              keyReads++
              return (value as (...a: unknown[]) => unknown).apply(c, args)
            }
          },
        })
      }
    },
  })
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'didvault-key-reads-'))
  const file = createSqliteStorage({ path: join(dir, 'db.sqlite') })
  await file.init([SEALED_KEYS, MPC_KEYS, MPC_SHARES])
  storage = file
  keyReads = 0
  publicKeyFetches = 0
  const keyring = new Keyring(randomMasterKey())
  custody = new ShamirQuorumCustody(file, new KeyCustody(keyring))
  const getPublicKey = custody.getPublicKey.bind(custody)
  custody.getPublicKey = (...args) => {
    publicKeyFetches++
    return getPublicKey(...args)
  }
  vaults.clear()
  const directory = {
    vaultRef: async (tenantId: string, vaultId: string) => (vaults.get(vaultId)?.tenantId === tenantId ? vaults.get(vaultId) : undefined),
  }
  const sealed = new SealedKeyBackend(countingKeyReads(file), keyring)
  keys = new BackendKeyManager({ sealed, mpc: new MpcKeyBackend(custody, directory) }, 'sealed')
})

afterEach(async () => {
  await storage.close()
  rmSync(dir, { recursive: true, force: true })
})

async function mpcVault(keyType: KeyType): Promise<MpcVaultRef> {
  const base = {
    tenantId: 'a',
    vaultId: `vault-${keyType}`,
    mpcAccountID: 'acct',
    hierarchy: 'NONE' as const,
    keyType,
    policy: { groups: [{ name: 'board', requiredApprovals: 2, members }] },
  }
  const ref: MpcVaultRef = { ...base, ...(await custody.createVault(base)) }
  expect(await custody.initialize(ref, members)).toEqual({ status: 'initialized' })
  vaults.set(ref.vaultId, ref)
  return ref
}

describe('a signature reads its key once', () => {
  for (const type of KEY_TYPES) {
    it(`sealed ${type}: one read of the key record per signature`, async () => {
      const { keyRef, publicJwk } = await keys.createKey({ tenantId: 'a', type })
      for (const alg of ALGORITHMS_OF[type]) {
        keyReads = 0
        const signature = await keys.sign({ tenantId: 'a', keyRef, alg, data })
        expect(keyReads).toBe(1)
        expect(verifyJose(publicJwk, alg, data, signature)).toBe(true)
      }
      keyReads = 0
      await expect(keys.sign({ tenantId: 'b', keyRef, alg: ALGORITHMS_OF[type][0], data })).rejects.toMatchObject({
        errorType: 'NOT_FOUND',
      })
      expect(keyReads).toBe(1)
    })

    it(`mpc ${type}: one fetch of the provider's public key per signature`, async () => {
      const vault = await mpcVault(type)
      const keyRef = `mpc:${mpcKeyId(vault.vaultId)}`
      const publicJwk = await keys.publicKey('a', keyRef)
      for (const alg of ALGORITHMS_OF[type]) {
        publicKeyFetches = 0
        const signature = await keys.sign({ tenantId: 'a', keyRef, alg, data, approvals: members })
        expect(publicKeyFetches).toBe(1)
        expect(verifyJose(publicJwk, alg, data, signature)).toBe(true)
      }
    })
  }
})
