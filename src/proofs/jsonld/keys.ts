/**
 * secp256k1 helpers of the proof suites: low-S normalisation of what a signer returns, and
 * matching a signature against the keys a DID URL resolves to.
 */
import { verify, type KeyObject } from 'node:crypto'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { bytesToHex, bytesToNumberBE, concatBytes, numberToBytesBE } from '@noble/curves/utils.js'
import { publicKeyObject } from '../../keys/es256k.js'
import type { RecoverableSignature } from '../../keys/signer.js'
import type { SigningKey } from './types.js'

const N = secp256k1.Point.Fn.ORDER
const HALF_N = N >> 1n

/** A signature as 64 bytes r‖s (low-S) and its recovery bit. */
export interface CompactSignature {
  compact: Uint8Array
  recovery: 0 | 1
}

/**
 * r‖s of a signer's output, normalised to low-S (flipping the recovery bit with s), so a
 * signer returning high-S still yields the one canonical signature.
 */
export function toCompactLowS(sig: RecoverableSignature): CompactSignature {
  if (sig.r.length !== 32 || sig.s.length !== 32) throw new Error('signer returned a malformed signature')
  const s = bytesToNumberBE(sig.s)
  if (s <= HALF_N) return { compact: concatBytes(sig.r, sig.s), recovery: sig.recovery }
  return { compact: concatBytes(sig.r, numberToBytesBE(N - s, 32)), recovery: (sig.recovery ^ 1) as 0 | 1 }
}

/** Whether 64-byte r‖s has s in the upper half of the order (the malleable twin of a low-S signature). */
export function hasHighS(compact: Uint8Array): boolean {
  return bytesToNumberBE(compact.subarray(32, 64)) > HALF_N
}

/**
 * Whether low-S `compact` (r‖s) over SHA-256(`input`) was made by one of `keys`: whether the
 * signature is valid under one of their public keys. A key with `publicKeyHex` is checked by
 * ECDSA verification (OpenSSL); a key given only by address (`ethereumAddress` or an `eip155`
 * `blockchainAccountId`) by recovering the public key — first with `recovery`, the bit a
 * Recovery2020 proof carries, then with the other one. The recovery bit is a hint, never part
 * of the verdict, so a proof verifies the same whether its key is known or must be recovered.
 */
export function signedByAnyKey(input: Uint8Array, compact: Uint8Array, recovery: 0 | 1 | undefined, keys: readonly SigningKey[]): boolean {
  const addresses = new Set<string>()
  for (const key of keys) {
    if (key.publicKeyHex !== undefined) {
      const publicKey = keyObjectOf(key.publicKeyHex)
      if (publicKey && verify('sha256', input, { key: publicKey, dsaEncoding: 'ieee-p1363' }, compact)) return true
    }
    const address = key.ethereumAddress ?? accountAddress(key.blockchainAccountId)
    if (address !== undefined) addresses.add(address.toLowerCase())
  }
  if (addresses.size === 0) return false
  const digest = sha256(input)
  for (const bit of recovery === 1 ? ([1, 0] as const) : ([0, 1] as const)) {
    const address = recoverAddress(digest, compact, bit)
    if (address !== undefined && addresses.has(address)) return true
  }
  return false
}

const KEY_OBJECTS = new Map<string, KeyObject | null>()
const MAX_KEY_OBJECTS = 1_000

/** The node:crypto key of a hex public key (parsed once: parsing costs more than a verification), null when it is not a valid key. */
function keyObjectOf(hex: string): KeyObject | null {
  const id = hex.replace(/^0x/i, '').toLowerCase()
  let key = KEY_OBJECTS.get(id)
  if (key !== undefined) return key
  try {
    key = publicKeyObject(id)
  } catch {
    key = null
  }
  if (KEY_OBJECTS.size >= MAX_KEY_OBJECTS) KEY_OBJECTS.delete(KEY_OBJECTS.keys().next().value!)
  KEY_OBJECTS.set(id, key)
  return key
}

/** Address in a CAIP-10 `eip155:<chain>:<address>` (or legacy `<address>@eip155:<chain>`) account id. */
function accountAddress(accountId: string | undefined): string | undefined {
  if (accountId === undefined) return undefined
  return (/^eip155:[-_a-zA-Z0-9]{1,32}:(0x[0-9a-fA-F]{40})$/.exec(accountId) ??
    /^(0x[0-9a-fA-F]{40})@eip155:[-_a-zA-Z0-9]{1,32}$/.exec(accountId))?.[1]
}

/** Lower-case Ethereum address of the key `compact` recovers to with `bit`, if any. */
function recoverAddress(digest: Uint8Array, compact: Uint8Array, bit: 0 | 1): string | undefined {
  try {
    const point = secp256k1.Signature.fromBytes(compact, 'compact').addRecoveryBit(bit).recoverPublicKey(digest)
    return '0x' + bytesToHex(keccak_256(point.toBytes(false).subarray(1)).subarray(12))
  } catch {
    return undefined
  }
}
