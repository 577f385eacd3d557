/** Hand-made DID-auth JWTs for negative tests: forged, expired, wrong audience. */
import { createJWT } from 'did-jwt'
import { didJwtSigner } from '../../src/proofs/jwt-signer.js'
import { LocalSigner, generatePrivateKey } from '../../src/keys/secp256k1.js'
import { DEV_NETWORK, ethrDid } from '../../src/did/methods/ethr/ethr.js'

export interface MintOptions {
  /** DID claimed as `iss`; default: the signer's own DID. */
  iss?: string
  aud?: string | null
  /** Seconds relative to now. */
  expIn?: number | null
  iatIn?: number
  nbfIn?: number
  signerKey?: Uint8Array
}

/** A JWT signed by `signerKey` (default: a fresh random key) claiming `iss`. */
export async function mintToken(o: MintOptions = {}): Promise<{ jwt: string; did: string }> {
  const signer = new LocalSigner(o.signerKey ?? generatePrivateKey())
  const did = o.iss ?? ethrDid(DEV_NETWORK, signer.address)
  const now = Math.floor(Date.now() / 1000)
  const payload: Record<string, unknown> = { iat: now + (o.iatIn ?? 0) }
  if (o.expIn !== null) payload.exp = now + (o.expIn ?? 600)
  if (o.nbfIn !== undefined) payload.nbf = now + o.nbfIn
  if (o.aud !== null) payload.aud = o.aud ?? 'didvault'
  const jwt = await createJWT(payload, { issuer: did, signer: didJwtSigner(signer), alg: 'ES256K-R' })
  return { jwt, did }
}

/** Flips one character in the signature part of a JWT. */
export function tamper(jwt: string): string {
  const [h, p, s] = jwt.split('.')
  const c = s[10] === 'A' ? 'B' : 'A'
  return [h, p, s.slice(0, 10) + c + s.slice(11)].join('.')
}

/** Changes a claim in the payload without re-signing. */
export function alterPayload(jwt: string, change: (p: Record<string, unknown>) => void): string {
  const [h, p, s] = jwt.split('.')
  const payload = JSON.parse(Buffer.from(p, 'base64url').toString())
  change(payload)
  return [h, Buffer.from(JSON.stringify(payload)).toString('base64url'), s].join('.')
}
