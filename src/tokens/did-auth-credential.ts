/**
 * The DID-auth token: a verifiable credential of type `DIDAuthCredential` whose subject is
 * its issuer, signed by the issuer wallet's key: a VC-JWT (ES256K-R for did:ethr, ES256K for
 * other secp256k1 DIDs, ES256 for P-256, EdDSA for Ed25519; DESIGN §4 as amended in
 * docs/architecture.md), the decoded verification of the JWT, and the same credential as JSON-LD
 * (credentials v1) with a proof of the key type's default suite: `EcdsaKoblitzSignature2016` for
 * secp256k1, a `DataIntegrityProof` (ecdsa-rdfc-2019 for P-256, eddsa-rdfc-2022 for Ed25519, the
 * Data Integrity v2 context appended) for the others, its `domain` the token's audience.
 */
import { randomBytes } from 'node:crypto'
import { createJWT } from 'did-jwt'
import type { Resolvable } from 'did-resolver'
import type { KeySigner } from '../keys/signer.js'
import type { KnownKeys } from '../proofs/known-keys.js'
import { verifyDidJwt } from '../proofs/jwt-verifier.js'
import { jwtIssuerOf } from '../proofs/jwt-signer.js'
import { CREDENTIALS_V1_URL, signJsonLd } from '../proofs/jsonld/index.js'
import type { DidAuthToken } from './schemas.js'

export type { DidAuthToken }

/** Defines the `DIDAuthCredential` type term (safe-mode JSON-LD rejects undefined terms). */
const DID_AUTH_TERMS = { DIDAuthCredential: 'https://w3id.org/didvault#DIDAuthCredential' }

export interface DidAuthTokenInput {
  issuer: string
  signer: KeySigner
  issuedAt: number
  expiresAt: number
  audience: string
  resolver: Resolvable
  keys?: KnownKeys
}

/** Issues a DID-auth token for `issuer`, signed through `signer`. */
export async function issueDidAuthToken(input: DidAuthTokenInput): Promise<DidAuthToken> {
  const iat = Math.floor(input.issuedAt / 1000)
  const exp = Math.floor(input.expiresAt / 1000)
  const vc = {
    '@context': [CREDENTIALS_V1_URL],
    type: ['VerifiableCredential', 'DIDAuthCredential'],
    credentialSubject: { id: input.issuer },
  }
  const { alg, signer, kid } = await jwtIssuerOf(input.issuer, input.signer, { recoverable: true, resolver: input.resolver })
  const jwt = await createJWT(
    { iat, nbf: iat, exp, sub: input.issuer, aud: input.audience, vc },
    { issuer: input.issuer, signer, alg },
    { typ: 'JWT', alg, ...(kid !== undefined && { kid }) },
  )
  // The JWT is checked with the same verifier requests use, so a token that would not be accepted is never handed out.
  const verified = await verifyDidJwt(jwt, { resolver: input.resolver, audience: input.audience, keys: input.keys, now: input.issuedAt })

  const verifications = {
    header: verified.header,
    document: verified.payload,
    signature: verified.signature,
    tbs: verified.data,
    issuer: verified.issuer,
  }
  const unsigned = {
    '@context': [CREDENTIALS_V1_URL, DID_AUTH_TERMS],
    type: ['VerifiableCredential', 'DIDAuthCredential'],
    issuer: input.issuer,
    issuanceDate: new Date(iat * 1000).toISOString(),
    expirationDate: new Date(exp * 1000).toISOString(),
    credentialSubject: { id: input.issuer },
  }
  const proof = { creator: kid ?? `${input.issuer}#controller`, created: new Date(input.issuedAt), domain: input.audience }
  if (input.signer.keyType !== 'secp256k1') {
    // The key type's default suite (a Data Integrity one), signed through the key port; it carries no nonce.
    return { jsonld: await signJsonLd(unsigned, input.signer, proof), jwt, verifications }
  }
  // secp256k1: EcdsaKoblitzSignature2016 over the digest signer, with a nonce (none without one: no JSON-LD).
  if (!input.signer.digest) return { jwt, verifications }
  const jsonld = await signJsonLd(unsigned, input.signer.digest, { ...proof, nonce: randomBytes(16).toString('hex') })
  return { jsonld, jwt, verifications }
}
