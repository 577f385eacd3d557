/**
 * The callbacks `@openid4vc/oauth2` and `@openid4vc/openid4vci` need (hash, random, sign, verify, fetch), made from
 * node:crypto and jose, shared by the reference issuer (test/helpers/oid4vci-reference-issuer.ts) and the third wallet
 * client (test/helpers/oid4vci-wallets.ts). Test-only.
 */
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto'
import { calculateJwkThumbprint, clientAuthenticationNone, HashAlgorithm, type CallbackContext, type Jwk } from '@openid4vc/oauth2'
import * as jose from 'jose'

/** A P-256 key pair as JWKs. */
export interface KeyPair {
  publicJwk: Jwk
  privateJwk: Jwk
}

/** A fresh P-256 key pair. */
export function newP256(): KeyPair {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  return { publicJwk: publicKey.export({ format: 'jwk' }) as Jwk, privateJwk: privateKey.export({ format: 'jwk' }) as Jwk }
}

/** SHA-256 thumbprint (RFC 7638) of a JWK. */
export const thumbprint = (jwk: Jwk): Promise<string> =>
  calculateJwkThumbprint({ jwk, hashAlgorithm: HashAlgorithm.Sha256, hashCallback: hash })

const hash: CallbackContext['hash'] = (data, alg) => createHash(alg.replace('-', '').toLowerCase()).update(data).digest()

/** The public JWK a `did:jwk` names. */
export function jwkOfDidJwk(did: string): Jwk {
  const id = did.split('#')[0].replace(/^did:jwk:/, '')
  return JSON.parse(Buffer.from(id, 'base64url').toString('utf8')) as Jwk
}

/** `did:jwk` of a public JWK. */
export const didJwkOf = (jwk: Jwk): string => `did:jwk:${Buffer.from(JSON.stringify(jwk)).toString('base64url')}`

/**
 * Callbacks signing with the private keys given (found by the signer's public JWK thumbprint), verifying any
 * `jwk` or `did:jwk` signer, and fetching with `fetchImpl`.
 */
export function oid4vcCallbacks(keys: KeyPair[], fetchImpl: typeof fetch = fetch) {
  const verifyJwt: CallbackContext['verifyJwt'] = async (signer, { compact }) => {
    const jwk = signer.method === 'jwk' ? signer.publicJwk : signer.method === 'did' ? jwkOfDidJwk(signer.didUrl) : undefined
    if (!jwk) return { verified: false }
    try {
      await jose.compactVerify(compact, await jose.importJWK(jwk as jose.JWK, signer.alg))
      return { verified: true, signerJwk: jwk }
    } catch {
      return { verified: false }
    }
  }
  const signJwt: CallbackContext['signJwt'] = async (signer, { header, payload }) => {
    const jwk = signer.method === 'jwk' ? signer.publicJwk : signer.method === 'did' ? jwkOfDidJwk(signer.didUrl) : undefined
    if (!jwk) throw new Error(`signer method ${signer.method} is not supported here`)
    const wanted = await thumbprint(jwk)
    let pair: KeyPair | undefined
    for (const candidate of keys) if ((await thumbprint(candidate.publicJwk)) === wanted) pair = candidate
    if (!pair) throw new Error('no private key for this signer')
    const key = await jose.importJWK(pair.privateJwk, signer.alg)
    const jwt = await new jose.CompactSign(new TextEncoder().encode(JSON.stringify(payload))).setProtectedHeader(header).sign(key)
    return { jwt, signerJwk: jwk }
  }
  return {
    hash,
    generateRandom: (bytes: number) => randomBytes(bytes),
    clientAuthentication: clientAuthenticationNone({ clientId: 'didvault-test-wallet' }),
    verifyJwt,
    signJwt,
    fetch: fetchImpl,
  } satisfies Omit<CallbackContext, 'encryptJwe' | 'decryptJwe'>
}
