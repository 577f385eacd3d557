/**
 * SLIP-0010 derivation of Ed25519 and P-256 (SLIP-0010's `nist256p1`) keys from a BIP39 seed: the
 * same mnemonic that derives a BIP44 vault's secp256k1 wallets by BIP32 (`keys/hd.ts`) derives
 * its Ed25519 and P-256 wallets at `m/44'/60'/0'/0'/<index>'` — every step hardened, as
 * SLIP-0010 requires for Ed25519 and as didvault also uses for P-256, so one path rule serves both.
 *
 * No well-kept npm package derives nist256p1 (micro-key-producer's and ed25519-hd-key's
 * SLIP-0010 are Ed25519 only), so this is the derivation glue over @noble/hashes HMAC-SHA512 and
 * @noble/curves, retry rules included. It is held to every Ed25519 and nist256p1 test vector of
 * the SLIP-0010 document (test/fixtures/vectors/slip-0010/) and, for Ed25519, to ed25519-hd-key
 * over random seeds and paths.
 *
 * **Which API the key backends should call.** {@link slip10AccountNodeOf} once per vault and
 * curve, kept sealed beside the mnemonic like the secp256k1 account node, then
 * {@link deriveSlip10WalletKey} per wallet: one HMAC-SHA512 and no curve operation (P-256 adds
 * one scalar addition). {@link slip10Derive} from the seed costs a BIP39 PBKDF2 (2048 rounds of
 * HMAC-SHA512) per wallet on top of five steps; it is for vaults created before the packed node
 * existed (derive the node from the mnemonic once, then seal it) and for tests.
 *
 * Intermediate secrets in byte arrays are wiped; the P-256 scalar passes through bigints, which
 * JavaScript cannot wipe (as in `keys/hd.ts`). The caller wipes what it receives.
 */
import { ed25519 } from '@noble/curves/ed25519.js'
import { p256 } from '@noble/curves/nist.js'
import { bytesToNumberBE, numberToBytesBE } from '@noble/curves/utils.js'
import { hmac } from '@noble/hashes/hmac.js'
import { sha512 } from '@noble/hashes/sha2.js'
import type { KeyType } from './key-types.js'

/** The key types SLIP-0010 derives here (secp256k1 wallets keep BIP32 at `m/44'/60'/0'/0/<index>`). */
export type Slip10KeyType = Extract<KeyType, 'Ed25519' | 'P-256'>

/** A SLIP-0010 extended private key. Both arrays are 32 bytes; the caller wipes them. */
export interface Slip10Node {
  privateKey: Uint8Array
  chainCode: Uint8Array
}

/** Path of the account node whose hardened children are a vault's Ed25519 and P-256 wallets. */
export const SLIP10_ACCOUNT_PATH = "m/44'/60'/0'/0'"

/** Path of wallet `index` of a BIP44 vault for an Ed25519 or P-256 key (what the wallet record keeps). */
export function slip10WalletPath(index: number): string {
  return `${SLIP10_ACCOUNT_PATH}/${checkedIndex(index)}'`
}

/** Bytes of a packed account node: chain code (32) ‖ private key (32). Hardened steps need no public key. */
export const SLIP10_NODE_BYTES = 64

/** Thrown for a path or index SLIP-0010 cannot derive; the message says which and why. */
export class Slip10PathError extends Error {
  override name = 'Slip10PathError'
}

const HARDENED = 0x80000000
/** BIP32 serializes the depth in one byte. */
const MAX_DEPTH = 255
const MAX_PATH_LENGTH = 16 + MAX_DEPTH * 12

interface Curve {
  /** The HMAC key of master-key generation. */
  seedKey: Uint8Array
  /** Group order, for nist256p1; undefined for Ed25519, whose keys are the raw 32 bytes. */
  order?: bigint
}

const CURVES: Readonly<Record<Slip10KeyType, Curve>> = {
  Ed25519: { seedKey: new TextEncoder().encode('ed25519 seed') },
  'P-256': { seedKey: new TextEncoder().encode('Nist256p1 seed'), order: p256.Point.CURVE().n },
}

/**
 * The indexes of a SLIP-0010 path (`m/44'/60'/0'/0'/7'`), hardened ones with bit 31 set.
 * Refuses anything else: another root, an index ≥ 2^31, a non-canonical number, more than 255
 * levels, and a non-hardened step for Ed25519 (SLIP-0010 defines none).
 */
