/**
 * The syntax of did:ethr DIDs, with no dependency (the request schemas check it, and they stay
 * light): `did:ethr:[<network>:]0x<identifier>`, where the identifier is an address (40 hex) or
 * a secp256k1 public key — compressed (66 hex, prefix 02 or 03) or uncompressed (130 hex,
 * prefix 04) — that is a point of the curve. An address's EIP-55 checksum is left to
 * `parseEthrDid` (it needs keccak).
 */

/** A did:ethr DID: network (optional) and `0x`-prefixed identifier of one of the three lengths. */
export const ETHR_DID = /^did:ethr:(?:([a-zA-Z0-9_.-]+):)?(0x(?:[0-9a-fA-F]{40}|[0-9a-fA-F]{66}|[0-9a-fA-F]{130}))$/

/** The field prime of secp256k1. */
const P = 2n ** 256n - 2n ** 32n - 977n

function modPow(base: bigint, exponent: bigint): bigint {
  let result = 1n
  let b = base % P
  for (let e = exponent; e > 0n; e >>= 1n) {
    if (e & 1n) result = (result * b) % P
    b = (b * b) % P
  }
  return result
}

/** Whether `hex` (no `0x`) is a compressed or uncompressed encoding of a point of secp256k1 (y² = x³ + 7 over P). */
export function isSecp256k1Point(hex: string): boolean {
  const prefix = hex.slice(0, 2)
  const x = BigInt(`0x${hex.slice(2, 66)}`)
  if (x >= P) return false
  const rhs = (modPow(x, 3n) + 7n) % P
  if (hex.length === 66 && (prefix === '02' || prefix === '03')) return rhs === 0n || modPow(rhs, (P - 1n) / 2n) === 1n
  if (hex.length !== 130 || prefix !== '04') return false
  const y = BigInt(`0x${hex.slice(66)}`)
  return y < P && (y * y) % P === rhs
}

/** Whether `did` is a did:ethr DID as the service accepts it (an address, or a public key on the curve). */
export function isEthrDidSyntax(did: string): boolean {
  const m = ETHR_DID.exec(did)
  return m !== null && (m[2].length === 42 || isSecp256k1Point(m[2].slice(2)))
}
