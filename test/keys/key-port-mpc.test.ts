/**
 * The key port over the `mpc` backend (src/mpc/key-backend.ts) and the shipped quorum custody,
 * on a real SQLite file: the key-backend conformance suite of `didvault/testing` (keys made by
 * initializing NONE vaults of each type; no single member's share is the key; 50 concurrent signatures; the storage
 * unreachable while signing — 503, then signing again), then what is the mpc backend's own: vault keys sign only
 * with a quorum of approvals, wallet keys of BIP44 vaults sign too (P-256 and Ed25519 ones derived only with a
 * quorum), createKey is refused, and a provider's high-S signature is refused.
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
import { slip10WalletPath } from '../../src/keys/slip10.js'
import { CURVES } from '../../src/keys/types/index.js'
import { MpcKeyBackend, mpcKeyId } from '../../src/mpc/key-backend.js'
import type { MpcProvider, MpcVaultRef } from '../../src/mpc/port.js'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { MPC_KEYS, MPC_SHARES } from '../../src/mpc/records.js'
import { ShamirQuorumCustody } from '../../src/mpc/shamir-quorum-custody.js'
import { createSqliteStorage } from '../../src/storage/sqlite/index.js'
import { runKeyBackendConformance } from '../../src/testing/index.js'
import type { StorageAdapter } from '../../src/storage/port.js'
import { tenantCollectionOf } from '../../src/storage/declaration.js'
import { keyTypeOfJwk } from '../../src/keys/key-types.js'
import { breakableStorage } from '../helpers/breakable-storage.js'

const members = ['did:ethr:0x1111111111111111111111111111111111111111', 'did:ethr:0x2222222222222222222222222222222222222222']
const data = new TextEncoder().encode('header.payload')

let dir: string
let storage: StorageAdapter
let custody: ShamirQuorumCustody
let keys: BackendKeyManager
const vaults = new Map<string, MpcVaultRef>()

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'didvault-mpc-keys-'))
  storage = createSqliteStorage({ path: join(dir, 'db.sqlite') })
  await storage.init([SEALED_KEYS, MPC_KEYS, MPC_SHARES])
  const keyring = new Keyring(randomMasterKey())
  custody = new ShamirQuorumCustody(storage, new KeyCustody(keyring))
  vaults.clear()
  // What the vaults domain answers from its records: the tenant's MPC vault of that id.
  const directory = {
    vaultRef: async (tenantId: string, vaultId: string) => (vaults.get(vaultId)?.tenantId === tenantId ? vaults.get(vaultId) : undefined),
  }
  keys = new BackendKeyManager({ sealed: new SealedKeyBackend(storage, keyring), mpc: new MpcKeyBackend(custody, directory) }, 'sealed')
})

afterEach(async () => {
  await storage.close()
  rmSync(dir, { recursive: true, force: true })
})

const policy = { groups: [{ name: 'board', requiredApprovals: 2, members }] }

async function mpcVault(keyType: KeyType, hierarchy: 'NONE' | 'BIP44' = 'NONE'): Promise<MpcVaultRef> {
  const vaultId = `vault-${keyType}-${hierarchy}`
  const base = {
    tenantId: 'a',
    vaultId,
    mpcAccountID: 'acct',
    hierarchy,
    keyType,
    policy,
  }
  const ref: MpcVaultRef = { ...base, ...(await custody.createVault(base)) }
  expect(await custody.initialize(ref, members)).toEqual({ status: 'initialized' })
  vaults.set(vaultId, ref)
  return ref
}

runKeyBackendConformance(
  'mpc (the shipped quorum custody, SQLite file)',
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'didvault-mpc-conformance-'))
    const sqlite = createSqliteStorage({ path: join(dir, 'db.sqlite') })
    await sqlite.init([MPC_KEYS, MPC_SHARES])
    // The shipped custody keeps its shares in the service's storage: "unreachable" is that storage failing as an
    // adapter does when its database cannot be reached (StorageUnavailableError, 503).
    const { storage, break: breakStorage } = breakableStorage(sqlite)
    const keyCustody = new KeyCustody(new Keyring(randomMasterKey()))
    const custody = new ShamirQuorumCustody(storage, keyCustody)
    const vaults = new Map<string, MpcVaultRef>()
    let made = 0
    const directory = {
      vaultRef: async (tenantId: string, vaultId: string) => (vaults.get(vaultId)?.tenantId === tenantId ? vaults.get(vaultId) : undefined),
    }
    const keys = new BackendKeyManager({ mpc: new MpcKeyBackend(custody, directory) }, 'mpc')
    return {
      keys,
      backend: 'mpc',
      approvals: members,
      // An MPC key is made by initializing a NONE vault of its type under its quorum.
      async makeKey(tenantId, keyType) {
        const base = { tenantId, vaultId: `vault-${++made}`, mpcAccountID: 'acct', hierarchy: 'NONE' as const, keyType, policy }
        const ref: MpcVaultRef = { ...base, ...(await custody.createVault(base)) }
        expect(await custody.initialize(ref, members)).toEqual({ status: 'initialized' })
        vaults.set(ref.vaultId, ref)
        const keyRef = `mpc:${mpcKeyId(ref.vaultId)}`
        return { keyRef, publicJwk: await keys.publicKey(tenantId, keyRef) }
      },
      // Readable means one member's share alone is the key: each share of the vault, opened (as one member's
      // compromise with the master key would), taken as a private key, gives another public key.
      async privateKeyReadable(tenantId, keyRef) {
        const vaultId = keyRef.slice('mpc:'.length)
        const publicJwk = await keys.publicKey(tenantId, keyRef)
        const type = keyTypeOfJwk(publicJwk)!
        const { items } = await tenantCollectionOf(sqlite, MPC_SHARES, tenantId).find({ field: 'vaultId', op: 'eq', value: vaultId })
        expect(items.length).toBeGreaterThan(1)
        return items.some((record) => {
          const share = keyCustody.open(MPC_SHARES.name, record, 'share', record.share)
          try {
            const jwk = CURVES[type].publicJwk(share)
            return jwk.x === publicJwk.x && jwk.y === publicJwk.y
          } catch {
            return false // not even a valid private key of the curve
          } finally {
            share.fill(0)
          }
        })
      },
      breakBackend: breakStorage,
      cleanup: async () => {
        await sqlite.close()
        rmSync(dir, { recursive: true, force: true })
      },
    }
  },
  { createsKeys: false },
)

describe('the key port, mpc backend', () => {
  for (const type of KEY_TYPES) {
    it(`signs with a ${type} vault key under ${ALGORITHMS_OF[type].join(', ')} only with a quorum`, async () => {
      const vault = await mpcVault(type)
      const keyRef = `mpc:${mpcKeyId(vault.vaultId)}`
      const publicJwk = await keys.publicKey('a', keyRef)
      for (const alg of ALGORITHMS_OF[type]) {
        expect(verifyJose(publicJwk, alg, data, await keys.sign({ tenantId: 'a', keyRef, alg, data, approvals: members }))).toBe(true)
        await expect(keys.sign({ tenantId: 'a', keyRef, alg, data, approvals: members.slice(1) })).rejects.toMatchObject({
          errorType: 'FORBIDDEN',
        })
      }
    })
  }

  it('signs with the wallet keys of a secp256k1 BIP44 vault, digests for the registries included', async () => {
    const vault = await mpcVault('secp256k1', 'BIP44')
    const keyRef = `mpc:${mpcKeyId(vault.vaultId, 3)}`
    const publicJwk = await keys.publicKey('a', keyRef)
    expect(publicJwk).not.toEqual(await keys.publicKey('a', `mpc:${mpcKeyId(vault.vaultId, 4)}`))
    expect(verifyJose(publicJwk, 'ES256K', data, await keys.sign({ tenantId: 'a', keyRef, alg: 'ES256K', data, approvals: members }))).toBe(
      true,
    )
    const digest = new Uint8Array(32).fill(7)
    expect(await keys.sign({ tenantId: 'a', keyRef, alg: 'ES256K-R', digest, approvals: members })).toHaveLength(65)
    await expect(keys.publicKey('a', `mpc:${vault.vaultId}`)).rejects.toMatchObject({ errorType: 'NOT_FOUND' })
    await expect(keys.publicKey('a', `mpc:${vault.vaultId}/03`)).rejects.toMatchObject({ errorType: 'NOT_FOUND' })
  })

  for (const type of ['P-256', 'Ed25519'] as const) {
    it(`derives a BIP44 vault's ${type} wallet key (hardened SLIP-0010) only with a quorum, and signs through the port`, async () => {
      const vault = await mpcVault(type, 'BIP44')
      const path = slip10WalletPath(2)
      const request = { vault, path, keyType: type, approvals: members.slice(1) }
      expect(await custody.derivePublicKey(request)).toMatchObject({
        status: 'pending',
        reason: 'insufficient-approvals',
        missingApprovals: 1,
      })
      const derived = await custody.derivePublicKey({ ...request, approvals: members })
      if (derived.status !== 'derived') throw new Error('not derived')
      expect(await custody.derivePublicKey({ ...request, approvals: members })).toEqual(derived)
      const other = await custody.derivePublicKey({ ...request, path: slip10WalletPath(3), approvals: members })
      expect(other).not.toEqual(derived)
      // The vaults domain answers the wallet's recorded public JWK for `<vaultId>/<index>'`.
      const publicJwk = CURVES[type].publicJwkOfBytes(derived.publicKey)
      const directory = {
        vaultRef: async (tenantId: string, vaultId: string) => (tenantId === 'a' ? vaults.get(vaultId) : undefined),
        hardenedWalletKey: async (_tenantId: string, _vaultId: string, index: number) => (index === 2 ? publicJwk : undefined),
      }
      const port = new BackendKeyManager({ mpc: new MpcKeyBackend(custody, directory) }, 'mpc')
      const keyRef = `mpc:${mpcKeyId(vault.vaultId, 2, true)}`
      expect(await port.publicKey('a', keyRef)).toEqual(publicJwk)
      const alg = ALGORITHMS_OF[type][0]
      expect(verifyJose(publicJwk, alg, data, await port.sign({ tenantId: 'a', keyRef, alg, data, approvals: members }))).toBe(true)
      await expect(port.sign({ tenantId: 'a', keyRef, alg, data, approvals: members.slice(1) })).rejects.toMatchObject({
        errorType: 'FORBIDDEN',
      })
      await expect(port.publicKey('a', `mpc:${mpcKeyId(vault.vaultId, 3, true)}`)).rejects.toMatchObject({ errorType: 'NOT_FOUND' })
    })
  }

  it('refuses createKey on mpc', async () => {
    await expect(keys.createKey({ tenantId: 'a', type: 'Ed25519', backend: 'mpc' })).rejects.toMatchObject({
      errorType: 'VALIDATION_ERROR',
    })
  })

  it("refuses a provider's high-S secp256k1 signature (its low-S twin verifies too, but the port promises low-S)", async () => {
    const vault = await mpcVault('secp256k1')
    const N = secp256k1.Point.CURVE().n
    // The shipped custody behind a wrapper that returns the high-S twin (r, n − s) of each signature: a provider that does not normalise.
    const highS = {
      getPublicKey: (ref: MpcVaultRef, path: string) => custody.getPublicKey(ref, path),
      async requestSignature(request: Parameters<MpcProvider['requestSignature']>[0]) {
        const outcome = await custody.requestSignature(request)
        if (outcome.status !== 'signed') return outcome
        const s = N - BigInt('0x' + Buffer.from(outcome.signature.s).toString('hex'))
        const twin = Uint8Array.from(Buffer.from(s.toString(16).padStart(64, '0'), 'hex'))
        return { ...outcome, signature: { r: outcome.signature.r, s: twin, recovery: (outcome.signature.recovery ^ 1) as 0 | 1 } }
      },
    } as unknown as MpcProvider
    const directory = { vaultRef: async (tenantId: string, vaultId: string) => (tenantId === 'a' ? vaults.get(vaultId) : undefined) }
    const port = new BackendKeyManager({ mpc: new MpcKeyBackend(highS, directory) }, 'mpc')
    const keyRef = `mpc:${mpcKeyId(vault.vaultId)}`
    await expect(port.sign({ tenantId: 'a', keyRef, alg: 'ES256K', data, approvals: members })).rejects.toThrow(/high-S/)
    await expect(
      port.sign({ tenantId: 'a', keyRef, alg: 'ES256K-R', digest: new Uint8Array(32).fill(1), approvals: members }),
    ).rejects.toThrow(/high-S/)
  })
})
