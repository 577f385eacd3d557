/**
 * BLS12-381 keys for BBS signatures (`BBS-BLS12-381-SHA-256`, what bbs-2023 signs with), on
 * @digitalbazaar/bls12-381-multikey. The package is ESM-only: it is loaded with a dynamic `import()` of a specifier
 * passed as a parameter (as `proofs/data-integrity/libraries.ts` does: the CommonJS build keeps it a real `import()`,
 * which Node runs from CommonJS too) and cached. The secret key is the 32-byte scalar; the
 * public key the 96-byte compressed G2 point; its JWK `{kty: 'OKP', crv: 'Bls12381G2', x}` as the package writes it.
 */
import type { BbsPublicJwk } from '../../key-types.js'
import { base64url } from '../curve.js'

/** The BBS ciphersuite didvault signs under (bbs-2023 requires it). */
export const BBS_ALGORITHM = 'BBS-BLS12-381-SHA-256'

/** Size of a compressed G2 public key. */
export const BLS12381_G2_PUBLIC_KEY_BYTES = 96

interface BlsKeyPair {
  publicKey: Uint8Array
  secretKey: Uint8Array
  signer(): { multisign(options: { header: Uint8Array; messages: Uint8Array[] }): Promise<Uint8Array> }
}
interface BlsMultikey {
  generateBbsKeyPair(options: { algorithm: string }): Promise<BlsKeyPair>
  fromRaw(options: { algorithm: string; secretKey: Uint8Array; publicKey: Uint8Array }): Promise<BlsKeyPair>
}

const importEsm = (specifier: string): Promise<unknown> => import(specifier)
let loading: Promise<BlsMultikey> | undefined
const library = (): Promise<BlsMultikey> =>
  (loading ??= (importEsm('@digitalbazaar/bls12-381-multikey') as Promise<BlsMultikey>).catch((error: unknown) => {
    loading = undefined
    throw error
  }))

/** A fresh key pair (the caller seals and wipes `secretKey`). */
export async function generateBbsKey(): Promise<{ secretKey: Uint8Array; publicKey: Uint8Array }> {
  const pair = await (await library()).generateBbsKeyPair({ algorithm: BBS_ALGORITHM })
  return { secretKey: Uint8Array.from(pair.secretKey), publicKey: Uint8Array.from(pair.publicKey) }
}

/** The public JWK of a G2 public key. */
export function bbsPublicJwk(publicKey: Uint8Array): BbsPublicJwk {
  if (publicKey.length !== BLS12381_G2_PUBLIC_KEY_BYTES) throw new RangeError('a BLS12-381 G2 public key is 96 bytes')
  return { kty: 'OKP', crv: 'Bls12381G2', x: base64url(publicKey) }
}

/**
 * The BBS signature (80 bytes) of `messages` under `header`. The caller wipes `secretKey`; the library's own copies
 * (it re-encodes the key as a JWK string) cannot be wiped, like the curve libraries' intermediates.
 */
export async function bbsSign(
  secretKey: Uint8Array,
  publicKey: Uint8Array,
  header: Uint8Array,
  messages: readonly Uint8Array[],
): Promise<Uint8Array> {
  const pair = await (await library()).fromRaw({ algorithm: BBS_ALGORITHM, secretKey, publicKey })
  return pair.signer().multisign({ header, messages: [...messages] })
}
