/**
 * The crypto callbacks @openid4vc/oauth2 and @openid4vc/openid4vci call on the server side: hashing and randomness
 * from node:crypto, and JWS verification through didvault's JOSE verifier table (`proofs/jose-algorithms.ts`, OpenSSL).
 * A key named by a DID URL (`kid: did:…#…`) is found through the `resolveKey` callback the caller gives (the service's
 * DID resolver); no other network access: `fetch` refuses every request (no request to a host a wallet names).
 */
import { createHash, randomBytes } from 'node:crypto'
import type { CallbackContext, Jwk, JwtSigner } from '@openid4vc/oauth2'
import type { VerificationMethod } from 'did-resolver'
import { keyTypeOfJwk, type PublicJwk, type SignatureAlgorithm } from '../../keys/key-types.js'
import { joseVerifierOf } from '../../proofs/jose-algorithms.js'

/** Finds the verification method a DID URL names (`did:key:…#…`, `did:jwk:…#0`); undefined when it names none. */
export type ResolveKey = (didUrl: string) => Promise<VerificationMethod | undefined>

/** The JWS algorithms wallets' proofs (key proofs, DPoP) may use: those didvault verifies, without the recoverable form. */
export const PROOF_ALGORITHMS: readonly SignatureAlgorithm[] = ['ES256', 'ES256K', 'EdDSA']

const HASHES: Readonly<Record<string, string>> = { 'sha-256': 'sha256', 'sha-384': 'sha384', 'sha-512': 'sha512' }

/** The public members of a JWK of a key type didvault verifies; undefined for any other JWK, or one carrying `d`. */
export function publicJwkOf(jwk: unknown): PublicJwk | undefined {
  if (typeof jwk !== 'object' || jwk === null || 'd' in jwk) return undefined
  if (keyTypeOfJwk(jwk) === undefined) return undefined
  const { kty, crv, x, y } = jwk as PublicJwk
  if (typeof x !== 'string') return undefined
  return y === undefined ? { kty, crv, x } : { kty, crv, x, y }
}

/** The callbacks the library's server-side functions take. */
export type ServerCallbacks = Omit<CallbackContext, 'decryptJwe' | 'encryptJwe'>

/** The server-side callbacks; `resolveKey` serves `kid`s that are DID URLs (absent: such proofs fail). */
export function serverCallbacks(resolveKey?: ResolveKey): ServerCallbacks {
  return {
    hash: (data, alg) => {
      const name = HASHES[alg]
      if (!name) throw new Error(`unsupported hash ${alg}`)
      return new Uint8Array(createHash(name).update(data).digest())
    },
    generateRandom: (length) => new Uint8Array(randomBytes(length)),
    signJwt: () => {
      throw new Error('the OID4VCI protocol adapter signs no JWT')
    },
    fetch: () => Promise.reject(new Error('the OID4VCI protocol adapter makes no request')),
    clientAuthentication: () => undefined,
    verifyJwt: async (signer, jwt) => verifyCompact(signer, jwt.header.alg, jwt.compact, resolveKey),
  }
}

/** Checks the signature of `compact` under `alg` with the key `signer` names. */
async function verifyCompact(
  signer: JwtSigner,
  alg: string,
  compact: string,
  resolveKey: ResolveKey | undefined,
): Promise<{ verified: true; signerJwk: Jwk } | { verified: false }> {
  if (!PROOF_ALGORITHMS.includes(alg as SignatureAlgorithm)) return { verified: false }
  const verifier = joseVerifierOf(alg)
  if (!verifier) return { verified: false }
  const [header, payload, signature] = compact.split('.')
  if (signature === undefined) return { verified: false }
  const signingInput = `${header}.${payload}`
  const signatureBytes = Buffer.from(signature, 'base64url')
  if (signer.method === 'jwk') {
    const jwk = publicJwkOf(signer.publicJwk)
    if (!jwk || !verifier.verify(signingInput, signatureBytes, jwk)) return { verified: false }
    return { verified: true, signerJwk: { ...jwk } }
  }
  if (signer.method === 'did' && resolveKey) {
    const vm = await resolveKey(signer.didUrl)
    const key = vm && verifier.keyOf(vm)
    if (!key || !verifier.verify(signingInput, signatureBytes, key)) return { verified: false }
    const jwk = publicJwkOf(key.export({ format: 'jwk' }))
    if (!jwk) return { verified: false }
    return { verified: true, signerJwk: { ...jwk } }
  }
  return { verified: false }
}
