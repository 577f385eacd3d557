/**
 * BIP39 mnemonics and BIP44 derivation for hierarchical vaults: wallets live at
 * `m/44'/60'/0'/0/<index>`.
 *
 * The account node `m/44'/60'/0'/0` is derived once from the mnemonic with @scure/bip32 (which
 * runs PBKDF2 and the hardened steps) and kept sealed as `chainCode ‖ privateKey ‖ publicKey`.
 * Deriving wallet `i` is then the one non-hardened BIP32 step (CKDpriv): an HMAC-SHA512 and a
 * scalar addition, with no elliptic-curve multiplication — @scure/bip32 would spend two on
 * re-deriving public keys we do not need. Tests hold this step to @scure/bip32's results.
 */
import { HDKey } from '@scure/bip32'
import { generateMnemonic as generate, mnemonicToSeedSync, validateMnemonic } from '@scure/bip39'
import { wordlist } from '@scure/bip39/wordlists/english.js'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { hmac } from '@noble/hashes/hmac.js'
import { sha512 } from '@noble/hashes/sha2.js'
import { bytesToHex } from '@noble/hashes/utils.js'
import type { KeyType } from './key-types.js'
import { slip10AccountNodeOf, slip10WalletPath } from './slip10.js'

/** Derivation path of the account node whose children are the vault's wallets. */
export const ACCOUNT_PATH = "m/44'/60'/0'/0"

/** Bytes of a packed account node: chain code (32) ‖ private key (32) ‖ compressed public key (33). */
export const ACCOUNT_NODE_BYTES = 97

/** A fresh English BIP39 mnemonic (128 bits of entropy: 12 words, or 256: 24 words). */
export function generateMnemonic(strength: 128 | 256 = 128): string {
  return generate(wordlist, strength)
}

export function isValidMnemonic(mnemonic: string): boolean {
  return validateMnemonic(mnemonic, wordlist)
}

/** The packed account node of a mnemonic. The caller wipes it. */
export function accountNodeOf(mnemonic: string): Uint8Array {
  const seed = mnemonicToSeedSync(mnemonic)
  try {
    return accountNodeOfSeed(seed)
  } finally {
    seed.fill(0)
  }
}

/**
 * The account nodes of a BIP44 vault's mnemonic, one per key type, from one BIP39 seed (one PBKDF2): secp256k1's
 * BIP32 node `m/44'/60'/0'/0` ({@link ACCOUNT_NODE_BYTES}) and the SLIP-0010 nodes `m/44'/60'/0'/0'` of Ed25519 and
 * P-256 ({@link SLIP10_NODE_BYTES}). Each is sealed in the vault record; a wallet then derives in one step. The caller
 * wipes them.
 */
export function vaultAccountNodesOf(mnemonic: string): Record<KeyType, Uint8Array> {
  const seed = mnemonicToSeedSync(mnemonic)
  try {
    return {
      secp256k1: accountNodeOfSeed(seed),
      Ed25519: slip10AccountNodeOf('Ed25519', seed),
      'P-256': slip10AccountNodeOf('P-256', seed),
    }
  } finally {
    seed.fill(0)
  }
}

/**
 * The HD path of wallet `index` of a BIP44 vault for a key type: BIP32 `m/44'/60'/0'/0/<index>` for secp256k1,
 * SLIP-0010 `m/44'/60'/0'/0'/<index>'` (all hardened) for Ed25519 and P-256.
 */
export function hdWalletPath(type: KeyType, index: number): string {
  return type === 'secp256k1' ? `${ACCOUNT_PATH}/${index}` : slip10WalletPath(index)
}

function accountNodeOfSeed(seed: Uint8Array): Uint8Array {
  const root = HDKey.fromMasterSeed(seed)
  const account = root.derive(ACCOUNT_PATH)
  try {
    const packed = new Uint8Array(ACCOUNT_NODE_BYTES)
    packed.set(account.chainCode!, 0)
    packed.set(account.privateKey!, 32)
    packed.set(account.publicKey!, 64)
    return packed
  } finally {
    root.wipePrivateData()
    account.wipePrivateData()
  }
}

const N = secp256k1.Point.CURVE().n

/** Private key of wallet `index` under a packed account node (BIP32 CKDpriv, non-hardened). The caller wipes it. */
export function deriveWalletKey(accountNode: Uint8Array, index: number): Uint8Array {
  if (!Number.isInteger(index) || index < 0 || index >= 0x80000000) throw new RangeError('HD index out of range')
  if (accountNode.length !== ACCOUNT_NODE_BYTES) throw new Error('not a packed account node')
  const data = new Uint8Array(37)
  data.set(accountNode.subarray(64, 97), 0)
  new DataView(data.buffer).setUint32(33, index, false)
  const I = hmac(sha512, accountNode.subarray(0, 32), data)
  const tweak = toBigInt(I.subarray(0, 32))
  const child = (toBigInt(accountNode.subarray(32, 64)) + tweak) % N
  I.fill(0)
  // Probability about 2^-127; BIP32 says to skip such an index, so refuse it rather than return another index's key.
  if (tweak >= N || child === 0n) throw new Error(`BIP32: index ${index} yields no valid key`)
  return toBytes32(child)
}

