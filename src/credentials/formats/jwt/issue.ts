/**
 * Issuing a VC-JWT made by did-jwt-vc under the algorithm of the issuer's key type (ES256K, ES256, EdDSA), signed
 * through the issuer wallet's {@link KeySigner} as the verification method of the issuer's document that lists it
 * (`kid`; none for did:ethr).
 */
import type { Resolvable } from 'did-resolver'
import { createVerifiableCredentialJwt } from 'did-jwt-vc'
import type { KeySigner } from '../../../keys/signer.js'
import { jwtIssuerOf } from '../../../proofs/jwt-signer.js'
import { CREDENTIALS_STATUS_V1_URL } from '../../../proofs/jsonld/index.js'
import type { CredentialContent } from '../port.js'
import { credentialStatusOf, unsignedCredential } from '../w3c-document.js'

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
