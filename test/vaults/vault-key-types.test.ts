/**
 * Vaults of every DID method and key type: Create Identity Vault's `walletConfig` template and Create Identity Vault's
 * Wallet take `didMethod` / `keyType` with the same 422s as Generate Identity Wallet (an impossible template is refused
 * at vault creation, nothing written); NONE vaults get a fresh key of the type; BIP44 vaults derive every key type from
 * the one mnemonic — secp256k1 by BIP32 at m/44'/60'/0'/0/i, Ed25519 and P-256 by SLIP-0010 at m/44'/60'/0'/0'/i' —
 * with one index counter shared by all types (concurrent mixed creations: 0..n-1, on SQLite and PostgreSQL), the path
 * in the wallet record, and a sealed SLIP-0010 account node per curve, so no derivation reruns BIP39's PBKDF2.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ed25519 } from '@noble/curves/ed25519.js'
import { p256 } from '@noble/curves/nist.js'
import { HDKey } from '@scure/bip32'
import { mnemonicToSeedSync } from '@scure/bip39'
import { derivePath } from 'ed25519-hd-key'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { IdentityService, randomMasterKey, staticTenants } from '../../src/index.js'
import { SEALED_KEYS, SealedKeyBackend } from '../../src/keys/backends/sealed/index.js'
import { hdWalletPath } from '../../src/keys/hd.js'
import type { KeyType, PublicJwk } from '../../src/keys/key-types.js'
import { Keyring } from '../../src/keys/keyring.js'
import { secretContext } from '../../src/keys/secret-context.js'
import { slip10AccountNodeOf, slip10Derive } from '../../src/keys/slip10.js'
import { createSqliteStorage } from '../../src/storage/sqlite/index.js'
import { COLLECTIONS } from '../../src/service/collections.js'
import type { VaultRecord } from '../../src/vaults/records.js'
import type { WalletRecord } from '../../src/wallets/records.js'
import { expectError, snapshot, startHarness, tokenFor, type Harness } from '../helpers/harness.js'

const PUBLIC_URL = 'https://vault.example.com'

/** The public key of wallet `index` of a mnemonic, by an implementation other than the service's path to it. */
function expectedPublicKey(mnemonic: string, type: KeyType, index: number): string {
  const seed = mnemonicToSeedSync(mnemonic)
  const path = hdWalletPath(type, index)
  if (type === 'secp256k1') return Buffer.from(HDKey.fromMasterSeed(seed).derive(path).publicKey!).toString('hex')
  // Ed25519: ed25519-hd-key; P-256: no npm package derives nist256p1, so SLIP-0010 from the seed (held to the vectors).
  if (type === 'Ed25519') return Buffer.from(ed25519.getPublicKey(derivePath(path, Buffer.from(seed).toString('hex')).key)).toString('hex')
  return Buffer.from(p256.getPublicKey(slip10Derive('P-256', seed, path).privateKey, true)).toString('hex')
}

/** The JWK's public key in the form {@link expectedPublicKey} gives: compressed SEC1 for EC keys, the 32 bytes for Ed25519. */
function publicKeyOf(jwk: PublicJwk): string {
  const x = Buffer.from(jwk.x, 'base64url')
  if (jwk.kty === 'OKP') return x.toString('hex')
  const y = Buffer.from(jwk.y!, 'base64url')
  return Buffer.concat([Buffer.of(2 + (y[31] & 1)), x]).toString('hex')
}

const MIXED: Array<{ didMethod: string; keyType: KeyType }> = [
  { didMethod: 'ethr', keyType: 'secp256k1' },
  { didMethod: 'key', keyType: 'Ed25519' },
  { didMethod: 'jwk', keyType: 'P-256' },
  { didMethod: 'web', keyType: 'Ed25519' },
  { didMethod: 'key', keyType: 'secp256k1' },
  { didMethod: 'web', keyType: 'P-256' },
]

