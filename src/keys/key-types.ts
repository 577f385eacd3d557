/**
 * The key types didvault creates and signs with, the JOSE algorithms each one signs under, and
 * the public JWK (RFC 7517) that names a public key whatever backend holds its private half.
 * Shared by the key port (`keys/`), the DID methods (`did/methods/`) and the proof code.
 */

/** Key types, as `walletConfig.keyType` spells them. */
export const KEY_TYPES = ['secp256k1', 'P-256', 'Ed25519'] as const
export type KeyType = (typeof KEY_TYPES)[number]

/**
 * The BLS12-381 key type (public key a G2 point, 96 bytes compressed) that signs BBS multi-message signatures
 * (bbs-2023, `BBS-BLS12-381-SHA-256`); it signs under no JOSE algorithm.
 */
export type BbsKeyType = 'Bls12381G2'

/**
 * JOSE signature algorithms: `ES256K` (RFC 8812), `ES256K-R` (its form with the recovery byte,
 * r‖s‖v, which DID-auth tokens of did:ethr use), `ES256` (P-256) and `EdDSA` (Ed25519).
 */
export type SignatureAlgorithm = 'ES256K' | 'ES256K-R' | 'ES256' | 'EdDSA'

/** The algorithms a key type signs under, its default first. */
export const ALGORITHMS_OF: Readonly<Record<KeyType, readonly SignatureAlgorithm[]>> = {
  secp256k1: ['ES256K', 'ES256K-R'],
  'P-256': ['ES256'],
  Ed25519: ['EdDSA'],
}

/** A public key as a JWK: `EC` with `x` and `y` for secp256k1 and P-256, `OKP` with `x` for Ed25519 (base64url, no padding). */
export interface PublicJwk {
  kty: 'EC' | 'OKP'
  crv: 'secp256k1' | 'P-256' | 'Ed25519'
  x: string
  y?: string
}

/** A BLS12-381 G2 public key as a JWK (the 96-byte compressed point in `x`, base64url), as @digitalbazaar/bls12-381-multikey writes it. */
export interface BbsPublicJwk {
  kty: 'OKP'
  crv: BbsKeyType
  x: string
}

/** The key type of a public JWK; undefined for a curve or shape didvault does not use. */
export function keyTypeOfJwk(jwk: { kty?: unknown; crv?: unknown; y?: unknown }): KeyType | undefined {
  if (jwk.kty === 'EC' && typeof jwk.y === 'string' && (jwk.crv === 'secp256k1' || jwk.crv === 'P-256')) return jwk.crv
  if (jwk.kty === 'OKP' && jwk.crv === 'Ed25519' && jwk.y === undefined) return 'Ed25519'
  return undefined
}
