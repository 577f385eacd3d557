/** did-jwt `Signer`s: over a key of the key port under its JWS algorithm, and over the {@link DigestSigner} seam (secp256k1). */
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex } from '@noble/hashes/utils.js'
import type { Signer } from 'did-jwt'
import type { SignatureAlgorithm } from '../keys/key-types.js'
import { dataSignerOf, type PortKey } from '../keys/port-signers.js'
import type { KeyManager } from '../keys/port.js'
import type { DigestSigner } from '../keys/signer.js'

/**
 * A did-jwt `Signer` of a port key under `alg` (`ES256K`, `ES256K-R`, `ES256`, `EdDSA`): give the
 * same `alg` to `createJWT` / did-jwt-vc. The signature is the port's JOSE form, base64url.
 */
export function keyPortJwtSigner(keys: KeyManager, key: PortKey, alg: SignatureAlgorithm): Signer {
  const signer = dataSignerOf(keys, key, alg)
  return async (data) => {
    const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data
    return Buffer.from(await signer.sign(bytes)).toString('base64url')
  }
}

/** A did-jwt `Signer` over the {@link DigestSigner} seam (ES256K and ES256K-R): SHA-256 of the signing input, signed as a digest. */
export function didJwtSigner(signer: DigestSigner): Signer {
  return async (data) => {
    const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data
    const sig = await signer.sign(sha256(bytes))
    return { r: bytesToHex(sig.r), s: bytesToHex(sig.s), recoveryParam: sig.recovery }
  }
}