/** 12 concurrent wallet creations of mixed key types in a new BIP44 vault: indexes 0..12, each key derived at its index. */
async function mixedConcurrentWallets(h: Harness) {
  const { vault } = (await h.request('POST', '/vaults', { json: { name: 'mixed', hierarchy: 'BIP44' } })).body
  const jwt = await tokenFor(h, vault.wallets[0].did)
  const configs = Array.from({ length: 12 }, (_, i) => MIXED[i % MIXED.length])
  const created = await Promise.all(
    configs.map((walletConfig) => h.request('POST', `/vaults/${vault.id}/wallet`, { json: { walletConfig }, didAuth: jwt })),
  )
  expect(created.map((res) => res.status)).toEqual(Array(12).fill(200))
  const records = (
    await h.storage.collection<WalletRecord>('wallets').find({ field: 'vaultId', op: 'eq', value: vault.id }, { limit: 100 })
  ).items
  expect(records.map((w) => w.index).sort((a, b) => a! - b!)).toEqual(Array.from({ length: 13 }, (_, i) => i))
  for (const w of records) {
    expect(w.path).toBe(hdWalletPath(w.keyType!, w.index!))
    expect(publicKeyOf(w.publicKeyJwk!)).toBe(expectedPublicKey(vault.mnemonic, w.keyType!, w.index!))
  }
  expect(new Set(records.map((w) => w.keyType))).toEqual(new Set(['secp256k1', 'Ed25519', 'P-256']))
}

