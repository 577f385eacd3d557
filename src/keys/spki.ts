/** DER encoding of secp256k1 public keys (the spec's `publicKeyDER` of MPC wallets). */
import { bytesToHex, uncompressedOf } from './secp256k1.js'

/**
 * SubjectPublicKeyInfo prefix for an uncompressed secp256k1 key: SEQUENCE { SEQUENCE { OID
 * id-ecPublicKey, OID secp256k1 }, BIT STRING (65 bytes) }.
 */
const SPKI_PREFIX = '3056301006072a8648ce3d020106052b8104000a034200'

/** Hex of the DER SubjectPublicKeyInfo of a public key (compressed or uncompressed). */
export function publicKeyDerHex(publicKey: Uint8Array): string {
  const uncompressed = publicKey.length === 65 ? publicKey : uncompressedOf(publicKey)
  return SPKI_PREFIX + bytesToHex(uncompressed)
}
