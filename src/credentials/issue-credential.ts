/**
 * Issuing a W3C verifiable credential in either form: JSON-LD with a proof of a didvault suite
 * (secp256k1 keys), or a VC-JWT made by did-jwt-vc under the algorithm of the issuer's key type
 * (ES256K, ES256, EdDSA). Both are signed through the issuer wallet's {@link KeySigner}; the key
 * signs as the verification method of the issuer's document that lists it (`kid`, `creator`),
 * for did:ethr its `#controller`.
 */
import type { Resolvable } from 'did-resolver'
import { createVerifiableCredentialJwt } from 'did-jwt-vc'
import type { KeySigner } from '../keys/signer.js'
import { jwtIssuerOf, verificationMethodOf } from '../proofs/jwt-signer.js'
import {
  jsonLdSignerOf,
  CREDENTIALS_STATUS_V1_URL,
  CREDENTIALS_V1_URL,
  CREDENTIALS_V2_URL,
  signJsonLd,
  type JsonLdDocument,
  type ProofType,
} from '../proofs/jsonld/index.js'
import type { CanonicalHasher } from '../proofs/jsonld/canonical-hasher.js'
import type { ContextEntry } from '../proofs/jsonld/contexts.js'
import { isUndefinedTermError, withUndefinedTerms, type UndefinedTerms } from '../proofs/jsonld/undefined-terms.js'

/** What a credential says, in either form. */
export interface CredentialContent {
  /** The credential's id (a DID or URI). */
  id: string
  issuer: string
  /** Subject DID (`credentialSubject.id`), if any. */
  subject?: string
  /** Members of `credentialSubject` besides `id`. */
  claims: Record<string, unknown>
  /**
   * Contexts after the credentials context (URLs, or inline context definitions):
   * credentials/v1 (data model 1.1), unless they include credentials/v2, which then comes first
   * (data model 2.0).
   */
  contexts: ContextEntry[]
  /** Types after `VerifiableCredential`. */
  types: string[]
  /** Issuance, ms. */
  issuedAt: number
  /** Expiration, ms; none when undefined. */
  expiresAt?: number
  /** `credentialStatus` entries: one is the member itself, more an array. */
  status?: Array<Record<string, unknown>>
}

/** `credentialStatus` of `content`, if it has status entries. */
function credentialStatusOf(content: CredentialContent): Record<string, unknown> | Array<Record<string, unknown>> | undefined {
  if (content.status === undefined || content.status.length === 0) return undefined
  return content.status.length === 1 ? content.status[0] : content.status
}

/** Whether `content` is a data model 2.0 credential (its contexts include credentials/v2). */
export function isV2(content: Pick<CredentialContent, 'contexts'>): boolean {
  return content.contexts.includes(CREDENTIALS_V2_URL)
}

/**
 * The unsigned JSON-LD credential of `content`: data model 1.1 (`credentials/v1`,
 * `issuanceDate`, `expirationDate`), or 2.0 when its contexts include `credentials/v2`
 * (`credentials/v2` first, `validFrom`, `validUntil`).
 */
export function unsignedCredential(content: CredentialContent): JsonLdDocument {
  const v2 = isV2(content)
  const credential: JsonLdDocument = {
    '@context': unique([v2 ? CREDENTIALS_V2_URL : CREDENTIALS_V1_URL, ...content.contexts]),
    id: content.id,
    type: unique(['VerifiableCredential', ...content.types]),
    issuer: content.issuer,
    [v2 ? 'validFrom' : 'issuanceDate']: new Date(content.issuedAt).toISOString(),
    credentialSubject: { ...(content.subject !== undefined && { id: content.subject }), ...content.claims },
  }
  if (content.expiresAt !== undefined) credential[v2 ? 'validUntil' : 'expirationDate'] = new Date(content.expiresAt).toISOString()
  const status = credentialStatusOf(content)
  if (status !== undefined) credential.credentialStatus = status
  return credential
}

