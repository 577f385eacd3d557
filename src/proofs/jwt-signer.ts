/** Adapts the {@link DigestSigner} seam to did-jwt's `Signer` (ES256K and ES256K-R). */
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex } from '@noble/hashes/utils.js'
import type { Signer } from 'did-jwt'
import type { DigestSigner } from '../keys/signer.js'

export function didJwtSigner(signer: DigestSigner): Signer {
  return async (data) => {
    const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data
    const sig = await signer.sign(sha256(bytes))
    return { r: bytesToHex(sig.r), s: bytesToHex(sig.s), recoveryParam: sig.recovery }
  }
}
