/**
 * Encrypted responses (`direct_post.jwt`, OID4VP 1.0 §8.3): the ephemeral key a request names in its
 * `client_metadata.jwks`, and the decryption of the wallet's JWE to it — with `jose`. Only what the verifier offers is
 * accepted: compact serialization, `alg: ECDH-ES` (direct key agreement, P-256), an `enc` among the request's, the
 * request key's `kid`, no compression; the payload is one JSON object. Sizes and nesting are bounded before anything
 * is decrypted or parsed.
 */
import { compactDecrypt, decodeProtectedHeader, exportJWK, generateKeyPair, importJWK } from 'jose'
import { randomBytes } from 'node:crypto'
import { parseVpBoundedJson } from './response.js'

/** The content encryption algorithms a request may accept. */
export type VpResponseEnc = 'A128GCM' | 'A256GCM'

/** An ephemeral key pair of one request. The private JWK is for sealing at once; it is never stored in the clear. */
export interface VpResponseKey {
  /** The public JWK (`kty: EC`, `crv: P-256`, `kid`, `use: enc`, `alg: ECDH-ES`): `client_metadata.jwks.keys[0]`. */
  publicJwk: Record<string, unknown>
  /** The private JWK (the public members and `d`). */
  privateJwk: Record<string, unknown>
}

/** A fresh P-256 ECDH-ES key pair for one request's encrypted response; its `kid` is 16 random bytes base64url. */
export async function generateVpResponseKey(): Promise<VpResponseKey> {
  const { publicKey, privateKey } = await generateKeyPair('ECDH-ES', { crv: 'P-256', extractable: true })
  const kid = randomBytes(16).toString('base64url')
  const { kty, crv, x, y } = await exportJWK(publicKey)
  const { d } = await exportJWK(privateKey)
  const publicJwk = { kty, crv, x, y, kid, use: 'enc', alg: 'ECDH-ES' }
  return { publicJwk, privateJwk: { ...publicJwk, d } }
}

/** What {@link decryptVpResponse} accepts. */
export interface VpDecryptOptions {
  /** The `kid` of the request's public key: the JWE header must name it. */
  kid: string
  /** The `enc` values the request offered (`encrypted_response_enc_values_supported`). */
  enc: readonly VpResponseEnc[]
  /** Longest JWE accepted, characters. Default 1 MiB. */
  maxBytes?: number
  /** Deepest nesting of the payload's objects and arrays. Default 64. */
  maxDepth?: number
}

/** The decrypted payload (a JSON object: the response parameters), or why there is none. */
export type VpDecryptResult = { ok: true; payload: Record<string, unknown> } | { ok: false; error: string }

const COMPACT_JWE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/
const DEFAULT_MAX_BYTES = 1024 * 1024
const DEFAULT_MAX_DEPTH = 64
/** Longest protected header accepted, characters of its base64url: an ECDH-ES header with its `epk` is ~300. */
const MAX_HEADER = 4096

const refused = (error: string): VpDecryptResult => ({ ok: false, error })

/**
 * Decrypts a wallet's encrypted response `jwe` with the request's `privateJwk`. Refused before any decryption: a JWE
 * over `maxBytes`, not in compact serialization, with another `alg` than `ECDH-ES`, an `enc` the request did not
 * offer, another `kid` (or none), a `zip` or `crit` member, or an ephemeral key (`epk`) that is not P-256. A JWE made
 * to another key fails the key agreement's tag check. The payload must be UTF-8 JSON of one object, within `maxDepth`.
 */
export async function decryptVpResponse(
  jwe: string,
  privateJwk: Record<string, unknown>,
  options: VpDecryptOptions,
): Promise<VpDecryptResult> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES
  if (typeof jwe !== 'string' || jwe.length > maxBytes) return refused(`the encrypted response is over ${maxBytes} bytes`)
  if (!COMPACT_JWE.test(jwe)) return refused('the response is not a JWE in compact serialization')
  if (jwe.indexOf('.') > MAX_HEADER) return refused('the JWE protected header is too long')
  let header: Record<string, unknown>
  try {
    header = decodeProtectedHeader(jwe)
  } catch {
    return refused('the JWE protected header is not a JSON object')
  }
  if (header.alg !== 'ECDH-ES') return refused(`the JWE alg must be ECDH-ES, not ${JSON.stringify(header.alg)}`)
  if (typeof header.enc !== 'string' || !options.enc.includes(header.enc as VpResponseEnc))
    return refused(`the JWE enc must be one of ${options.enc.join(', ')}`)
  if (header.kid !== options.kid) return refused('the JWE is not encrypted to this request’s key (kid)')
  if (header.zip !== undefined) return refused('compressed JWEs (zip) are not accepted')
  if (header.crit !== undefined) return refused('no JWE crit extension is understood')
  const epk = header.epk as Record<string, unknown> | undefined
  if (typeof epk !== 'object' || epk === null || epk.kty !== 'EC' || epk.crv !== 'P-256')
    return refused('the JWE ephemeral key (epk) must be a P-256 key')

  let plaintext: Uint8Array
  try {
    const key = await importJWK({ ...privateJwk, alg: 'ECDH-ES' }, 'ECDH-ES')
    ;({ plaintext } = await compactDecrypt(jwe, key, {
      keyManagementAlgorithms: ['ECDH-ES'],
      contentEncryptionAlgorithms: [...options.enc],
    }))
  } catch {
    // Which step failed is not told: the JWE was made to another key, or altered.
    return refused('the response could not be decrypted with this request’s key')
  }
  const parsed = parseVpBoundedJson(plaintext, { maxBytes, maxDepth: options.maxDepth ?? DEFAULT_MAX_DEPTH, what: 'the JWE payload' })
  if (!parsed.ok) return parsed
  if (typeof parsed.value !== 'object' || parsed.value === null || Array.isArray(parsed.value))
    return refused('the JWE payload must be a JSON object')
  return { ok: true, payload: parsed.value as Record<string, unknown> }
}
