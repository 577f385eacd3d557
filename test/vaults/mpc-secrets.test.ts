/**
 * MPC secrets: no share, reconstructed seed or derived private key in the SQLite files' bytes,
 * the responses or the logs; and master-key rotation reseals every share (the vault still
 * signs with a quorum afterwards, under the new key only).
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { HDKey } from '@scure/bip32'
import { combine } from 'shamir-secret-sharing'
import { randomMasterKey, Keyring } from '../../src/keys/keyring.js'
import { openKeyring } from '../../src/custody/keyring-store.js'
import { addressOf, publicKeyOf } from '../../src/keys/secp256k1.js'
import { secretContext } from '../../src/keys/secret-context.js'
import { startHarness, type Harness } from '../helpers/harness.js'
import { approvals, member, mpcVaultBody, type Member } from '../helpers/mpc.js'

const masterKey = randomMasterKey()
const logs: string[] = []
const responses: string[] = []
let h: Harness
let members: Member[]
let hdVault: { id: string }
const hdWallets: Array<{ did: string; index: number; ethereumAddress: string }> = []
let plainWallet: { did: string; ethereumAddress: string }

async function call(method: string, path: string, init: Parameters<Harness['request']>[2] = {}) {
  const res = await h.request(method, path, init)
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(500)
  responses.push(JSON.stringify(res.body))
  return res
}

beforeAll(async () => {
  for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const)
    vi.spyOn(console, method).mockImplementation((...args) => void logs.push(args.map(String).join(' ')))
  h = await startHarness({
    storage: 'sqlite',
    service: { masterKey, onError: (op, err) => void logs.push(`${op}: ${String(err)} ${(err as Error)?.stack ?? ''}`) },
  })
  members = await Promise.all([member(), member(), member()])
  const quorum = () => approvals(members[0], members[1])
  hdVault = (
    await call('POST', '/vaults', { json: mpcVaultBody(members, { walletConfig: { txsInput: [{ delegate: { validity: 60_000 } }] } }) })
  ).body.vault
  await call('POST', `/vaults/${hdVault.id}/initialize`, { json: {}, didAuth: await quorum() })
  for (let i = 0; i < 2; i++)
    hdWallets.push((await call('POST', `/vaults/${hdVault.id}/wallet`, { json: {}, didAuth: await quorum() })).body.wallet)
  const plain = (await call('POST', '/vaults', { json: mpcVaultBody(members, { hierarchy: 'NONE' }) })).body.vault
  await call('POST', `/vaults/${plain.id}/initialize`, { json: {}, didAuth: await quorum() })
  plainWallet = (await call('POST', `/vaults/${plain.id}/wallet`, { json: {}, didAuth: await quorum() })).body.wallet
  for (const w of [...hdWallets, plainWallet]) await call('POST', '/did-auth-jwt', { json: { iss: w.did }, didAuth: await quorum() })
  await call('POST', '/did-auth-jwt', { json: { iss: plainWallet.did }, didAuth: await approvals(members[2]) })
  await call('GET', '/vaults')
  await call('GET', '/wallets')
})
afterAll(async () => {
  vi.restoreAllMocks()
  await h.close()
})

/** Every share, opened with the master key, by vault. */
async function openShares(key = masterKey): Promise<Map<string, Uint8Array[]>> {
  const keyring = await openKeyring(h.storage, key)
  const byVault = new Map<string, Uint8Array[]>()
  for (const share of (await h.storage.collection('mpcShares').find({ and: [] }, { limit: 1_000 })).items as any[]) {
    const list = byVault.get(share.vaultId) ?? []
    list.push(keyring.open(share.share, secretContext('mpcShares', share, 'share')))
    byVault.set(share.vaultId, list)
  }
  return byVault
}

function databaseBytes(): Buffer {
  return Buffer.concat(readdirSync(h.dir!).map((f) => readFileSync(join(h.dir!, f))))
}

/** Every secret a leak could show: the shares, the reconstructed secrets and the wallets' private keys — checked to be the real ones. */
async function secrets(): Promise<Uint8Array[]> {
  const shares = await openShares()
  const hdShares = shares.get(hdVault.id)!
  expect(hdShares).toHaveLength(3)
  const seed = await combine(hdShares.slice(0, 2))
  const account = HDKey.fromMasterSeed(seed).derive("m/44'/60'/0'/0")
  const walletKeys = hdWallets.map((w) => {
    const key = account.deriveChild(w.index).privateKey!
    expect(addressOf(publicKeyOf(key))).toBe(w.ethereumAddress)
    return key
  })
  const plainShares = [...shares.entries()].find(([id]) => id !== hdVault.id)![1]
  const plainKey = await combine(plainShares.slice(1, 3))
  expect(addressOf(publicKeyOf(plainKey))).toBe(plainWallet.ethereumAddress)
  // The account chain code is not among them: with the account public key it is the vault's public derivation data (docs/mpc.md).
  return [...hdShares, seed, account.privateKey!, ...walletKeys, ...plainShares, plainKey]
}

function expectAbsent(haystack: Buffer, found: Uint8Array[]) {
  const text = haystack.toString('latin1')
  for (const secret of found) {
    const hex = Buffer.from(secret).toString('hex')
    expect(text.includes(hex)).toBe(false)
    expect(text.includes(hex.toUpperCase())).toBe(false)
    expect(text.includes(Buffer.from(secret).toString('base64'))).toBe(false)
    expect(haystack.includes(Buffer.from(secret))).toBe(false)
  }
}

describe('MPC secrets', () => {
  it('no share, reconstructed secret or derived key in the database files, the responses or the logs', async () => {
    const found = await secrets()
    expect(found.length).toBe(3 + 2 + 2 + 3 + 1)
    expectAbsent(databaseBytes(), found)
    expect(responses.length).toBeGreaterThan(10)
    expectAbsent(Buffer.from(responses.join('\n')), found)
    expectAbsent(Buffer.from(logs.join('\n')), found)
  })

  it('master-key rotation reseals every share; the vault then signs with a quorum under the new key', async () => {
    const before = (await h.storage.collection('mpcShares').find({ and: [] }, { limit: 1_000 })).items as any[]
    expect(before).toHaveLength(6)
    const found = await secrets()
    const plaintext = async (key: typeof masterKey) =>
      [...(await openShares(key)).values()]
        .flat()
        .map((x) => Buffer.from(x).toString('hex'))
        .sort()
    const sharesBefore = await plaintext(masterKey)
    const newKey = randomMasterKey()
    const { resealed } = await h.service.rotateMasterKey(newKey)
    expect(resealed).toBeGreaterThanOrEqual(before.length)
    const after = (await h.storage.collection('mpcShares').find({ and: [] }, { limit: 1_000 })).items as any[]
    const newKeyId = Keyring.keyIdOf(after[0].share)
    for (const share of after) {
      expect(Keyring.keyIdOf(share.share)).toBe(newKeyId)
      expect(share.share).not.toBe(before.find((b) => b.id === share.id).share)
    }
    expect(newKeyId).not.toBe(Keyring.keyIdOf(before[0].share))
    // The same shares, opened with the new key.
    expect(await plaintext(newKey)).toEqual(sharesBefore)
    const res = await h.request('POST', '/did-auth-jwt', {
      json: { iss: hdWallets[1].did },
      didAuth: await approvals(members[1], members[2]),
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expectAbsent(databaseBytes(), found)
  })
})
