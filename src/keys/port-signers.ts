/**
 * Signers over the key port and over digest signers: the {@link KeySigner} of a port key, and the {@link KeySigner} of a
 * secp256k1 key that signs digests only (a 0.1.0 wallet's sealed key, an MPC wallet's signer); the {@link BbsSigner} of a
 * port Bls12381G2 key.
 */
import { sha256 } from '@noble/hashes/sha2.js'
import { IdentityError } from '../errors.js'
import { ALGORITHMS_OF, keyTypeOfJwk, type BbsPublicJwk, type PublicJwk } from './key-types.js'
import type { KeyManager, KeyRef } from './port.js'
import { addressOf, bytesToHex, hexToBytes } from './secp256k1.js'
import type { BbsSigner, DigestSigner, KeySigner, RecoverableSignature } from './signer.js'
import { CURVES } from './types/index.js'
import { ecPoint } from './types/curve.js'

/** A key of the port, as a signer needs it: whose it is, its reference, and (for the digest adapter) its public JWK. */
export interface PortKey {
  tenantId: string
  keyRef: KeyRef
  /** Member DIDs (canonical) approving each signature, for backends that sign only with a quorum (`mpc`). */
  approvals?: readonly string[]
}

/**
 * The {@link KeySigner} of a port key whose public JWK the caller holds (a wallet record's): data
 * is signed by the port under the algorithm asked; a secp256k1 key's digest signer signs
 * `ES256K-R` over the digest as given.
 */
export function portKeySigner(keys: KeyManager, key: PortKey & { publicJwk: PublicJwk }): KeySigner {
  const keyType = keyTypeOfJwk(key.publicJwk)
  if (!keyType) throw new RangeError(`not a key type didvault signs with: ${key.publicJwk.kty} ${key.publicJwk.crv}`)
  const { tenantId, keyRef, approvals } = key
  return {
    keyType,
    publicJwk: key.publicJwk,
    sign: (alg, data) => keys.sign({ tenantId, keyRef, approvals, alg, data }),
    ...(keyType === 'secp256k1' && {
      digest: digestSignerOver(key.publicJwk, async (digest) => {
        const sig = await keys.sign({ tenantId, keyRef, approvals, alg: 'ES256K-R', digest })
        return { r: sig.slice(0, 32), s: sig.slice(32, 64), recovery: sig[64] as 0 | 1 }
      }),
    }),
  }
}

/**
 * The {@link KeySigner} of a secp256k1 key that signs digests only: data is hashed with SHA-256
 * and the digest signed, in JOSE form (r‖s for `ES256K`, r‖s‖v for `ES256K-R`).
 */
export function digestKeySigner(digest: DigestSigner): KeySigner {
  return {
    keyType: 'secp256k1',
    publicJwk: CURVES.secp256k1.publicJwkOfBytes(hexToBytes(digest.publicKeyHex)),
    digest,
    async sign(alg, data) {
      if (!ALGORITHMS_OF.secp256k1.includes(alg))
        throw new IdentityError('VALIDATION_ERROR', `a secp256k1 key signs under ES256K or ES256K-R, not ${alg}`)
      const { r, s, recovery } = await digest.sign(sha256(data))
      return Uint8Array.from(alg === 'ES256K-R' ? [...r, ...s, recovery] : [...r, ...s])
    },
  }
}

/**
 * A {@link DigestSigner} of the secp256k1 key `publicJwk`, signing through `sign`. Its address (a Keccak-256 of the point)
 * is computed when first read: a signer is made per request, and most never need it.
 */
function digestSignerOver(publicJwk: PublicJwk, sign: (digest: Uint8Array) => Promise<RecoverableSignature>): DigestSigner {
  const point = ecPoint(publicJwk)
  let address: string | undefined
  return {
    publicKeyHex: bytesToHex(point),
    get address() {
      return (address ??= addressOf(point))
    },
    sign,
  }
}

/** The {@link BbsSigner} of a port Bls12381G2 key whose public JWK the caller holds: the port signs each BBS signature. */
export function portBbsSigner(keys: KeyManager, key: PortKey & { publicJwk: BbsPublicJwk }): BbsSigner {
  const { tenantId, keyRef, approvals } = key
  return {
    keyType: 'Bls12381G2',
    publicKey: Buffer.from(key.publicJwk.x, 'base64url'),
    multisign: (header, messages) => keys.signBbs({ tenantId, keyRef, approvals, header, messages }),
  }
}
