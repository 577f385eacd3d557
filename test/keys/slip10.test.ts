import { readFileSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { derivePath, getPublicKey } from 'ed25519-hd-key'
import { mnemonicToSeedSync } from '@scure/bip39'
import {
  deriveSlip10WalletKey,
  parseSlip10Path,
  slip10AccountNodeOf,
  slip10Derive,
  slip10PublicKey,
  slip10WalletPath,
  Slip10PathError,
  SLIP10_NODE_BYTES,
  type Slip10KeyType,
} from '../../src/keys/slip10.js'

interface Chain {
  path: string
  chainCode: string
  private: string
  public: string
}
interface Vector {
  name: string
  curve: 'ed25519' | 'nist256p1'
  seed: string
  chains: Chain[]
}

const { vectors } = JSON.parse(readFileSync(new URL('../fixtures/vectors/slip-0010/vectors.json', import.meta.url), 'utf8')) as {
  vectors: Vector[]
}
const KEY_TYPE = { ed25519: 'Ed25519', nist256p1: 'P-256' } as const
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex')
const DEV_MNEMONIC = 'test test test test test test test test test test test junk'

describe('SLIP-0010 test vectors (every Ed25519 and nist256p1 vector of the document, every chain step)', () => {
  it('holds the whole fixture: vectors 1 and 2 per curve and both nist256p1 retry vectors', () => {
    expect(vectors.map((v) => v.name)).toEqual([
      'Test vector 1 for nist256p1',
      'Test vector 1 for ed25519',
      'Test vector 2 for nist256p1',
      'Test vector 2 for ed25519',
      'Test derivation retry for nist256p1',
      'Test seed retry for nist256p1',
    ])
    expect(vectors.flatMap((v) => v.chains)).toHaveLength(28)
  })

  for (const vector of vectors) {
    describe(vector.name, () => {
      const keyType = KEY_TYPE[vector.curve]
      for (const chain of vector.chains) {
        it(`derives ${chain.path}: chain code, private key and public key`, () => {
          const node = slip10Derive(keyType, Buffer.from(vector.seed, 'hex'), chain.path)
          expect(hex(node.chainCode)).toBe(chain.chainCode)
          expect(hex(node.privateKey)).toBe(chain.private)
          const publicKey = slip10PublicKey(keyType, node.privateKey)
          // The document serializes an Ed25519 public key as 0x00 ‖ its 32 bytes (SLIP-0010 serP).
          expect(publicKey).toHaveLength(keyType === 'Ed25519' ? 32 : 33)
          expect(keyType === 'Ed25519' ? '00' + hex(publicKey) : hex(publicKey)).toBe(chain.public)
        })
      }
    })
  }
})

describe("wallet keys of a BIP44 vault (m/44'/60'/0'/0'/<index>')", () => {
  for (const keyType of ['Ed25519', 'P-256'] as const) {
    it(`${keyType}: one step from the packed account node equals deriving the full path from the seed`, () => {
      const seed = mnemonicToSeedSync(DEV_MNEMONIC)
      const node = slip10AccountNodeOf(keyType, seed)
      expect(node).toHaveLength(SLIP10_NODE_BYTES)
      const keys = new Set<string>()
      for (const index of [0, 1, 2, 17, 1000, 2 ** 31 - 1]) {
        const key = deriveSlip10WalletKey(keyType, node, index)
        expect(hex(key)).toBe(hex(slip10Derive(keyType, seed, slip10WalletPath(index)).privateKey))
        keys.add(hex(key))
      }
      expect(keys.size).toBe(6)
      // Deriving wipes its own intermediates, never the sealed node it is given.
      expect(hex(node)).toBe(hex(slip10AccountNodeOf(keyType, seed)))
      expect(slip10WalletPath(7)).toBe("m/44'/60'/0'/0'/7'")
    })
  }

  it('the two curves derive different keys from one seed, and neither mutates the seed', () => {
    const seed = mnemonicToSeedSync(DEV_MNEMONIC)
    const copy = Uint8Array.from(seed)
    const ed = slip10Derive('Ed25519', seed, slip10WalletPath(0)).privateKey
    const p = slip10Derive('P-256', seed, slip10WalletPath(0)).privateKey
    expect(hex(ed)).not.toBe(hex(p))
    expect(seed).toEqual(copy)
  })
})

describe('refusals', () => {
  it('refuses non-hardened Ed25519 steps, saying so', () => {
    for (const path of ['m/0', "m/0'/1", "m/44'/60'/0'/0/3"]) {
      expect(() => slip10Derive('Ed25519', randomBytes(32), path)).toThrow(/only hardened Ed25519 keys: \d+ in .* is not hardened/)
    }
    // P-256 has non-hardened steps (the document's vectors use them).
    expect(parseSlip10Path('P-256', "m/0'/1")).toEqual([0x80000000, 1])
  })

  const bad = ['', 'm/', 'M', "n/0'", "m//0'", "m/-1'", "m/01'", "m/0''", 'm/0h', "m/1e3'", "m/0x1'", " m/0'", "m/0'/"]
  const tooLarge = ["m/2147483648'", 'm/2147483648', "m/99999999999'"]
  for (const keyType of ['Ed25519', 'P-256'] as const satisfies readonly Slip10KeyType[]) {
    it(`${keyType}: refuses malformed paths, indexes >= 2^31 and more than 255 levels`, () => {
      for (const path of [...bad, ...tooLarge, 'm' + "/0'".repeat(256), 'm/' + '1'.repeat(10_000)]) {
        expect(() => slip10Derive(keyType, randomBytes(32), path), path).toThrow(Slip10PathError)
      }
      expect(() => slip10Derive(keyType, randomBytes(32), 'm' + "/0'".repeat(255))).not.toThrow()
      expect(() => slip10Derive(keyType, randomBytes(32), "m/2147483647'")).not.toThrow()
    })

    it(`${keyType}: refuses wallet indexes out of range and a node that is not a packed account node`, () => {
      const node = slip10AccountNodeOf(keyType, randomBytes(64))
      for (const index of [-1, 2 ** 31, 1.5, Number.NaN, Number.MAX_SAFE_INTEGER]) {
        expect(() => deriveSlip10WalletKey(keyType, node, index), String(index)).toThrow(Slip10PathError)
        expect(() => slip10WalletPath(index), String(index)).toThrow(Slip10PathError)
      }
      expect(() => deriveSlip10WalletKey(keyType, node.subarray(0, 63), 0)).toThrow(/not a packed SLIP-0010 account node/)
    })
  }
})

describe('differential: Ed25519 against ed25519-hd-key', () => {
  it('agrees on private key, chain code and public key over random seeds and hardened paths', () => {
    for (let run = 0; run < 200; run++) {
      const seed = randomBytes([16, 32, 64][run % 3])
      const depth = 1 + (run % 6)
      const path = 'm' + Array.from({ length: depth }, () => `/${randomBytes(4).readUInt32BE() & 0x7fffffff}'`).join('')
      const ours = slip10Derive('Ed25519', seed, path)
      const theirs = derivePath(path, seed.toString('hex'))
      expect(hex(ours.privateKey), path).toBe(hex(theirs.key))
      expect(hex(ours.chainCode), path).toBe(hex(theirs.chainCode))
      expect(hex(slip10PublicKey('Ed25519', ours.privateKey))).toBe(hex(getPublicKey(theirs.key, false)))
    }
  })
})