/** How {@link issueJsonLdCredential} signs. */
export interface JsonLdIssueOptions {
  /** The proof suite; default EcdsaKoblitzSignature2016. */
  proofType?: ProofType
  /** Canonicalizes; default: in this thread. */
  hasher?: CanonicalHasher
  /**
   * Terms no context defines: `vocab` (default) signs them under the undefined-terms context,
   * appended last only when safe mode refuses the credential for such a term; `reject` lets the
   * refusal stand.
   */
  undefinedTerms?: UndefinedTerms
  /** Resolves the issuer's document when its method is not in the registry (did:web): names its key's verification method. */
  resolver?: Resolvable
}

/**
 * `content` as JSON-LD, signed with one proof by the issuer's key (see {@link JsonLdIssueOptions}): a secp256k1
 * key (422 naming the suites otherwise), as the issuer's `#controller` for did:ethr. A credential whose terms are
 * all defined is signed as it is; one with a term no context defines is signed again with the undefined-terms context last (the
 * failed attempt costs its canonicalization, up to the undefined term), unless
 * `undefinedTerms` is `reject`.
 *
 * @throws {JsonLdProcessingError} | {UnknownContextError} the credential is not safely canonicalizable
 */
export async function issueJsonLdCredential(
  content: CredentialContent,
  keySigner: KeySigner,
  options: JsonLdIssueOptions = {},
): Promise<JsonLdDocument> {
  const { proofType, hasher, undefinedTerms = 'vocab', resolver } = options
  const signer = jsonLdSignerOf(keySigner)
  const creator = (await verificationMethodOf(content.issuer, keySigner.publicJwk, resolver)) ?? `${content.issuer}#controller`
  const proof = { creator, created: new Date(content.issuedAt), proofType, hasher }
  const unsigned = unsignedCredential(content)
  try {
    return await signJsonLd(unsigned, signer, proof)
  } catch (err) {
    // Signed again only when the undefined-terms context is what it lacked (not there yet).
    const underVocab = undefinedTerms === 'vocab' && isUndefinedTermError(err) ? withUndefinedTerms(unsigned) : unsigned
    if (underVocab === unsigned) throw err
    return signJsonLd(underVocab, signer, proof)
  }
}

/**
 * `content` as a VC-JWT signed by the issuer's key (ES256K, ES256 or EdDSA; `kid` the verification method listing
 * it, none for did:ethr; a did:web issuer's through `options.resolver`): `iss`, `sub` (the subject), `jti` (the id), `nbf` (issuance)
 * and `exp` in seconds (rounded down), and the credential's `@context`, `type` and the other
 * `credentialSubject` members in `vc`. did-jwt-vc refuses an empty `credentialSubject`: a JWT
 * credential needs at least one claim besides its subject. A VC-JWT is data model 1.1: one with
 * `credentialStatus` names the status context (`credentials/status/v1`) after its own, which
 * defines `BitstringStatusListEntry` (verifiers that read JSON-LD see no status without it).
 */
export async function issueJwtCredential(
  content: CredentialContent,
  signer: KeySigner,
  options: { resolver?: Resolvable } = {},
): Promise<string> {
  const status = credentialStatusOf(content)
  const { '@context': context, type } = unsignedCredential({
    ...content,
    contexts: status === undefined ? content.contexts : [...content.contexts, CREDENTIALS_STATUS_V1_URL],
  })
  const payload = {
    ...(content.subject !== undefined && { sub: content.subject }),
    jti: content.id,
    nbf: Math.floor(content.issuedAt / 1000),
    ...(content.expiresAt !== undefined && { exp: Math.floor(content.expiresAt / 1000) }),
    // Inline contexts stay objects: a VC-JWT's `@context` is not processed as JSON-LD (did-jwt-vc types it as strings).
    vc: {
      '@context': context as string[],
      type: type as string[],
      credentialSubject: content.claims,
      // did-jwt-vc types one entry; the data model allows an array (two purposes), which it carries as it is.
      ...(status !== undefined && { credentialStatus: status as { id: string; type: string } }),
    },
  }
  const { kid, ...issuer } = await jwtIssuerOf(content.issuer, signer, { resolver: options.resolver })
  return createVerifiableCredentialJwt(payload, issuer, kid === undefined ? {} : { header: { kid } })
}

function unique<T>(items: T[]): T[] {
  return [...new Set(items)]
}
