/**
 * How the access policy names a key, whatever DID lists it: a secp256k1 key by its EIP-55
 * address (what did:ethr's owner names, and what the policy compared before other key types
 * existed), any other key by its RFC 9278 JWK thumbprint URI (the RFC 7638 thumbprint, SHA-256).
 * Two spellings of one key — a JWK, a multibase key, a did:key — name the same key id.
 */
import { base64urlnopad } from '@scure/base'
import type { PublicJwk } from './key-types.js'
import { addressOf } from './secp256k1.js'
import { jwkThumbprint } from './thumbprint.js'

/** RFC 9278's prefix of a SHA-256 JWK thumbprint URI. */
export const JWK_THUMBPRINT_URI = 'urn:ietf:params:oauth:jwk-thumbprint:sha-256:'

/** The key id of a public key given as a JWK: its address for secp256k1, its thumbprint URI otherwise. */
export function keyIdOfJwk(jwk: PublicJwk): string {
  if (jwk.crv !== 'secp256k1') return `${JWK_THUMBPRINT_URI}${jwkThumbprint(jwk)}`
  const point = new Uint8Array(65)
  point[0] = 4
  point.set(base64urlnopad.decode(jwk.x), 1)
  point.set(base64urlnopad.decode(jwk.y ?? ''), 33)
  return addressOf(point)
}
