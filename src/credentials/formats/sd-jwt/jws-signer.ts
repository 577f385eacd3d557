/** The `@sd-jwt` libraries' signer over a wallet's {@link KeySigner}: the JOSE signature of the signing input, base64url. */
import type { Signer } from './library-types.js'
import type { SignatureAlgorithm } from '../../../keys/key-types.js'
import type { KeySigner } from '../../../keys/signer.js'

/** Signs through the key port under `alg`; the private key never leaves its backend. */
export const sdJwtSigner =
  (signer: KeySigner, alg: SignatureAlgorithm): Signer =>
  async (data) =>
    Buffer.from(await signer.sign(alg, new TextEncoder().encode(data))).toString('base64url')
