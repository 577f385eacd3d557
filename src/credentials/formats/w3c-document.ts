/**
 * The W3C verifiable credential document both W3C formats carry (JSON-LD as it is, a VC-JWT in its `vc` claim):
 * data model 1.1 (`credentials/v1`) or 2.0 (`credentials/v2` first).
 */
import { CREDENTIALS_V1_URL, CREDENTIALS_V2_URL, type JsonLdDocument } from '../../proofs/jsonld/index.js'
import type { CredentialContent } from './port.js'

/** `credentialStatus` of `content`, if it has status entries. */
export function credentialStatusOf(content: CredentialContent): Record<string, unknown> | Array<Record<string, unknown>> | undefined {
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

/** Refuses (422 naming `field`) contexts that mix data models 1.1 and 2.0. */
export function assertOneDataModel(contexts: readonly unknown[], field: string, refuse: (message: string) => Error): void {
  if (contexts.includes(CREDENTIALS_V2_URL) && contexts.includes(CREDENTIALS_V1_URL))
    throw refuse(`${field}: ${CREDENTIALS_V1_URL} and ${CREDENTIALS_V2_URL} cannot be mixed in one credential`)
}

function unique<T>(items: T[]): T[] {
  return [...new Set(items)]
}
