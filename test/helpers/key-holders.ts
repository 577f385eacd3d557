/**
 * Outside holders of did:key and did:jwk DIDs, as the field's libraries make them: with did-jwt
 * and did-jwt-vc directly (keys from @noble/curves; the DID spelled here from the key, by the
 * did:key and did:jwk rules, independently of `src/`), and through a Veramo 7 agent with its
 * did:key / did:jwk providers (`@veramo/did-provider-key`, `@veramo/did-provider-jwk`) and its
 * JWT credential provider. Each issues VC-JWTs and signs DID-auth tokens.
 */
import { createJWT, EdDSASigner, ES256KSigner, ES256Signer, type Signer } from 'did-jwt'
import { createVerifiableCredentialJwt } from 'did-jwt-vc'
import { ed25519 } from '@noble/curves/ed25519.js'
import { p256 } from '@noble/curves/nist.js'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { base58, base64urlnopad } from '@scure/base'
import { KeyDIDProvider } from '@veramo/did-provider-key'
import { JwkDIDProvider } from '@veramo/did-provider-jwk'
import { createVeramoAgent } from './veramo.js'

export type HolderKeyType = 'secp256k1' | 'P-256' | 'Ed25519'
export type HolderAlg = 'ES256K' | 'ES256' | 'EdDSA'

/** A did:key / did:jwk holder: its DID, and what it signs. */
export interface KeyHolder {
  label: string
  did: string
  alg: HolderAlg
  /** A VC-JWT it issues about `subject` (default: itself). */
  issue(subject?: string): Promise<string>
  /** A DID-auth token it signs (aud `didvault`, 10 minutes), naming `iss` (default: its DID). */
  token(options?: { iss?: string }): Promise<string>
  /** Signs any JWT header and payload with its key (for forged tokens). */
  signer: Signer
}

const ALG_OF: Record<HolderKeyType, HolderAlg> = { secp256k1: 'ES256K', 'P-256': 'ES256', Ed25519: 'EdDSA' }
const CURVE = { secp256k1, 'P-256': p256, Ed25519: ed25519 } as const
const MULTICODEC: Record<HolderKeyType, number[]> = { secp256k1: [0xe7, 0x01], 'P-256': [0x80, 0x24], Ed25519: [0xed, 0x01] }

/** A fresh key pair of `type`: the secret, the public key as did:key carries it, and as a JWK. */
export function holderKey(type: HolderKeyType): { secret: Uint8Array; publicKey: Uint8Array; jwk: Record<string, string> } {
  const { secretKey, publicKey } = CURVE[type].keygen()
  if (type === 'Ed25519') return { secret: secretKey, publicKey, jwk: { crv: 'Ed25519', kty: 'OKP', x: base64urlnopad.encode(publicKey) } }
  const point = CURVE[type].Point.fromBytes(publicKey)
  const raw = point.toBytes(false)
  const jwk = { crv: type, kty: 'EC', x: base64urlnopad.encode(raw.subarray(1, 33)), y: base64urlnopad.encode(raw.subarray(33)) }
  return { secret: secretKey, publicKey: point.toBytes(true), jwk }
}

/** The did:key of a public key (multicodec prefix + key, base58btc). */
export const didKeyOf = (type: HolderKeyType, publicKey: Uint8Array) =>
  `did:key:z${base58.encode(Uint8Array.from([...MULTICODEC[type], ...publicKey]))}`

/** The did:jwk of a JWK (its JSON, base64url). */
export const didJwkOf = (jwk: Record<string, string>) => `did:jwk:${base64urlnopad.encode(new TextEncoder().encode(JSON.stringify(jwk)))}`

function signerOf(type: HolderKeyType, secret: Uint8Array): Signer {
  if (type === 'Ed25519') return EdDSASigner(secret)
  return type === 'P-256' ? ES256Signer(secret) : ES256KSigner(secret)
}

function tokenOf(did: string, signer: Signer, alg: HolderAlg) {
  return (options: { iss?: string } = {}) => {
    const now = Math.floor(Date.now() / 1000)
    return createJWT({ iat: now, exp: now + 600, aud: 'didvault' }, { issuer: options.iss ?? did, signer, alg })
  }
}

/** A holder whose DID (did:key or did:jwk) and signatures come from did-jwt / did-jwt-vc. */
export function didJwtHolder(method: 'key' | 'jwk', type: HolderKeyType): KeyHolder {
  const { secret, publicKey, jwk } = holderKey(type)
  const did = method === 'key' ? didKeyOf(type, publicKey) : didJwkOf(jwk)
  const signer = signerOf(type, secret)
  const alg = ALG_OF[type]
  return {
    label: `did-jwt did:${method} ${type} ${alg}`,
    did,
    alg,
    signer,
    issue: (subject = did) =>
      createVerifiableCredentialJwt(
        {
          sub: subject,
          nbf: Math.floor(Date.now() / 1000) - 5,
          vc: {
            '@context': ['https://www.w3.org/2018/credentials/v1'],
            type: ['VerifiableCredential'],
            credentialSubject: { name: `${method} ${type}` },
          },
        },
        { did, signer, alg },
      ),
    token: tokenOf(did, signer, alg),
  }
}

/** Veramo's key types, by ours. */
const VERAMO_TYPE = { secp256k1: 'Secp256k1', 'P-256': 'Secp256r1', Ed25519: 'Ed25519' } as const

/** A holder made by a Veramo 7 agent's did:key or did:jwk provider; its VC-JWTs come from `createVerifiableCredential`. */
export async function veramoHolder(method: 'key' | 'jwk', type: HolderKeyType): Promise<KeyHolder> {
  const provider = `did:${method}`
  const agent = createVeramoAgent({
    providers: { 'did:key': new KeyDIDProvider({ defaultKms: 'local' }), 'did:jwk': new JwkDIDProvider({ defaultKms: 'local' }) },
    defaultProvider: provider,
  })
  // Veramo's did:jwk provider drops leading zero bytes of an EC coordinate (about 1 key in 128): RFC 7518 §6.2.1.2
  // requires the full 32 bytes, and didvault refuses such a DID. Such keys are made again: the test is about the rest.
  let identifier = await agent.didManagerCreate({ provider, options: { keyType: VERAMO_TYPE[type] } })
  while (method === 'jwk' && !fullLengthCoordinates(identifier.did)) {
    identifier = await agent.didManagerCreate({ provider, options: { keyType: VERAMO_TYPE[type] } })
  }
  const key = identifier.keys[0]
  const alg = ALG_OF[type]
  const signer: Signer = (data) => agent.keyManagerSign({ keyRef: key.kid, data: data as string, algorithm: alg })
  return {
    label: `Veramo did:${method} ${type} ${alg}`,
    did: identifier.did,
    alg,
    signer,
    async issue(subject = identifier.did) {
      const credential = { issuer: { id: identifier.did }, credentialSubject: { id: subject, name: `veramo ${method} ${type}` } }
      const vc = await agent.createVerifiableCredential({ credential, proofFormat: 'jwt' })
      return vc.proof.jwt as string
    },
    token: tokenOf(identifier.did, signer, alg),
  }
}

/** Whether a did:jwk's EC coordinates are 32 bytes each (an OKP key has none to check). */
function fullLengthCoordinates(did: string): boolean {
  const jwk = JSON.parse(Buffer.from(did.slice('did:jwk:'.length), 'base64url').toString('utf8')) as { x?: string; y?: string }
  return [jwk.x, jwk.y].every((c) => c === undefined || Buffer.from(c, 'base64url').length === 32)
}
