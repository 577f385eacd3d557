/**
 * The DID-auth token: a verifiable credential of type `DIDAuthCredential` whose subject is
 * its issuer, signed by the issuer wallet's key: a VC-JWT (ES256K-R for did:ethr, ES256K for
 * other secp256k1 DIDs, ES256 for P-256, EdDSA for Ed25519; DESIGN §4 as amended in
 * docs/architecture.md), the decoded verification of the JWT, and — for secp256k1 keys, which
 * the JSON-LD suites sign with — the same credential as JSON-LD with an
 * `EcdsaKoblitzSignature2016` proof.
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
  // JSON-LD only where a suite signs with the key (secp256k1), until a Data Integrity suite does for the others.
  if (!input.signer.digest) return { jwt, verifications }
  const unsigned = {
    '@context': [CREDENTIALS_V1_URL, DID_AUTH_TERMS],
    type: ['VerifiableCredential', 'DIDAuthCredential'],
    issuer: input.issuer,
    issuanceDate: new Date(iat * 1000).toISOString(),
    expirationDate: new Date(exp * 1000).toISOString(),
    credentialSubject: { id: input.issuer },
  }
  const jsonld = await signJsonLd(unsigned, input.signer.digest, {
    creator: kid ?? `${input.issuer}#controller`,
    created: new Date(input.issuedAt),
    nonce: randomBytes(16).toString('hex'),
    domain: input.audience,
  })
  return { jsonld, jwt, verifications }
}
