/**
 * Sealed values: a value the service hands out and later takes back (a stateless access token, a `notification_id`)
 * carrying its own data and expiry, encrypted and authenticated so that storage holds nothing of it. AES-256-GCM under
 * a key derived with HKDF-SHA-256 from the one-time hashing key (`hashing.ts`; sealed under the master key in `meta`)
 * and a purpose label, one key per purpose; the binding (a tenant, an issuer slug) is the additional authenticated
 * data, so a value sealed for one tenant, issuer or purpose never opens for another. Its data is encrypted, not just
 * MACed: it may carry personal data (an access token's claims).
 *
 * Format: `s1.<iv>.<ciphertext and tag>` (base64url), the plaintext `{"e":<expiry, UNIX ms>,"d":<data>}`.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto'

const VERSION = 's1'
const IV_BYTES = 12
const TAG_BYTES = 16

/** Seals and opens values of one key (see the module's comment). */
export interface OneTimeSealer {
  /** `data` sealed for `purpose` and `binding`, good until `expiresAt` (UNIX ms). */
  seal(purpose: string, binding: readonly string[], data: Record<string, unknown>, expiresAt: number): string
  /** The data of `sealed` when it was sealed for `purpose` and `binding`, untouched and live at `now`; else undefined. */
  open(purpose: string, binding: readonly string[], sealed: string, now: number): Record<string, unknown> | undefined
}

/** The sealer of the one-time hashing key `key` (32 bytes). */
export function sealerOf(key: Uint8Array): OneTimeSealer {
  const keys = new Map<string, Buffer>()
  const keyOf = (purpose: string) => {
    let derived = keys.get(purpose)
    if (!derived) {
      derived = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), `didvault sealed value: ${purpose}`, 32))
      keys.set(purpose, derived)
    }
    return derived
  }
  // A JSON array, like the hasher's input: no binding containing a separator makes two bindings one.
  const aad = (purpose: string, binding: readonly string[]) => Buffer.from(JSON.stringify([VERSION, purpose, ...binding]), 'utf8')
  return {
    seal(purpose, binding, data, expiresAt) {
      const iv = randomBytes(IV_BYTES)
      const cipher = createCipheriv('aes-256-gcm', keyOf(purpose), iv)
      cipher.setAAD(aad(purpose, binding))
      const body = Buffer.concat([cipher.update(JSON.stringify({ e: expiresAt, d: data }), 'utf8'), cipher.final(), cipher.getAuthTag()])
      return `${VERSION}.${iv.toString('base64url')}.${body.toString('base64url')}`
    },
    open(purpose, binding, sealed, now) {
      const parts = sealed.split('.')
      if (parts.length !== 3 || parts[0] !== VERSION) return undefined
      const iv = Buffer.from(parts[1], 'base64url')
      const body = Buffer.from(parts[2], 'base64url')
      if (iv.length !== IV_BYTES || body.length <= TAG_BYTES) return undefined
      let plain: { e?: unknown; d?: unknown }
      try {
        const decipher = createDecipheriv('aes-256-gcm', keyOf(purpose), iv, { authTagLength: TAG_BYTES })
        decipher.setAAD(aad(purpose, binding))
        decipher.setAuthTag(body.subarray(body.length - TAG_BYTES))
        const text = Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()]).toString('utf8')
        plain = JSON.parse(text) as typeof plain
      } catch {
        return undefined
      }
      if (typeof plain.e !== 'number' || plain.e <= now) return undefined
      if (typeof plain.d !== 'object' || plain.d === null || Array.isArray(plain.d)) return undefined
      return plain.d as Record<string, unknown>
    },
  }
}
