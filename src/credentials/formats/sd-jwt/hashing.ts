/**
 * What the SD-JWT libraries hash and salt with: SHA-256 (`_sd_alg: sha-256`, the only digest algorithm the codec
 * takes) and salts of 128 random bits from node:crypto — never the library's Node salt generator, whose
 * `generateSalt(16)` gives 64 bits.
 */
import { createHash, randomBytes } from 'node:crypto'
import type { Hasher, SaltGenerator } from './library-types.js'

/** The digest algorithm of every SD-JWT the codec issues, and the only one it verifies (RFC 9901 `_sd_alg`). */
export const SD_ALG = 'sha-256'

/** Bytes of randomness in every salt (128 bits, RFC 9901 §9.3). */
export const SALT_BYTES = 16

/** SHA-256 of a string (UTF-8) or bytes; any other algorithm is refused. */
export const sha256Hasher: Hasher = (data, alg) => {
  if (alg.toLowerCase() !== SD_ALG) throw new Error(`unsupported digest algorithm ${alg.slice(0, 20)}`)
  const hash = createHash('sha256')
  return (typeof data === 'string' ? hash.update(data, 'utf8') : hash.update(new Uint8Array(data))).digest()
}

/** Random bytes drawn from node:crypto at once for the next salts (one call per 256 salts, not one per salt). */
const POOL_BYTES = 4096
let pool = Buffer.alloc(0)
let taken = 0

/**
 * A fresh salt: at least {@link SALT_BYTES} random bytes (more when the library asks for more), base64url. The bytes
 * come from a pool node:crypto refills (as `randomUUID` does), each handed out once and zeroed when taken.
 */
export const randomSalt: SaltGenerator = (length) => {
  const size = Math.max(SALT_BYTES, length)
  if (size > POOL_BYTES) return randomBytes(size).toString('base64url')
  if (taken + size > pool.length) {
    pool = randomBytes(POOL_BYTES)
    taken = 0
  }
  const bytes = pool.subarray(taken, taken + size)
  taken += size
  const salt = bytes.toString('base64url')
  bytes.fill(0)
  return salt
}

/** The base64url SHA-256 of a string: a disclosure's digest, an SD-JWT's `sd_hash`. */
export const sha256Base64url = (text: string): string => createHash('sha256').update(text, 'utf8').digest('base64url')
