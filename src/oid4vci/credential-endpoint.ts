/**
 * The Credential Endpoint and the Notification Endpoint of a tenant's issuer (OID4VCI 1.0 §8, §11). The access-token
 * authenticator found the issuer and checked the token (and its DPoP proof) before the body was read; here: the
 * request parsed and its key proofs verified by the protocol adapter against the issuer's metadata and the
 * configuration (algorithms, batch size, distinct keys), the configuration one the grant covers, the proofs' nonces
 * looked at, then the credentials signed (`issuance.ts`) and stored with their audit records and the nonces' used-records
 * in one `insertAll` (one statement on PostgreSQL): a nonce used meanwhile conflicts and nothing is stored; the
 * `notification_id` is sealed, not stored (`notification-ids.ts`). Every refusal comes before
 * anything is written but a fresh `c_nonce` the refusal carries.
 */
import type { Caller } from '../auth/context.js'
import { isOneTimeTaken, type OneTimeStore } from '../one-time/index.js'
import { grantOf, type AccessGrant } from './grants.js'
import { credentialIssuerOf } from './issuer-url.js'
import { deferIssuance } from './deferred.js'
import { issueCredentials, type IssuanceContext } from './issuance.js'
import { authorizationServerMetadata, credentialIssuerMetadata } from './metadata.js'
import type { Oid4vciContext, Oid4vciRuntime } from './module.js'
import { cNonceUses, consumeCNonces, issueCNonce, liveCNonces } from './nonces.js'
import { OAuthError } from './oauth-error.js'
import type { IssuerMetadata } from './protocol/index.js'
import { configurationsOf, type ConfigurationRecord } from './records.js'
import { openNotificationId, sealNotificationId } from './notification-ids.js'
import type { CredentialRequestInput, CredentialResponseBody, NotificationInput } from './schemas.js'

/** What the endpoints use of the service. */
export type CredentialEndpointContext = IssuanceContext & Oid4vciContext & { oneTime: OneTimeStore; config: { publicUrl?: string } }

/** POST `/oid4vci/:issuer/credential`: the credentials of a Credential Request. */
export async function requestCredential(
  ctx: CredentialEndpointContext,
  caller: Caller,
  input: CredentialRequestInput,
): Promise<CredentialResponseBody> {
  const { oid4vci, publicUrl } = running(ctx)
  const grant = grantOf(caller)
  const { issuer: slug, ...body } = input
  if (grant.issuer !== slug) throw new OAuthError('invalid_token', 'the access token is not for this issuer', 401)
  const configurations = await configurationsOf(ctx.storage, caller.tenantId)
  const metadata = issuerMetadataOf(credentialIssuerOf(publicUrl, slug), configurations)
  const { protocol } = oid4vci
  const fresh = () => issueCNonce({ oneTime: ctx.oneTime, oid4vci, now: ctx.now }, caller.tenantId)

  const request = protocol.credential.parse(body, metadata)
  const configuration = grantedConfiguration(grant, configurations, request)
  if (configuration.dpopRequired === true && grant.jkt === undefined)
    throw new OAuthError('invalid_token', 'this credential needs a DPoP-bound access token', 401, {
      headers: { 'WWW-Authenticate': 'DPoP error="invalid_token"' },
    })
  const batchSize = configuration.batchSize ?? 1
  if (request.proofJwts.length > batchSize)
    throw await withNonce(new OAuthError('invalid_proof', `at most ${batchSize} key proofs per request (batch size)`), fresh)
  let verified
  try {
    verified = await protocol.credential.verifyProofs(request, {
      metadata,
      allowedAlgs: configuration.proofAlgs,
      batchSize,
      acceptUntyped: configuration.acceptUntypedProofs === true,
      ...(grant.clientId !== undefined && { clientId: grant.clientId }),
    })
  } catch (err) {
    throw await withNonce(err, fresh)
  }
  // ---- helper "deferred": the backend completes it later; the wallet gets a transaction id (202).
  if (configuration.deferred === true) {
    if (!(await consumeCNonces(ctx, caller.tenantId, verified.nonces))) throw oid4vci.lib.invalidNonce(await fresh())
    const pending = await deferIssuance(ctx, caller, { configuration, grant, keys: verified.keys })
    return oid4vci.lib.credentialResponse(request, pending).body
  }

  // The nonces checked before signing (a forged or expired one is refused before any work or write); used by their
  // records' unique inserts in the one write that stores the credentials with their audit records: all of it, or none.
  if (!liveCNonces(ctx, caller.tenantId, verified.nonces)) throw oid4vci.lib.invalidNonce(await fresh())
  // The response, sealed `notification_id` included, is made while the credentials' write travels (`meanwhile`).
  let response: CredentialResponseBody | undefined
  try {
    await issueCredentials(ctx, caller, {
      configuration,
      claims: grant.claims[configuration.configurationId] ?? {},
      keys: verified.keys,
      ...(grant.offerId !== undefined && { offerId: grant.offerId }),
      alsoInsert: () => {
        // Checked again once signed: a nonce that expired meanwhile is refused too.
        const uses = cNonceUses(ctx, caller.tenantId, verified.nonces)
        if (uses === undefined) throw new NonceExpired()
        return [uses]
      },
      meanwhile: (issued) => {
        // Sealed, not stored (`notification-ids.ts`): made once the record ids are known.
        const notificationId = sealNotificationId(ctx.oneTime, caller.tenantId, {
          issuer: slug,
          configurationId: configuration.configurationId,
          credentials: issued.map((c) => c.recordId),
          ...(grant.offerId !== undefined && { offerId: grant.offerId }),
        })
        response = oid4vci.lib.credentialResponse(request, { credentials: issued.map((c) => c.credential), notificationId }).body
      },
    })
  } catch (err) {
    // A nonce expired, or another request used it meanwhile (its record's unique insert conflicted): nothing was stored.
    if (err instanceof NonceExpired || isOneTimeTaken(err)) throw oid4vci.lib.invalidNonce(await fresh())
    throw err
  }
  return response!
}

