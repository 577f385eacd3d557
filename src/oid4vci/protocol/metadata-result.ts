/** The library's view of an issuer's own metadata (what its parse and proof checks take), built without any fetch. */
import type { AuthorizationServerMetadata } from '@openid4vc/oauth2'
import { Openid4vciVersion, type CredentialIssuerMetadata, type IssuerMetadataResult, type Openid4vciIssuer } from '@openid4vc/openid4vci'

/** The metadata of one Credential Issuer: its Credential Issuer Metadata and its (built-in) AS metadata. */
export interface IssuerMetadata {
  /** The Credential Issuer Metadata document (as `oid4vci/metadata.ts` builds it). */
  credentialIssuer: {
    credential_issuer: string
    credential_configurations_supported: Record<string, { scope?: string; [member: string]: unknown }>
    [member: string]: unknown
  }
  /** The Authorization Server Metadata document. */
  authorizationServer: { issuer: string; [member: string]: unknown }
}

/** Results per metadata object: a request's parse and its proofs' checks share one. */
const RESULTS = new WeakMap<IssuerMetadata, IssuerMetadataResult>()

/** The library's metadata result for `metadata` (OID4VCI 1.0), made once per metadata object. */
export function metadataResult(issuer: Openid4vciIssuer, metadata: IssuerMetadata): IssuerMetadataResult {
  const made = RESULTS.get(metadata)
  if (made) return made
  // The library's types stay inside the adapter: didvault's declarations name no optional peer.
  const credentialIssuer = metadata.credentialIssuer as CredentialIssuerMetadata
  const result = {
    originalDraftVersion: Openid4vciVersion.V1,
    credentialIssuer,
    authorizationServers: [metadata.authorizationServer as AuthorizationServerMetadata],
    knownCredentialConfigurations: issuer.getKnownCredentialConfigurationsSupported(credentialIssuer),
  }
  RESULTS.set(metadata, result)
  return result
}
