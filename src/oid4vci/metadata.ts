/**
 * The public metadata of a tenant's Credential Issuer: Credential Issuer Metadata (OID4VCI 1.0 §12.2, served at
 * `/.well-known/openid-credential-issuer`, inserted before the issuer's path and appended to it) and the metadata of its
 * built-in authorization server (RFC 8414, `/.well-known/oauth-authorization-server`). Both are served as documents with
 * an ETag; they name endpoints, types and algorithms, never a secret. No `publicUrl`, or a slug no tenant holds: 404.
 */
import { createHash } from 'node:crypto'
import type { Caller } from '../auth/context.js'
import { IdentityError } from '../errors.js'
import type { StorageAdapter } from '../storage/port.js'
import { credentialIssuerOf } from './issuer-url.js'
import { configurationsOf, issuerBySlug, type ConfigurationRecord } from './records.js'
import { SD_JWT_FORMATS, type MetadataInput, type ServedMetadata } from './schemas.js'

/** What the metadata operations use of the service. */
export interface MetadataContext {
  storage: StorageAdapter
  config: { publicUrl?: string }
}

/** How long wallets may cache metadata, seconds: configuration changes reach them within it. */
export const METADATA_MAX_AGE = 60

/** Binding methods of W3C formats: a holder DID (`credentialSubject.id`); a `jwk` proof binds to its did:jwk. */
const W3C_BINDING = ['did:jwk', 'did:key', 'jwk']

/** The DPoP proof algorithms the token and credential endpoints check. */
export const DPOP_ALGS = ['ES256', 'ES256K', 'EdDSA']

/** The default `@context` of a W3C format whose configuration names none. */
const DEFAULT_CONTEXT: Record<string, string[]> = {
  ldp_vc: ['https://www.w3.org/2018/credentials/v1'],
  'jwt_vc_json-ld': ['https://www.w3.org/2018/credentials/v1'],
  'vc+jwt': ['https://www.w3.org/ns/credentials/v2'],
}

/** The `credential_configurations_supported` entry of a configuration. */
export function configurationMetadata(r: ConfigurationRecord): Record<string, unknown> {
  const sdJwt = SD_JWT_FORMATS.includes(r.format)
  const context = r.context ?? DEFAULT_CONTEXT[r.format]
  const definition = sdJwt
    ? undefined
    : { ...(context !== undefined && { '@context': context }), type: r.types ?? ['VerifiableCredential'] }
  const metadata = {
    ...(r.display !== undefined && { display: r.display }),
    ...(r.claims !== undefined && { claims: r.claims }),
  }
  return {
    format: r.format,
    scope: r.configurationId,
    cryptographic_binding_methods_supported: sdJwt ? ['jwk'] : W3C_BINDING,
    credential_signing_alg_values_supported: [r.signingAlg],
    proof_types_supported: { jwt: { proof_signing_alg_values_supported: r.proofAlgs } },
    ...(sdJwt ? { vct: r.vct } : { credential_definition: definition }),
    ...(Object.keys(metadata).length > 0 && { credential_metadata: metadata }),
  }
}

/** The Credential Issuer Metadata of an issuer and its configurations (OID4VCI 1.0 §12.2.4). */
export function credentialIssuerMetadata(
  credentialIssuer: string,
  configurations: readonly ConfigurationRecord[],
): Record<string, unknown> {
  const batch = Math.max(1, ...configurations.map((c) => c.batchSize ?? 1))
  return {
    credential_issuer: credentialIssuer,
    // Not OID4VCI members, harmless to others: @digitalbazaar/oid4-client reads `issuer` and `token_endpoint` from this
    // document, and asks for `authorization_details` only when it lists `openid_credential` (test/helpers/oid4vci-wallets.md).
    issuer: credentialIssuer,
    token_endpoint: `${credentialIssuer}/token`,
    authorization_details_types_supported: ['openid_credential'],
    credential_endpoint: `${credentialIssuer}/credential`,
    nonce_endpoint: `${credentialIssuer}/nonce`,
    ...(configurations.some((c) => c.deferred === true) && { deferred_credential_endpoint: `${credentialIssuer}/deferred-credential` }),
    notification_endpoint: `${credentialIssuer}/notification`,
    ...(batch >= 2 && { batch_credential_issuance: { batch_size: batch } }),
    credential_configurations_supported: Object.fromEntries(configurations.map((c) => [c.configurationId, configurationMetadata(c)])),
  }
}

/**
 * The metadata of the issuer's built-in authorization server (RFC 8414; its `issuer` is the Credential Issuer
 * Identifier, which names no `authorization_servers`): pre-authorized code (anonymous) and authorization code with PAR
 * and PKCE S256, DPoP.
 */
export function authorizationServerMetadata(
  credentialIssuer: string,
  configurations: readonly ConfigurationRecord[],
): Record<string, unknown> {
  return {
    issuer: credentialIssuer,
    token_endpoint: `${credentialIssuer}/token`,
    authorization_endpoint: `${credentialIssuer}/authorize`,
    pushed_authorization_request_endpoint: `${credentialIssuer}/par`,
    require_pushed_authorization_requests: true,
    response_types_supported: ['code'],
    grant_types_supported: [
      'authorization_code',
      'urn:ietf:params:oauth:grant-type:pre-authorized_code',
      // Refresh tokens go with grants of deferred configurations only (refresh-tokens.ts).
      ...(configurations.some((c) => c.deferred === true) ? ['refresh_token'] : []),
    ],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    dpop_signing_alg_values_supported: DPOP_ALGS,
    'pre-authorized_grant_anonymous_access_supported': true,
    authorization_details_types_supported: ['openid_credential'],
    scopes_supported: configurations.map((c) => c.configurationId),
  }
}

/** GET Credential Issuer Metadata (`/.well-known/openid-credential-issuer`, both forms). */
export function getCredentialIssuerMetadata(ctx: MetadataContext, _caller: Caller, input: MetadataInput): Promise<ServedMetadata> {
  return served(ctx, input.issuer, credentialIssuerMetadata)
}

/** GET OAuth Authorization Server Metadata (`/.well-known/oauth-authorization-server`, both forms). */
export function getAuthorizationServerMetadata(ctx: MetadataContext, _caller: Caller, input: MetadataInput): Promise<ServedMetadata> {
  return served(ctx, input.issuer, authorizationServerMetadata)
}

async function served(
  ctx: MetadataContext,
  slug: string,
  build: (credentialIssuer: string, configurations: readonly ConfigurationRecord[]) => Record<string, unknown>,
): Promise<ServedMetadata> {
  const { publicUrl } = ctx.config
  if (publicUrl === undefined) throw new IdentityError('NOT_FOUND', 'no Credential Issuer here (the service has no publicUrl)', 404)
  const issuer = await issuerBySlug(ctx.storage, slug)
  if (!issuer) throw new IdentityError('NOT_FOUND', `no Credential Issuer ${slug}`, 404)
  const document = build(credentialIssuerOf(publicUrl, slug), await configurationsOf(ctx.storage, issuer.tenantId))
  const etag = `"${createHash('sha256').update(JSON.stringify(document)).digest('base64url').slice(0, 32)}"`
  return { document, contentType: 'application/json', etag, maxAge: METADATA_MAX_AGE }
}
