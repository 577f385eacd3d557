/** JWK thumbprints (RFC 7638): the name of a key whatever backend holds it. */
import { sha256 } from '@noble/hashes/sha2.js'

/** The members RFC 7638 §3.2 hashes, per key type, in lexicographic order. */
const REQUIRED_MEMBERS: Readonly<Record<string, readonly string[]>> = {
  EC: ['crv', 'kty', 'x', 'y'],
  OKP: ['crv', 'kty', 'x'],
  RSA: ['e', 'kty', 'n'],
}

/**
 * The RFC 7638 thumbprint (SHA-256, base64url without padding) of a public JWK: the hash of
 * its required members, in lexicographic order, as JSON without whitespace.
 */
export function jwkThumbprint(key: { kty: string }): string {
  const jwk = key as { kty: string; [member: string]: unknown }
  const members = REQUIRED_MEMBERS[jwk.kty]
  if (!members) throw new RangeError(`no thumbprint for a JWK of kty ${jwk.kty}`)
  const canonical: Record<string, string> = {}
  for (const member of members) {
    const value = jwk[member]
    if (typeof value !== 'string') throw new RangeError(`a ${jwk.kty} JWK needs the member ${member}`)
    canonical[member] = value
  }
  return Buffer.from(sha256(new TextEncoder().encode(JSON.stringify(canonical)))).toString('base64url')
}
