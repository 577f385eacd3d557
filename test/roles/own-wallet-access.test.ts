/**
 * Wallet and role control by keys for the service's own did:key and did:jwk wallets of every key type (made by Generate Identity
 * Wallet with `walletConfig.didMethod` / `keyType`), through the real HTTP router: a DID-auth token signed by the
 * wallet's own key — its sealed key in the service's storage, signed by the sealed key backend over the same storage
 * and master key (ES256K, ES256, EdDSA) — controls the wallet (Rename Identity Wallet), acts through its DID (Create
 * Role: its `creator`) and deletes the wallet (Delete Identity Wallet). The attack: another wallet of the same tenant
 * (did:ethr, or a did:key / did:jwk wallet of the same key type), and an outside did:key holder, rename or delete it —
 * 403 FORBIDDEN with the error body, nothing written. A role whose DID is such a wallet (Create Role with
 * `walletConfig`) is managed by the role DID's key (Update Roles), not by a holder of the role or another wallet. An own
 * did:web wallet (every key type) is controlled by its key until handed to another DID (`newOwner`, which another wallet
 * of the tenant cannot do: 403, nothing written); then by that DID's key, and its old key's tokens are 403.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { KeyType } from '../../src/keys/key-types.js'
import { randomMasterKey } from '../../src/index.js'
import { ownKeyTokens, type WalletTokenSigner } from '../helpers/wallet-tokens.js'
import type { WalletRecord } from '../../src/wallets/records.js'
import { snapshot, startHarness, walletWithToken, type Harness } from '../helpers/harness.js'
import { didJwtHolder } from '../helpers/key-holders.js'

const MASTER_KEY = randomMasterKey()
const COMBINATIONS = (['key', 'jwk'] as const).flatMap((method) =>
  (['secp256k1', 'P-256', 'Ed25519'] as const).map((keyType) => [method, keyType] as const),
)

let h: Harness
let tokenOfWallet: WalletTokenSigner

beforeAll(async () => {
  h = await startHarness({ service: { masterKey: MASTER_KEY, publicUrl: 'https://vault.example.com:8443/id' } })
  tokenOfWallet = await ownKeyTokens(h.storage, MASTER_KEY)
})
afterAll(() => h?.close())

/** A new wallet of `method` and `keyType`, and a DID-auth token signed by its own sealed key. */
async function ownWallet(method: 'key' | 'jwk', keyType: KeyType) {
  const res = await h.request('POST', '/wallet', { json: { walletConfig: { didMethod: method, keyType } } })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  const { did, _id } = res.body.wallet as { did: string; _id: string }
  return { did, _id, jwt: await tokenOfWallet(_id, did) }
}

const rename = (did: string, alias: string, didAuth: string) =>
  h.request('POST', '/wallet/rename', { json: { wallets: [{ did, alias }] }, didAuth })
const aliasOf = async (id: string) => (await h.storage.collection<WalletRecord>('wallets').get(id))?.alias

