/**
 * OpenSSL key objects of public JWKs (holder keys: key proofs, `cnf.jwk`, KB-JWTs; keys of JWS headers), made once and
 * remembered: importing a JWK costs more than checking a signature with it (~0.1–0.2 ms for a P-256 point), so a key is
 * imported once per process, whichever check meets it first — an OID4VCI key proof's check and the `cnf.jwk` of the
 * credential issued for it share the import. Bounded: the oldest entry leaves first. Public keys only: no secret is
 * kept here.
 */
import { createPublicKey, verify, type KeyObject } from 'node:crypto'
import { keyTypeOfJwk, type KeyType, type PublicJwk } from './key-types.js'

const MAX_REMEMBERED = 10_000
const remembered = new Map<string, { keyType: KeyType; key: KeyObject } | null>()

/** The key type and key object of `jwk` (its public members only); undefined for a JWK that is no valid key of a type didvault uses. */
export function keyOfJwk(jwk: unknown): { keyType: KeyType; key: KeyObject; publicJwk: PublicJwk } | undefined {
  if (typeof jwk !== 'object' || jwk === null) return undefined
  const keyType = keyTypeOfJwk(jwk)
  if (keyType === undefined) return undefined
  const { kty, crv, x, y } = jwk as PublicJwk
  if (typeof x !== 'string' || (y !== undefined && typeof y !== 'string') || x.length > 64 || (y?.length ?? 0) > 64) return undefined
  const publicJwk: PublicJwk = y === undefined ? { kty, crv, x } : { kty, crv, x, y }
  const id = `${crv} ${x} ${y ?? ''}`
  let entry = remembered.get(id)
  if (entry === undefined) {
    try {
      entry = { keyType, key: createPublicKey({ key: { ...publicJwk }, format: 'jwk' }) }
    } catch {
      entry = null
    }
    if (remembered.size >= MAX_REMEMBERED) remembered.delete(remembered.keys().next().value!)
    remembered.set(id, entry)
  }
  return entry === null ? undefined : { ...entry, publicJwk }
}

/** Whether `signature` (JOSE form: r‖s, or EdDSA's 64 bytes) signs `data` under `key` of `keyType`. */
export function verifyWithKey(keyType: KeyType, key: KeyObject, data: string, signature: Uint8Array): boolean {
  if (signature.length !== 64) return false
  const input = Buffer.from(data, 'utf8')
  return keyType === 'Ed25519'
    ? verify(null, input, key, signature)
    : verify('sha256', input, { key, dsaEncoding: 'ieee-p1363' }, signature)
}
