/** The key arithmetic MPC vaults rest on: public BIP32 derivation, DER public keys, Shamir custody, quorum counting. */
import { createPublicKey } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { HDKey } from '@scure/bip32'
import { mnemonicToSeedSync } from '@scure/bip39'
import { deriveChildPublicKey, privateKeyAtPath } from '../../src/keys/hd.js'
import { publicKeyDerHex } from '../../src/keys/spki.js'
import { addressOf, bytesToHex, isLowS, publicKeyOf, recoverPublicKey, uncompressedOf } from '../../src/keys/secp256k1.js'
import { createMemoryStorage, randomMasterKey } from '../../src/index.js'
import { COLLECTIONS } from '../../src/service/collections.js'
import { openKeyring } from '../../src/custody/keyring-store.js'
import { KeyCustody } from '../../src/custody/key-custody.js'
import { ShamirQuorumCustody } from '../../src/mpc/shamir-quorum-custody.js'
import { standingOf } from '../../src/mpc/quorum.js'
import type { MpcVaultRef } from '../../src/mpc/port.js'

const DEV_MNEMONIC = 'test test test test test test test test test test test junk'

describe('public BIP32 derivation (CKDpub)', () => {
  it("gives the public keys @scure/bip32 derives privately, at m/44'/60'/0'/0/i", () => {
    const account = HDKey.fromMasterSeed(mnemonicToSeedSync(DEV_MNEMONIC)).derive("m/44'/60'/0'/0")
    const node = { publicKey: account.publicKey!, chainCode: account.chainCode! }
    for (const i of [0, 1, 7, 1000, 0x7fffffff])
      expect(bytesToHex(deriveChildPublicKey(node, i))).toBe(bytesToHex(account.deriveChild(i).publicKey!))
    for (const i of [0, 5])
      expect(bytesToHex(deriveChildPublicKey(node, i, false))).toBe(bytesToHex(uncompressedOf(account.deriveChild(i).publicKey!)))
    expect(addressOf(deriveChildPublicKey(node, 0))).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266')
    expect(() => deriveChildPublicKey(node, 0x80000000)).toThrow(RangeError)
    expect(() => deriveChildPublicKey(node, -1)).toThrow(RangeError)
  })
})

describe('private BIP32 derivation from a seed (CKDpriv)', () => {
  it('gives the keys @scure/bip32 derives, at hardened and non-hardened paths; refuses what is not a path', () => {
    const seed = mnemonicToSeedSync(DEV_MNEMONIC)
    const root = HDKey.fromMasterSeed(seed)
    for (const path of ['m', "m/44'/60'/0'/0/0", "m/44'/60'/0'/0/1", "m/44'/60'/0'/0/2147483647", "m/0/1'/2", "m/2147483647'"])
      expect(bytesToHex(privateKeyAtPath(seed, path))).toBe(bytesToHex(root.derive(path).privateKey!))
    expect(addressOf(publicKeyOf(privateKeyAtPath(seed, "m/44'/60'/0'/0/0")))).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266')
    for (const bad of ['', "44'/60'", 'm/x', "m/2147483648'", 'm/-1', 'm//0'])
      expect(() => privateKeyAtPath(seed, bad)).toThrow(/not a BIP32 path/)
  })
})

describe('publicKeyDER', () => {
  it('is a SubjectPublicKeyInfo that node reads back as the same secp256k1 key, from either form', () => {
    const account = HDKey.fromMasterSeed(mnemonicToSeedSync(DEV_MNEMONIC)).derive("m/44'/60'/0'/0/0")
    const der = publicKeyDerHex(account.publicKey!)
    expect(publicKeyDerHex(publicKeyOf(account.privateKey!))).toBe(der)
    const jwk = createPublicKey({ key: Buffer.from(der, 'hex'), format: 'der', type: 'spki' }).export({ format: 'jwk' })
    expect(jwk.crv).toBe('secp256k1')
    expect('04' + Buffer.from(jwk.x!, 'base64url').toString('hex') + Buffer.from(jwk.y!, 'base64url').toString('hex')).toBe(
      bytesToHex(publicKeyOf(account.privateKey!)),
    )
  })
})

describe('quorum counting', () => {
  const policy = {
    groups: [
      { name: 'a', requiredApprovals: 2, members: ['x', 'y', 'z'] },
      { name: 'b', requiredApprovals: 1, members: ['w'] },
    ],
  }
  it('meets a group with enough distinct members; counts a member once and a non-member not at all; names the closest group otherwise', () => {
    expect(standingOf(policy, ['x', 'z'])).toMatchObject({ met: true, approvers: ['x', 'z'] })
    expect(standingOf(policy, ['w'])).toMatchObject({ met: true, group: { name: 'b' } })
    expect(standingOf(policy, ['x', 'x', 'q'])).toMatchObject({ met: false, missing: 1, group: { name: 'a' } })
    expect(standingOf(policy, [])).toMatchObject({ met: false, missing: 1, group: { name: 'b' } })
  })
})