describe('vault templates and vault wallets of every method and key type', () => {
  let h: Harness
  let bare: Harness
  beforeAll(async () => {
    ;[h, bare] = await Promise.all([startHarness({ storage: 'sqlite', service: { publicUrl: PUBLIC_URL } }), startHarness()])
  })
  afterAll(() => Promise.all([h?.close(), bare?.close()]))

  it.each(['NONE', 'BIP44'] as const)(
    'a %s vault whose template names did:jwk with a P-256 key makes its wallets so',
    async (hierarchy) => {
      const walletConfig = { didMethod: 'jwk', keyType: 'P-256' }
      const res = await h.request('POST', '/vaults', { json: { name: `jwk-${hierarchy}`, hierarchy, walletConfig } })
      expect(res.status).toBe(200)
      const { vault } = res.body
      expect(vault.walletConfig).toEqual(walletConfig)
      const [w] = vault.wallets
      expect(w.did).toMatch(/^did:jwk:/)
      expect(w.publicKeyJwk.crv).toBe('P-256')
      expect(w.ethereumAddress).toBeUndefined()
      const record = (await h.storage.collection<WalletRecord>('wallets').get(w._id))!
      expect(record).toMatchObject({ keyType: 'P-256', didMethod: 'jwk', vaultId: vault.id })
      if (hierarchy === 'NONE') {
        expect(record.index).toBeUndefined()
        expect(record.path).toBeUndefined()
        return
      }
      expect(record).toMatchObject({ index: 0, path: "m/44'/60'/0'/0'/0'" })
      expect(publicKeyOf(w.publicKeyJwk)).toBe(expectedPublicKey(vault.mnemonic, 'P-256', 0))
      const fetched = await h.request('GET', `/vaults?id=${vault.id}`)
      expect(fetched.body.vaults[0].wallets[0].publicKeyJwk).toEqual(w.publicKeyJwk)
    },
  )

  it('vault wallets of different methods and key types share the vault’s one index counter and derive at their index', async () => {
    const { vault } = (await h.request('POST', '/vaults', { json: { name: 'ov', hierarchy: 'BIP44' } })).body
    const jwt = await tokenFor(h, vault.wallets[0].did)
    const ed = await h.request('POST', `/vaults/${vault.id}/wallet`, {
      json: { walletConfig: { didMethod: 'key', keyType: 'Ed25519' } },
      didAuth: jwt,
    })
    expect(ed.status).toBe(200)
    expect(ed.body.wallet).toMatchObject({ index: 1, isHDWallet: true, didMethod: 'key' })
    expect(ed.body.wallet.did).toMatch(/^did:key:z6Mk/)
    expect(publicKeyOf(ed.body.wallet.publicKeyJwk)).toBe(expectedPublicKey(vault.mnemonic, 'Ed25519', 1))
    const web = await h.request('POST', `/vaults/${vault.id}/wallet`, {
      json: { walletConfig: { didMethod: 'web', keyType: 'P-256' } },
      didAuth: jwt,
    })
    expect(web.body.wallet).toMatchObject({ index: 2, did: `did:web:vault.example.com:dids:${web.body.wallet._id}` })
    expect(publicKeyOf(web.body.wallet.publicKeyJwk)).toBe(expectedPublicKey(vault.mnemonic, 'P-256', 2))
    const eth = await h.request('POST', `/vaults/${vault.id}/wallet`, { json: {}, didAuth: jwt })
    expect(eth.body.wallet).toMatchObject({ index: 3, didMethod: 'ethr' })
    expect(publicKeyOf(eth.body.wallet.publicKeyJwk)).toBe(expectedPublicKey(vault.mnemonic, 'secp256k1', 3))
  })

  it('12 concurrent wallet creations of mixed key types in one BIP44 vault: indexes 0..12, keys derived at their index', async () => {
    await mixedConcurrentWallets(h)
  })

  const refusals: Array<[string, Record<string, unknown>, RegExp]> = [
    ['did:ethr (default) with an Ed25519 key', { keyType: 'Ed25519' }, /did:ethr takes secp256k1/],
    ['an unknown key type', { didMethod: 'key', keyType: 'X25519' }, /keyType/],
    ['an unknown method', { didMethod: 'peer' }, /unsupported DID method "peer"/],
    ['txsInput on did:key', { didMethod: 'key', txsInput: { delegate: { validity: 1000 } } }, /did:key DID is derived from its key/],
    ['apiUrl on did:jwk', { didMethod: 'jwk', apiUrl: 'local' }, /apiUrl: did:jwk has no registry/],
  ]

  it.each(refusals)('Create Identity Vault with a template naming %s: 422, nothing written', async (_name, walletConfig, message) => {
    for (const hierarchy of ['NONE', 'BIP44']) {
      const before = await snapshot(h)
      const res = await h.request('POST', '/vaults', { json: { name: 'refused', hierarchy, walletConfig } })
      expectError(res, 422, 'VALIDATION_ERROR')
      expect(res.body.errorMessage).toMatch(message)
      expect(await snapshot(h)).toEqual(before)
    }
  })

  it.each(refusals)('Create Identity Vault’s Wallet naming %s: 422, nothing written', async (_name, walletConfig, message) => {
    const { vault } = (await h.request('POST', '/vaults', { json: { name: 'w-refused', hierarchy: 'BIP44' } })).body
    const jwt = await tokenFor(h, vault.wallets[0].did)
    const before = await snapshot(h)
    const res = await h.request('POST', `/vaults/${vault.id}/wallet`, { json: { walletConfig }, didAuth: jwt })
    expectError(res, 422, 'VALIDATION_ERROR')
    expect(res.body.errorMessage).toMatch(message)
    expect(await snapshot(h)).toEqual(before)
  })

  it('a vault wallet naming only keyType P-256 is did:ethr by default (the vault has no template): 422, nothing written', async () => {
    const { vault } = (await h.request('POST', '/vaults', { json: { name: 'tpl', hierarchy: 'BIP44' } })).body
    const jwt = await tokenFor(h, vault.wallets[0].did)
    const before = await snapshot(h)
    const res = await h.request('POST', `/vaults/${vault.id}/wallet`, { json: { walletConfig: { keyType: 'P-256' } }, didAuth: jwt })
    expectError(res, 422, 'VALIDATION_ERROR')
    expect(res.body.errorMessage).toMatch(/did:ethr takes secp256k1/)
    expect(await snapshot(h)).toEqual(before)
  })

  it('did:web templates and vault wallets without publicUrl: 422 naming the setting, nothing written', async () => {
    const before = await snapshot(bare)
    const res = await bare.request('POST', '/vaults', { json: { name: 'web', hierarchy: 'BIP44', walletConfig: { didMethod: 'web' } } })
    expectError(res, 422, 'VALIDATION_ERROR')
    expect(res.body.errorMessage).toContain('publicUrl (--public-url, DIDVAULT_PUBLIC_URL)')
    expect(await snapshot(bare)).toEqual(before)
  })

  it('MPC vaults refuse a did:ethr template of another key type than secp256k1 (422 naming what did:ethr takes)', async () => {
    const before = await snapshot(h)
    const res = await h.request('POST', '/vaults', {
      json: {
        name: 'mpc',
        keyManagement: 'MPC',
        mpcAccountID: 'acct',
        mpcGroups: { name: 'g', requiredApprovals: 1, members: [{ id: 'did:ethr:dev:0x0000000000000000000000000000000000000001' }] },
        walletConfig: { didMethod: 'ethr', keyType: 'P-256' },
      },
    })
    expectError(res, 422, 'VALIDATION_ERROR')
    expect(res.body.errorMessage).toMatch(/a did:ethr DID cannot be made for a P-256 key/)
    expect(await snapshot(h)).toEqual(before)
  })
})

