/** The library's view of an issuer's own metadata (what its parse and proof checks take), built without any fetch. */
import type { AuthorizationServerMetadata } from '@openid4vc/oauth2'
import { Openid4vciVersion, type CredentialIssuerMetadata, type IssuerMetadataResult, type Openid4vciIssuer } from '@openid4vc/openid4vci'

/** The metadata of one Credential Issuer: its Credential Issuer Metadata and its (built-in) AS metadata. */
export interface IssuerMetadata {
  credentialIssuer: CredentialIssuerMetadata
  authorizationServer: AuthorizationServerMetadata
}

/** The library's metadata result for `metadata` (OID4VCI 1.0). */
export function metadataResult(issuer: Openid4vciIssuer, metadata: IssuerMetadata): IssuerMetadataResult {
  return {
    originalDraftVersion: Openid4vciVersion.V1,
    credentialIssuer: metadata.credentialIssuer,
    authorizationServers: [metadata.authorizationServer],
    knownCredentialConfigurations: issuer.getKnownCredentialConfigurationsSupported(metadata.credentialIssuer),
  }
}