describe('ShamirQuorumCustody', () => {
  async function custody() {
    const storage = createMemoryStorage()
    await storage.init(COLLECTIONS)
    const keyring = await openKeyring(storage, randomMasterKey())
    return { storage, provider: new ShamirQuorumCustody(storage, new KeyCustody(keyring)) }
  }
  const vault = (hierarchy: 'NONE' | 'BIP44', requiredApprovals: number, members = ['m1', 'm2', 'm3']): MpcVaultRef => ({
    tenantId: 't',
    vaultId: `v-${hierarchy}-${requiredApprovals}`,
    mpcAccountID: 'a',
    mpcVaultID: 'mv',
    hierarchy,
    policy: { groups: [{ name: 'g', requiredApprovals, members }] },
  })
  const digest = new Uint8Array(32).fill(7)

  it.each([
    ['BIP44 2-of-3', vault('BIP44', 2), "m/44'/60'/0'/0/5"],
    ['NONE 2-of-3', vault('NONE', 2), 'm'],
    ['NONE 1-of-2 (copies: Shamir needs a threshold of 2)', vault('NONE', 1, ['m1', 'm2']), 'm'],
    ['BIP44 3-of-3', vault('BIP44', 3), "m/44'/60'/0'/0/0"],
  ])('%s: pending below the threshold; with it, low-S signatures by the key the public data derives', async (_name, ref, path) => {
    const { storage, provider } = await custody()
    const members = ref.policy.groups[0].members
    const t = ref.policy.groups[0].requiredApprovals
    if (t > 1) expect(await provider.initialize(ref, members.slice(0, t - 1))).toMatchObject({ status: 'pending', missingApprovals: 1 })
    expect(await provider.initialize(ref, members.slice(0, t))).toEqual({ status: 'initialized' })
    expect(await storage.collection('mpcShares').count({ field: 'vaultId', op: 'eq', value: ref.vaultId })).toBe(members.length)
    const pub = await provider.getPublicKey(ref, ref.hierarchy === 'BIP44' ? "m/44'/60'/0'/0" : 'm')
    const expected =
      ref.hierarchy === 'BIP44'
        ? deriveChildPublicKey({ publicKey: pub.publicKey, chainCode: pub.chainCode! }, Number(path.split('/').pop()))
        : pub.publicKey

    if (t > 1)
      expect(await provider.requestSignature({ vault: ref, path, digest, approvals: [members[0], members[0], 'outsider'] })).toMatchObject({
        status: 'pending',
        reason: 'insufficient-approvals',
        missingApprovals: t - 1,
        group: 'g',
      })
    for (const approvers of [members.slice(0, t), members.slice(-t)]) {
      const outcome = await provider.requestSignature({ vault: ref, path, digest, approvals: approvers })
      if (outcome.status !== 'signed') throw new Error('not signed')
      expect(isLowS(outcome.signature)).toBe(true)
      expect(addressOf(recoverPublicKey(outcome.signature, digest))).toBe(addressOf(expected))
    }
    // Idempotent: a second initialize keeps the key.
    expect(await provider.initialize(ref, members.slice(0, t))).toEqual({ status: 'initialized' })
    expect(bytesToHex((await provider.getPublicKey(ref, ref.hierarchy === 'BIP44' ? "m/44'/60'/0'/0" : 'm')).publicKey)).toBe(
      bytesToHex(pub.publicKey),
    )
    await provider.deleteVault(ref)
    expect(await storage.collection('mpcShares').count({ field: 'vaultId', op: 'eq', value: ref.vaultId })).toBe(0)
    await expect(provider.requestSignature({ vault: ref, path, digest, approvals: members })).rejects.toThrow(/not initialized/)
  })

  it('concurrent initializations keep one key', async () => {
    const { storage, provider } = await custody()
    const ref = vault('BIP44', 2)
    await Promise.all(Array.from({ length: 5 }, () => provider.initialize(ref, ['m1', 'm2'])))
    expect(await storage.collection('mpcShares').count({ field: 'vaultId', op: 'eq', value: ref.vaultId })).toBe(3)
    const pub = await provider.getPublicKey(ref, "m/44'/60'/0'/0")
    const outcome = await provider.requestSignature({ vault: ref, path: "m/44'/60'/0'/0/0", digest, approvals: ['m2', 'm3'] })
    if (outcome.status !== 'signed') throw new Error('not signed')
    expect(addressOf(recoverPublicKey(outcome.signature, digest))).toBe(
      addressOf(deriveChildPublicKey({ publicKey: pub.publicKey, chainCode: pub.chainCode! }, 0)),
    )
  })
})