describe('own did:key and did:jwk wallets: control by the wallet’s key', () => {
  it.each(COMBINATIONS)('did:%s %s: its own key renames it, makes a role through its DID, and deletes it', async (method, keyType) => {
    const w = await ownWallet(method, keyType)
    const renamed = await rename(w.did, `own ${method} ${keyType}`, w.jwt)
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200)
    expect(renamed.body.errors ?? []).toEqual([])
    expect(await aliasOf(w._id)).toBe(`own ${method} ${keyType}`)
    const role = await h.request('POST', '/roles', { json: { permissions: ['Read'] }, didAuth: w.jwt })
    expect(role.status, JSON.stringify(role.body)).toBe(200)
    expect(role.body.role.creator).toBe(w.did)
    const deleted = await h.request('DELETE', '/wallet', { json: { ids: [w.did] }, didAuth: w.jwt })
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200)
    expect(deleted.body).toMatchObject({ ids: [w.did], errors: [] })
    expect(await h.storage.collection<WalletRecord>('wallets').get(w._id)).toBeUndefined()
  })

  it.each(COMBINATIONS)(
    'did:%s %s: another wallet of the tenant and an outside holder cannot rename or delete it',
    async (method, keyType) => {
      const w = await ownWallet(method, keyType)
      const attackers = {
        'did:ethr wallet': (await walletWithToken(h)).jwt,
        [`did:${method} ${keyType} wallet`]: (await ownWallet(method, keyType)).jwt,
        [`outside did:${method} ${keyType} holder`]: await didJwtHolder(method, keyType).token(),
      }
      for (const [who, didAuth] of Object.entries(attackers)) {
        const before = await snapshot(h)
        const res = await rename(w.did, `taken by ${who}`, didAuth)
        expect(res.status, `${who}: ${JSON.stringify(res.body)}`).toBe(200)
        expect(res.body.errors, who).toHaveLength(1)
        expect(res.body.errors[0].error, who).toEqual({ statusCode: 403, errorType: 'FORBIDDEN', errorMessage: expect.any(String) })
        expect(await snapshot(h), who).toEqual(before)
      }
      for (const [who, didAuth] of Object.entries(attackers)) {
        const before = await snapshot(h)
        const res = await h.request('DELETE', '/wallet', { json: { ids: [w.did] }, didAuth })
        expect(res.status, `${who}: ${JSON.stringify(res.body)}`).toBe(200)
        expect(res.body.ids, who).toEqual([])
        expect(res.body.errors[0].error, who).toEqual({ statusCode: 403, errorType: 'FORBIDDEN', errorMessage: expect.any(String) })
        expect(await snapshot(h), who).toEqual(before)
      }
    },
  )

  it.each(COMBINATIONS)(
    'a role whose DID is did:%s %s: the role DID’s key manages it; a holder and another wallet cannot',
    async (method, keyType) => {
      const creator = await walletWithToken(h)
      const made = await h.request('POST', '/roles', {
        json: { permissions: ['Read'], walletConfig: { didMethod: method, keyType } },
        didAuth: creator.jwt,
      })
      expect(made.status, JSON.stringify(made.body)).toBe(200)
      const role = made.body.role.did as string
      expect(role.startsWith(`did:${method}:`)).toBe(true)
      const roleWallet = (await h.storage.collection<WalletRecord>('wallets').findOne({ field: 'did', op: 'eq', value: role }))!
      const byRoleKey = await tokenOfWallet(roleWallet.id, role)
      const holder = await walletWithToken(h)
      expect(
        (await h.request('POST', '/roles/assignmnets', { json: { assignments: [{ role, did: holder.did }] }, didAuth: byRoleKey })).body
          .errors,
      ).toEqual([])
      const update = (didAuth: string, description: string) => h.request('PUT', '/roles', { json: { did: role, description }, didAuth })
      const managed = await update(byRoleKey, 'by the role DID’s key')
      expect(managed.body.errors, JSON.stringify(managed.body)).toEqual([])
      for (const [who, didAuth] of Object.entries({ holder: holder.jwt, other: (await walletWithToken(h)).jwt })) {
        const before = await snapshot(h)
        const res = await update(didAuth, `taken by ${who}`)
        expect(res.body.errors[0].error, who).toEqual({ statusCode: 403, errorType: 'FORBIDDEN', errorMessage: expect.any(String) })
        expect(await snapshot(h), who).toEqual(before)
      }
    },
  )

  it.each(['secp256k1', 'P-256', 'Ed25519'] as const)(
    'own did:web %s wallet: its key controls it until it hands the DID to another (newOwner); then that DID’s key does, its own no longer',
    async (keyType) => {
      const made = await h.request('POST', '/wallet', { json: { walletConfig: { didMethod: 'web', keyType } } })
      expect(made.status, JSON.stringify(made.body)).toBe(200)
      const { did, _id } = made.body.wallet as { did: string; _id: string }
      const own = await tokenOfWallet(_id, did)
      const heir = await ownWallet('key', keyType)
      const eve = await walletWithToken(h)
      const configure = (txsInput: unknown[], didAuth: string) =>
        h.request('POST', '/wallet/configure', { json: { wallet: { did }, walletConfig: { txsInput } }, didAuth })
      // The attack: another wallet of the tenant hands the DID to itself — refused, nothing written.
      const before = await snapshot(h)
      const stolen = await configure([{ newOwner: eve.did }], eve.jwt)
      expect(stolen.body).toEqual({ statusCode: 403, errorType: 'FORBIDDEN', errorMessage: expect.any(String) })
      expect(await snapshot(h)).toEqual(before)
      expect((await rename(did, `by its own key ${keyType}`, own)).body.errors ?? []).toEqual([])
      const handed = await configure([{ newOwner: heir.did }], own)
      expect(handed.status, JSON.stringify(handed.body)).toBe(200)
      // The heir's key controls the did:web wallet; the wallet's own key, gone from the document, signs for it no more.
      expect((await rename(did, `by the heir ${keyType}`, heir.jwt)).body.errors ?? []).toEqual([])
      expect(await aliasOf(_id)).toBe(`by the heir ${keyType}`)
      const after = await snapshot(h)
      const refused = await rename(did, `by the old key ${keyType}`, own)
      expect(refused.body).toEqual({ statusCode: 403, errorType: 'UNAUTHENTICATED', errorMessage: expect.any(String) })
      expect(await snapshot(h)).toEqual(after)
    },
  )
})
