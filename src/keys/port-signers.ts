/**
 * Signers over the key port, for the signing code that takes a signer rather than a key: a
 * {@link DataSigner} (JOSE signatures under one algorithm: what JWTs and the Data Integrity
 * suites sign with), and — for secp256k1 keys only — the {@link DigestSigner} adapter the
 * did:ethr registries, DID-auth tokens, status lists and the secp256k1 JSON-LD suites still take.
 */
import type { PublicJwk, SignatureAlgorithm } from './key-types.js'
import type { KeyManager, KeyRef } from './port.js'
import { addressOf, bytesToHex } from './secp256k1.js'
import type { DigestSigner, RecoverableSignature } from './signer.js'
import { ecPoint } from './types/curve.js'

/** A key of the port, as a signer needs it: whose it is, its reference, and (for the digest adapter) its public JWK. */
export interface PortKey {
  tenantId: string
  keyRef: KeyRef
  /** Member DIDs (canonical) approving each signature, for backends that sign only with a quorum (`mpc`). */
  approvals?: readonly string[]
}

/** Signs data under one algorithm; the signature in JOSE form (docs/keys.md). */
export interface DataSigner {
  readonly alg: SignatureAlgorithm
  sign(data: Uint8Array): Promise<Uint8Array>
}

/** The {@link DataSigner} of a port key under `alg` (422 at the first signature if the key cannot sign under it). */
export function dataSignerOf(keys: KeyManager, key: PortKey, alg: SignatureAlgorithm): DataSigner {
  return {
    alg,
    sign: (data) => keys.sign({ tenantId: key.tenantId, keyRef: key.keyRef, approvals: key.approvals, alg, data }),
  }
}

/**
 * The {@link DigestSigner} of a secp256k1 port key: `ES256K-R` over the 32-byte digest as given.
 * An adapter kept for the code that still hashes before signing (keccak-256 for the did:ethr
 * registries, SHA-256 for the secp256k1 JSON-LD suites); new code signs data through {@link dataSignerOf}.
 */
export function digestSignerOf(keys: KeyManager, key: PortKey & { publicJwk: PublicJwk }): DigestSigner {
  if (key.publicJwk.crv !== 'secp256k1') throw new RangeError(`a digest signer needs a secp256k1 key, not ${key.publicJwk.crv}`)
  const point = ecPoint(key.publicJwk)
  return {
    publicKeyHex: bytesToHex(point),
    address: addressOf(point),
    async sign(digest: Uint8Array): Promise<RecoverableSignature> {
      const sig = await keys.sign({ tenantId: key.tenantId, keyRef: key.keyRef, approvals: key.approvals, alg: 'ES256K-R', digest })
      return { r: sig.slice(0, 32), s: sig.slice(32, 64), recovery: sig[64] as 0 | 1 }
    },
  }
}
