/**
 * Issuing a W3C verifiable credential (data model 1.1) in either form: JSON-LD with a proof
 * of a didvault suite, or a VC-JWT (ES256K) made by did-jwt-vc. Both are signed through the
 * {@link DigestSigner} seam; the key signs as the issuer DID's `#controller`.
 */
import { createVerifiableCredentialJwt } from 'did-jwt-vc'
import type { DigestSigner } from '../keys/signer.js'
import { didJwtSigner } from './jwt-signer.js'
import { CREDENTIALS_V1_URL, signJsonLd, type JsonLdDocument, type ProofType } from './jsonld/index.js'

/** What a credential says, in either form. */
export interface CredentialContent {
  /** The credential's id (a DID or URI). */
  id: string
  issuer: string
  /** Subject DID (`credentialSubject.id`), if any. */
  subject?: string
  /** Members of `credentialSubject` besides `id`. */
  claims: Record<string, unknown>
  /** Context URLs after credentials/v1. */
  contexts: string[]
  /** Types after `VerifiableCredential`. */
  types: string[]
  /** Issuance, ms. */
  issuedAt: number
  /** Expiration, ms; none when undefined. */
  expiresAt?: number
}

/** The unsigned JSON-LD credential of `content`. */
export function unsignedCredential(content: CredentialContent): JsonLdDocument {
  const credential: JsonLdDocument = {
    '@context': unique([CREDENTIALS_V1_URL, ...content.contexts]),
    id: content.id,
    type: unique(['VerifiableCredential', ...content.types]),
    issuer: content.issuer,
    issuanceDate: new Date(content.issuedAt).toISOString(),
    credentialSubject: { ...(content.subject !== undefined && { id: content.subject }), ...content.claims },
  }
  if (content.expiresAt !== undefined) credential.expirationDate = new Date(content.expiresAt).toISOString()
  return credential
}

/** `content` as JSON-LD, signed with one proof of `proofType` (default EcdsaKoblitzSignature2016) by the issuer's `#controller`. */
export async function issueJsonLdCredential(content: CredentialContent, signer: DigestSigner, proofType?: ProofType): Promise<JsonLdDocument> {
  return signJsonLd(unsignedCredential(content), signer, { creator: `${content.issuer}#controller`, created: new Date(content.issuedAt), proofType })
}

/**
 * `content` as a VC-JWT (ES256K): `iss`, `sub` (the subject), `jti` (the id), `nbf` (issuance)
 * and `exp` in seconds (rounded down), and the credential's `@context`, `type` and the other
 * `credentialSubject` members in `vc`. did-jwt-vc refuses an empty `credentialSubject`: a JWT
 * credential needs at least one claim besides its subject.
 */
export async function issueJwtCredential(content: CredentialContent, signer: DigestSigner): Promise<string> {
  const { '@context': context, type } = unsignedCredential(content)
  const payload = {
    ...(content.subject !== undefined && { sub: content.subject }),
    jti: content.id,
    nbf: Math.floor(content.issuedAt / 1000),
    ...(content.expiresAt !== undefined && { exp: Math.floor(content.expiresAt / 1000) }),
    vc: { '@context': context as string[], type: type as string[], credentialSubject: content.claims },
  }
  return createVerifiableCredentialJwt(payload, { did: content.issuer, signer: didJwtSigner(signer), alg: 'ES256K' })
}

function unique<T>(items: T[]): T[] {
  return [...new Set(items)]
}