/** POST `/oid4vci/:issuer/notification`: a wallet's event about credentials it received, into the audit trail. */
export async function sendCredentialNotification(
  ctx: CredentialEndpointContext,
  caller: Caller,
  input: NotificationInput,
): Promise<Record<string, never>> {
  const { oid4vci } = running(ctx)
  const grant = grantOf(caller)
  const { issuer: slug, ...body } = input
  if (grant.issuer !== slug) throw new OAuthError('invalid_token', 'the access token is not for this issuer', 401)
  const notification = oid4vci.lib.parseNotificationRequest(body)
  const data = openNotificationId(ctx.oneTime, caller.tenantId, slug, notification.notificationId)
  if (data === undefined || (data.offerId ?? null) !== (grant.offerId ?? null))
    throw new OAuthError('invalid_notification_id', 'the notification_id is unknown or expired')
  await ctx.audit.record(
    caller,
    data.credentials.map((id) => ({
      action: 'credential.notification' as const,
      target: { type: 'credential', id, event: notification.event, ...(data.offerId !== undefined && { offer: data.offerId }) },
    })),
  )
  return {}
}

/** A key proof's nonce expired between the look before signing and the issuance's write. */
class NonceExpired extends Error {}

/** The running issuer and `publicUrl`; without either the endpoints do not exist (404). */
export function running(ctx: Pick<CredentialEndpointContext, 'oid4vci' | 'config'>): { oid4vci: Oid4vciRuntime; publicUrl: string } {
  const { oid4vci } = ctx
  const { publicUrl } = ctx.config
  if (oid4vci === undefined || publicUrl === undefined) throw new OAuthError('invalid_request', 'no Credential Issuer here', 404)
  return { oid4vci, publicUrl }
}

/**
 * Metadata made, by what it was made of (the Credential Issuer Identifier and the configuration records as read): a
 * request whose configurations read the same gets the same object, and with it the protocol adapter's result made of
 * it once (`metadataResult`). Read fresh each request, changed configurations make another key. Bounded (cleared
 * whole when full); never mutated.
 */
const METADATA = new Map<string, IssuerMetadata>()
const METADATA_MAX = 100

/** The issuer's metadata as the protocol adapter checks requests against it. */
function issuerMetadataOf(credentialIssuer: string, configurations: readonly ConfigurationRecord[]): IssuerMetadata {
  const key = JSON.stringify([credentialIssuer, configurations])
  const made = METADATA.get(key)
  if (made) return made
  const metadata: IssuerMetadata = {
    credentialIssuer: credentialIssuerMetadata(credentialIssuer, configurations) as unknown as IssuerMetadata['credentialIssuer'],
    authorizationServer: authorizationServerMetadata(credentialIssuer, configurations) as unknown as IssuerMetadata['authorizationServer'],
  }
  if (METADATA.size >= METADATA_MAX) METADATA.clear()
  METADATA.set(key, metadata)
  return metadata
}

/**
 * The configuration the request asks for (`credential_configuration_id`, or `credential_identifier`: the token
 * response's identifiers are the configuration ids), when the access token grants it.
 */
function grantedConfiguration(
  grant: AccessGrant,
  configurations: readonly ConfigurationRecord[],
  request: { credentialConfigurationId?: string; credentialIdentifier?: string },
): ConfigurationRecord {
  const id = request.credentialConfigurationId ?? request.credentialIdentifier!
  const configuration = configurations.find((c) => c.configurationId === id)
  if (configuration === undefined) {
    if (request.credentialConfigurationId !== undefined)
      throw new OAuthError('unknown_credential_configuration', 'no such credential configuration')
    throw new OAuthError('unknown_credential_identifier', 'no such credential identifier')
  }
  if (!grant.configurationIds.includes(id))
    throw new OAuthError('invalid_credential_request', 'the access token does not grant this credential configuration')
  return configuration
}

/** An `invalid_proof` refusal with a fresh `c_nonce` to retry with (wallets retry once with it); others as they are. */
async function withNonce(err: unknown, fresh: () => Promise<string>): Promise<unknown> {
  if (!(err instanceof OAuthError) || err.error !== 'invalid_proof') return err
  return new OAuthError(err.error, err.description, err.statusCode, { body: { c_nonce: await fresh() } })
}
