/**
 * Multikey encoding (the did:key identifier and `publicKeyMultibase`): `z` (base58btc) over the
 * key type's multicodec varint followed by the key's bytes.
 */
import { base58 } from '@scure/base'

/** Multicodec prefixes (unsigned varints) of the public keys didvault signs with (BBS: `bls12_381-g2-pub`), and of X25519. */
const PREFIXES = {
  Bls12381G2: [0xeb, 0x01],
  Ed25519: [0xed, 0x01],
  'P-256': [0x80, 0x24],
  secp256k1: [0xe7, 0x01],
  X25519: [0xec, 0x01],
} as const

export type MultikeyType = keyof typeof PREFIXES

/**
 * Longest multibase value read (a P-256 / secp256k1 key is 50 characters, a 96-byte BLS12-381 G2 key 135): longer
 * input is refused before decoding.
 */
export const MAX_MULTIBASE = 140

/** The multibase value of a key. */
export function encodeMultikey(type: MultikeyType, bytes: Uint8Array): string {
  const prefix = PREFIXES[type]
  const out = new Uint8Array(prefix.length + bytes.length)
  out.set(prefix)
  out.set(bytes, prefix.length)
  return `z${base58.encode(out)}`
}

/** The key type and bytes of a multibase value; undefined for another encoding, codec, or malformed input. */
export function decodeMultikey(value: string): { type: MultikeyType; bytes: Uint8Array } | undefined {
  if (value.length > MAX_MULTIBASE || !value.startsWith('z')) return undefined
  let raw: Uint8Array
  try {
    raw = base58.decode(value.slice(1))
  } catch {
    return undefined
  }
  for (const [type, prefix] of Object.entries(PREFIXES) as Array<[MultikeyType, readonly number[]]>) {
    if (raw.length > prefix.length && prefix.every((b, i) => raw[i] === b)) return { type, bytes: raw.subarray(prefix.length) }
  }
  return undefined
}