describe('the sealed SLIP-0010 account nodes of a BIP44 vault', () => {
  let dir: string
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('are sealed per curve, hold no plaintext on disk, and alone derive the SLIP-0010 keys of the mnemonic', async () => {
    dir = mkdtempSync(join(tmpdir(), 'didvault-slip10-nodes-'))
    const path = join(dir, 'db.sqlite')
    const masterKey = randomMasterKey()
    const auth = { authorization: 'Bearer token-a-0123456789' }
    const service = await IdentityService.create({
      storage: createSqliteStorage({ path }),
      masterKey,
      tenants: staticTenants({ 'token-a-0123456789': 'a' }),
    })
    const { vault } = await service.createVault(
      { name: 'v', hierarchy: 'BIP44', walletConfig: { didMethod: 'key', keyType: 'Ed25519' } },
      auth,
    )
    await service.close()

    const seed = mnemonicToSeedSync(vault.mnemonic!)
    const nodes = { Ed25519: slip10AccountNodeOf('Ed25519', seed), 'P-256': slip10AccountNodeOf('P-256', seed) }
    const walletKey = slip10Derive('Ed25519', seed, "m/44'/60'/0'/0'/0'").privateKey
    const bytes = Buffer.concat(readdirSync(dir).map((file) => readFileSync(join(dir, file))))
    const plaintexts = [
      Buffer.from(vault.mnemonic!),
      Buffer.from(seed),
      ...Object.values(nodes).map((n) => Buffer.from(n)),
      Buffer.from(walletKey),
    ]
    for (const secret of plaintexts)
      for (const spelling of [secret, Buffer.from(secret.toString('hex')), Buffer.from(secret.toString('base64'))])
        expect(bytes.includes(spelling)).toBe(false)

    const storage = createSqliteStorage({ path })
    await storage.init(COLLECTIONS)
    try {
      const record = (await storage.collection<VaultRecord>('vaults').get(vault.id))!
      const keyring = new Keyring(masterKey)
      // What is sealed is the SLIP-0010 account node of each curve.
      for (const [type, field] of [
        ['Ed25519', 'ed25519AccountNode'],
        ['P-256', 'p256AccountNode'],
      ] as const) {
        const sealed = { envelope: record[field]!, context: secretContext('vaults', record, field) }
        expect(Buffer.from(keyring.open(sealed.envelope, sealed.context))).toEqual(Buffer.from(nodes[type]))
        // The node alone (no mnemonic given) derives wallet 7 as SLIP-0010 does from the seed: no BIP39 PBKDF2 runs.
        const backend = new SealedKeyBackend(storage, keyring)
        const { publicJwk } = await backend.createKey('a', type, { slip10AccountNode: sealed, index: 7 })
        const expected = slip10Derive(type, seed, `m/44'/60'/0'/0'/7'`).privateKey
        const point = type === 'Ed25519' ? ed25519.getPublicKey(expected) : p256.getPublicKey(expected, true)
        expect(publicKeyOf(publicJwk)).toBe(Buffer.from(point).toString('hex'))
      }
      expect(await storage.collection(SEALED_KEYS.name).count({ and: [] })).toBe(3)
    } finally {
      await storage.close()
    }
  })
})

describe('concurrent mixed key types on PostgreSQL', () => {
  let pg: Harness
  beforeAll(async () => {
    pg = await startHarness({ storage: 'postgres', service: { publicUrl: PUBLIC_URL } })
  })
  afterAll(() => pg?.close())

  it('12 concurrent wallet creations of mixed key types in one BIP44 vault: indexes 0..12', async () => {
    await mixedConcurrentWallets(pg)
  }, 60_000)
})
