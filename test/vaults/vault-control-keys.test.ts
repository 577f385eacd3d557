/**
 * Vault control by the keys of the service's own did:key, did:jwk and did:web wallets (P-256, Ed25519, secp256k1),
 * through the real HTTP router: a BIP44 vault created with `walletConfig.didMethod` / `keyType` is governed by a
 * DID-auth token signed by its root wallet's own key (its sealed key in the service's storage, signed by the sealed key
 * backend over the same storage and master key) — it creates a wallet in the vault, and that wallet's own key (a key
 * type of its own) governs the vault too — and the root key deletes the vault. The root key governs the vault even
 * once its wallet is gone (did:key: the DID still resolves). The attack: another wallet of the tenant, of the same
 * method and key type, and an outside did:key holder of the same key type create a wallet in the vault or delete it —
 * 403 FORBIDDEN with the error body, nothing written. On memory and SQLite storage (the wallets' key-id index).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { KeyType } from '../../src/keys/key-types.js'
import { randomMasterKey } from '../../src/index.js'
import { ownKeyTokens, type WalletTokenSigner } from '../helpers/wallet-tokens.js'
import { snapshot, startHarness, type Harness } from '../helpers/harness.js'
import { didJwtHolder } from '../helpers/key-holders.js'

type Method = 'key' | 'jwk' | 'web'
const MASTER_KEY = randomMasterKey()
/** Root wallet (method, key type) and the key type of the wallet it creates in its vault. */
const ROOTS: ReadonlyArray<readonly [Method, KeyType, KeyType]> = [
  ['key', 'P-256', 'Ed25519'],
  ['jwk', 'Ed25519', 'P-256'],
  ['web', 'P-256', 'secp256k1'],
  ['web', 'Ed25519', 'P-256'],
  ['jwk', 'secp256k1', 'Ed25519'],
]

let h: Harness
let tokenOfWallet: WalletTokenSigner

/** A BIP44 vault whose root wallet is of `method` and `keyType`, and a token signed by the root wallet's own key. */
async function vaultOf(method: Method, keyType: KeyType) {
  const res = await h.request('POST', '/vaults', {
    json: { name: `${method}-${keyType}`, hierarchy: 'BIP44', walletConfig: { didMethod: method, keyType } },
  })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  const vault = res.body.vault as { id: string; wallets: Array<{ did: string; _id: string }> }
  const root = vault.wallets[0]
  return { id: vault.id, root, jwt: await tokenOfWallet(root._id, root.did) }
}

const createIn = (vaultId: string, didAuth: string, walletConfig?: unknown) =>
  h.request('POST', `/vaults/${vaultId}/wallet`, { json: walletConfig === undefined ? {} : { walletConfig }, didAuth })
const deleteVault = (vaultId: string, didAuth: string) => h.request('DELETE', '/vaults', { json: { _id: vaultId }, didAuth })

function expectForbidden(res: { status: number; body: unknown }) {
  expect(res.status, JSON.stringify(res.body)).toBe(403)
  expect(res.body).toEqual({ statusCode: 403, errorType: 'FORBIDDEN', errorMessage: expect.any(String) })
}

for (const storage of ['memory', 'sqlite'] as const)
  describe(`vault control by the keys of did:key, did:jwk and did:web wallets (${storage})`, () => {
    beforeAll(async () => {
      h = await startHarness({ storage, service: { masterKey: MASTER_KEY, publicUrl: 'https://vault.example.com:8443/id' } })
      tokenOfWallet = await ownKeyTokens(h.storage, MASTER_KEY)
    })
    afterAll(() => h?.close())

    it.each(ROOTS)(
      'a did:%s %s root wallet’s key creates a wallet in its vault (whose %s key governs it too) and deletes the vault',
      async (method, keyType, memberType) => {
        const vault = await vaultOf(method, keyType)
        const made = await createIn(vault.id, vault.jwt, { didMethod: method, keyType: memberType })
        expect(made.status, JSON.stringify(made.body)).toBe(200)
        const member = made.body.wallet as { did: string; _id: string; vaultId: string }
        expect(member.vaultId).toBe(vault.id)
        const byMember = await createIn(vault.id, await tokenOfWallet(member._id, member.did))
        expect(byMember.status, JSON.stringify(byMember.body)).toBe(200)
        const deleted = await deleteVault(vault.id, vault.jwt)
        expect(deleted.status, JSON.stringify(deleted.body)).toBe(200)
        expect(deleted.body.wallets.map((w: { did: string }) => w.did).sort()).toEqual(
          [vault.root.did, member.did, byMember.body.wallet.did].sort(),
        )
        expect(await h.storage.collection('vaults').get(vault.id)).toBeUndefined()
      },
    )

    it.each(ROOTS)(
      'did:%s %s: another wallet of the tenant and an outside holder are refused, nothing written',
      async (method, keyType) => {
        const vault = await vaultOf(method, keyType)
        const other = await vaultOf(method, keyType)
        const tokens = [other.jwt, await didJwtHolder(method === 'web' ? 'key' : method, keyType).token()]
        const before = await snapshot(h)
        for (const didAuth of tokens) {
          expectForbidden(await createIn(vault.id, didAuth))
          expectForbidden(await deleteVault(vault.id, didAuth))
        }
        expect(await snapshot(h)).toEqual(before)
      },
    )

    it('the root key governs its vault even once the root wallet is gone (did:key P-256)', async () => {
      const vault = await vaultOf('key', 'P-256')
      const gone = await h.request('DELETE', '/wallet', { json: { ids: [vault.root.did] }, didAuth: vault.jwt })
      expect(gone.status, JSON.stringify(gone.body)).toBe(200)
      expect(gone.body.errors).toEqual([])
      const made = await createIn(vault.id, vault.jwt)
      expect(made.status, JSON.stringify(made.body)).toBe(200)
      expect((await deleteVault(vault.id, vault.jwt)).status).toBe(200)
    })
  })
