/**
 * The content hash of a VC-JWT: the same up to the canonical low-S form of its ECDSA signature — `(r, n − s)` is
 * the same signature as `(r, s)`, so a "high-S twin" of a stored JWT is that JWT again, not a second credential.
 */
import { lowS } from '../../../keys/secp256k1.js'
import { sha256 } from '../../content-hash.js'

/** The content hash of a JWT credential: of its {@link canonicalJwt} form. */
export const jwtHash = (jwt: string): string => sha256(`jwt\n${canonicalJwt(jwt)}`)

const ECDSA_SECP256K1 = new Set(['ES256K', 'ES256K-R'])

/** The order n of P-256's group (FIPS 186-4 D.1.2.3): an ES256 `s` above n / 2 has the twin n − s. */
const P256_N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n

/** `s` (32 bytes) of a P-256 signature in low-S form. */
function lowSP256(s: Uint8Array): Uint8Array {
  const value = BigInt(`0x${Buffer.from(s).toString('hex')}`)
  return value <= P256_N / 2n ? s : Buffer.from((P256_N - value).toString(16).padStart(64, '0'), 'hex')
}

/**
 * A JWT with its ES256K / ES256K-R / ES256 signature in canonical form: low-S (the recovery byte of a
 * 65-byte ES256K-R signature flipped with it: 0/1 or 27/28) and base64url without padding. EdDSA
 * signatures have one form (verifiers refuse s ≥ L). Any other algorithm or shape is returned as
 * given: nothing is verified here.
 */
export function canonicalJwt(jwt: string): string {
  const parts = jwt.split('.')
  if (parts.length !== 3) return jwt
  let alg: unknown
  try {
    alg = (JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8')) as { alg?: unknown }).alg
  } catch {
    return jwt
  }
  if (alg === 'ES256') {
    const signature = new Uint8Array(Buffer.from(parts[2], 'base64url'))
    if (signature.length !== 64) return jwt
    const canonical = Uint8Array.from(signature)
    canonical.set(lowSP256(signature.subarray(32)), 32)
    return `${parts[0]}.${parts[1]}.${Buffer.from(canonical).toString('base64url')}`
  }
  if (typeof alg !== 'string' || !ECDSA_SECP256K1.has(alg)) return jwt
  const signature = new Uint8Array(Buffer.from(parts[2], 'base64url'))
  if (signature.length !== 64 && signature.length !== 65) return jwt
  const { s, flipped } = lowS(signature.subarray(32, 64))
  const canonical = Uint8Array.from(signature)
  canonical.set(s, 32)
  if (flipped && canonical.length === 65) canonical[64] = canonical[64] >= 27 ? 55 - canonical[64] : canonical[64] ^ 1
  return `${parts[0]}.${parts[1]}.${Buffer.from(canonical).toString('base64url')}`
}