export function parseSlip10Path(keyType: Slip10KeyType, path: string): number[] {
  if (typeof path !== 'string' || path.length > MAX_PATH_LENGTH) throw new Slip10PathError('not a SLIP-0010 path')
  const segments = path.split('/')
  if (segments[0] !== 'm' || segments.length - 1 > MAX_DEPTH) throw new Slip10PathError(`not a SLIP-0010 path: ${path}`)
  return segments.slice(1).map((segment) => {
    const match = /^(0|[1-9]\d{0,9})(')?$/.exec(segment)
    const index = match ? Number(match[1]) : NaN
    if (!match || index >= HARDENED) throw new Slip10PathError(`not a SLIP-0010 path: ${path} (indexes are 0 to 2^31-1)`)
    if (match[2] === undefined && keyType === 'Ed25519') {
      throw new Slip10PathError(`SLIP-0010 derives only hardened Ed25519 keys: ${segment} in ${path} is not hardened`)
    }
    return match[2] === undefined ? index : index + HARDENED
  })
}

/** The master node of `seed` (SLIP-0010 master key generation, with its retry rule for nist256p1). */
export function slip10Master(keyType: Slip10KeyType, seed: Uint8Array): Slip10Node {
  const curve = CURVES[keyType]
  let I = hmac(sha512, curve.seedKey, seed)
  while (curve.order !== undefined && !isScalar(I.subarray(0, 32), curve.order)) {
    const next = hmac(sha512, curve.seedKey, I)
    I.fill(0)
    I = next
  }
  return split(I)
}

/**
 * Child `index` of `parent` (CKDpriv; `index` ≥ 2^31 is hardened). A non-hardened child is
 * defined for P-256 only (the SLIP-0010 vectors use some); Ed25519 refuses it.
 */
export function slip10Child(keyType: Slip10KeyType, parent: Slip10Node, index: number): Slip10Node {
  if (!Number.isInteger(index) || index < 0 || index > 0xffffffff) throw new Slip10PathError('SLIP-0010 index out of range')
  const hardened = index >= HARDENED
  const order = CURVES[keyType].order
  if (order === undefined && !hardened) throw new Slip10PathError('SLIP-0010 derives only hardened Ed25519 keys')
  const data = hardened ? hardenedData(parent.privateKey, index) : withIndex(p256.getPublicKey(parent.privateKey, true), index)
  let I = hmac(sha512, parent.chainCode, data)
  data.fill(0)
  // Ed25519: I_L is the key as it is.
  if (order === undefined) return split(I)
  for (;;) {
    const tweak = bytesToNumberBE(I.subarray(0, 32))
    const key = tweak < order ? (tweak + bytesToNumberBE(parent.privateKey)) % order : 0n
    if (key !== 0n) {
      const chainCode = Uint8Array.from(I.subarray(32))
      I.fill(0)
      return { privateKey: numberToBytesBE(key, 32), chainCode }
    }
    // SLIP-0010's retry: I = HMAC-SHA512(c_par, 0x01 ‖ I_R ‖ ser32(i)).
    const retry = withIndex(concat(Uint8Array.of(1), I.subarray(32)), index)
    I.fill(0)
    I = hmac(sha512, parent.chainCode, retry)
    retry.fill(0)
  }
}

/** The node at `path` under the master node of `seed`. Every intermediate node is wiped; the caller wipes the result. */
export function slip10Derive(keyType: Slip10KeyType, seed: Uint8Array, path: string): Slip10Node {
  const indexes = parseSlip10Path(keyType, path)
  let node = slip10Master(keyType, seed)
  for (const index of indexes) {
    const child = slip10Child(keyType, node, index)
    wipeSlip10Node(node)
    node = child
  }
  return node
}

/** Public key of a SLIP-0010 private key: Ed25519 32 bytes (RFC 8032), P-256 33 bytes (compressed SEC1). */
export function slip10PublicKey(keyType: Slip10KeyType, privateKey: Uint8Array): Uint8Array {
  return keyType === 'Ed25519' ? ed25519.getPublicKey(privateKey) : p256.getPublicKey(privateKey, true)
}

/** The packed account node (`m/44'/60'/0'/0'`, chain code ‖ private key) of a BIP39 seed, to seal per vault. The caller wipes it. */
export function slip10AccountNodeOf(keyType: Slip10KeyType, seed: Uint8Array): Uint8Array {
  const node = slip10Derive(keyType, seed, SLIP10_ACCOUNT_PATH)
  try {
    return concat(node.chainCode, node.privateKey)
  } finally {
    wipeSlip10Node(node)
  }
}

/**
 * Private key of wallet `index` (at `m/44'/60'/0'/0'/<index>'`) under a packed account node:
 * one hardened step. The caller wipes it.
 */
export function deriveSlip10WalletKey(keyType: Slip10KeyType, accountNode: Uint8Array, index: number): Uint8Array {
  if (accountNode.length !== SLIP10_NODE_BYTES) throw new Error('not a packed SLIP-0010 account node')
  const parent = { chainCode: accountNode.subarray(0, 32), privateKey: accountNode.subarray(32) }
  const child = slip10Child(keyType, parent, checkedIndex(index) + HARDENED)
  child.chainCode.fill(0)
  return child.privateKey
}

/** Zeroes both halves of a node. */
export function wipeSlip10Node(node: Slip10Node): void {
  node.privateKey.fill(0)
  node.chainCode.fill(0)
}

function checkedIndex(index: number): number {
  if (!Number.isInteger(index) || index < 0 || index >= HARDENED) throw new Slip10PathError('HD index out of range (0 to 2^31-1)')
  return index
}

const isScalar = (bytes: Uint8Array, order: bigint) => {
  const n = bytesToNumberBE(bytes)
  return n !== 0n && n < order
}

/** Splits I into a node (I_L the key, I_R the chain code) and wipes I. */
function split(I: Uint8Array): Slip10Node {
  const node = { privateKey: Uint8Array.from(I.subarray(0, 32)), chainCode: Uint8Array.from(I.subarray(32)) }
  I.fill(0)
  return node
}

/** 0x00 ‖ ser256(k_par) ‖ ser32(i). */
const hardenedData = (privateKey: Uint8Array, index: number) => withIndex(concat(Uint8Array.of(0), privateKey), index)

function withIndex(prefix: Uint8Array, index: number): Uint8Array {
  const data = new Uint8Array(prefix.length + 4)
  data.set(prefix, 0)
  new DataView(data.buffer).setUint32(prefix.length, index, false)
  prefix.fill(0)
  return data
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length)
  out.set(a, 0)
  out.set(b, a.length)
  return out
}