const toBigInt = (bytes: Uint8Array) => BigInt('0x' + Buffer.from(bytes).toString('hex'))
const toBytes32 = (n: bigint) => Uint8Array.from(Buffer.from(n.toString(16).padStart(64, '0'), 'hex'))

/** The public half of a BIP32 node: what derives its non-hardened children's public keys. */
export interface PublicNode {
  /** 32 bytes. */
  chainCode: Uint8Array
  /** Compressed public key, 33 bytes. */
  publicKey: Uint8Array
}

/**
 * Public key of child `index` of a public node (BIP32 CKDpub, non-hardened): what derives an
 * MPC vault's wallets from its account public key, with no private key anywhere. Compressed
 * (33 bytes) by default; `compressed: false` gives the 65-byte form without a second
 * decompression. The parent's point is parsed once per node (a vault derives many children).
 */
export function deriveChildPublicKey(parent: PublicNode, index: number, compressed = true): Uint8Array {
  if (!Number.isInteger(index) || index < 0 || index >= 0x80000000) throw new RangeError('HD index out of range')
  const data = new Uint8Array(37)
  data.set(parent.publicKey, 0)
  new DataView(data.buffer).setUint32(33, index, false)
  const I = hmac(sha512, parent.chainCode, data)
  const tweak = toBigInt(I.subarray(0, 32))
  if (tweak === 0n || tweak >= N) throw new Error(`BIP32: index ${index} yields no valid key`)
  // Not constant-time, deliberately: the tweak is no secret — anyone with the public node (the
  // vault record keeps it as plain data) computes it — and knowing it reveals no key.
  const child = secp256k1.Point.BASE.multiplyUnsafe(tweak).add(parentPoint(parent.publicKey))
  if (child.equals(secp256k1.Point.ZERO)) throw new Error(`BIP32: index ${index} yields no valid key`)
  return child.toBytes(compressed)
}

type Point = ReturnType<typeof secp256k1.Point.fromBytes>
const PARENT_POINTS = new Map<string, Point>()
const MAX_PARENT_POINTS = 256

/** The point of a parent public key (decompressing one costs a modular square root), remembered. */
function parentPoint(publicKey: Uint8Array): Point {
  const id = bytesToHex(publicKey)
  let point = PARENT_POINTS.get(id)
  if (point === undefined) {
    point = secp256k1.Point.fromBytes(publicKey)
    if (PARENT_POINTS.size >= MAX_PARENT_POINTS) PARENT_POINTS.delete(PARENT_POINTS.keys().next().value!)
    PARENT_POINTS.set(id, point)
  }
  return point
}

const MASTER_SECRET = new TextEncoder().encode('Bitcoin seed')

/**
 * Private key at a BIP32 `path` (`m/44'/60'/0'/0/5`) under the root of `seed` (BIP32 CKDpriv
 * from the master key). Hardened steps need no public key and non-hardened ones one each, so
 * `m/44'/60'/0'/0/i` costs two curve multiplications, not the six @scure/bip32 spends on
 * public keys and fingerprints. Every intermediate secret is wiped; the caller wipes the result.
 */
export function privateKeyAtPath(seed: Uint8Array, path: string): Uint8Array {
  const segments = path.split('/')
  if (segments[0] !== 'm') throw new Error(`not a BIP32 path: ${path}`)
  const I = hmac(sha512, MASTER_SECRET, seed)
  let key = toBigInt(I.subarray(0, 32))
  const chain = Uint8Array.from(I.subarray(32))
  I.fill(0)
  if (key === 0n || key >= N) throw new Error('BIP32: this seed yields no valid master key')
  const data = new Uint8Array(37)
  try {
    for (const segment of segments.slice(1)) {
      const match = /^(\d+)('?)$/.exec(segment)
      const index = match ? Number(match[1]) : NaN
      if (!match || index >= 0x80000000) throw new Error(`not a BIP32 path: ${path}`)
      const hardened = match[2] === "'"
      if (hardened) {
        data[0] = 0
        data.set(toBytes32(key), 1)
      } else {
        data.set(secp256k1.Point.BASE.multiply(key).toBytes(true), 0)
      }
      new DataView(data.buffer).setUint32(33, hardened ? index + 0x80000000 : index, false)
      const child = hmac(sha512, chain, data)
      const tweak = toBigInt(child.subarray(0, 32))
      key = (key + tweak) % N
      chain.set(child.subarray(32))
      child.fill(0)
      if (tweak >= N || key === 0n) throw new Error(`BIP32: ${path} yields no valid key`)
    }
    return toBytes32(key)
  } finally {
    data.fill(0)
    chain.fill(0)
  }
}
