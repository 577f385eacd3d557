/**
 * did:jwk (quartzjer/did-jwk): the DID is `did:jwk:` + the base64url of a public JWK's JSON; its
 * document has the one `JsonWebKey2020` method `#0` carrying that JWK as given. The JWK's `use`
 * picks the relationships: `sig` all but `keyAgreement`, `enc` only `keyAgreement`, none all five.
 */
import type { DIDDocument, JsonWebKey } from 'did-resolver'

export const DID_JWK_CONTEXT = ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/suites/jws-2020/v1']

const SIGNING = ['assertionMethod', 'authentication', 'capabilityInvocation', 'capabilityDelegation'] as const

/** The document of `did` (a did:jwk DID) whose JWK is `jwk`. */
export function didJwkDocument(did: string, jwk: Record<string, unknown>): DIDDocument {
  const id = `${did}#0`
  const document: DIDDocument = {
    '@context': DID_JWK_CONTEXT,
    id: did,
    verificationMethod: [{ id, type: 'JsonWebKey2020', controller: did, publicKeyJwk: jwk as unknown as JsonWebKey }],
  }
  if (jwk.use !== 'enc') for (const relationship of SIGNING) document[relationship] = [id]
  if (jwk.use !== 'sig') document.keyAgreement = [id]
  return document
}
