/**
 * Deferred issuance (OID4VCI 1.0 §8.3, §9): a configuration marked `deferred` answers a credential request with 202
 * `{ transaction_id, interval }` once the key proofs are verified and their nonces taken; the issuing backend lists
 * the pending issuances (`getDeferredCredentials`) and completes each (`completeDeferredCredential`: signed then by
 * the configuration's issuing DID through the issuance code path, or refused); the wallet polls the deferred
 * credential endpoint with its `transaction_id` and gets the credentials once.
 *
 * What is stored: a record under the keyed hash of the transaction id (never the id itself), the public holder keys,
 * the grant's claims, a keyed hash of the grant (the access-token binding), a reference for the backend. The backend
 * never sees the wallet's transaction id, and the wallet's transaction id is no reference at the management
 * operations.
 */
import { randomBytes } from 'node:crypto'
import type { Caller } from '../auth/context.js'
import { CREDENTIALS } from '../credentials/records.js'
import { storedCredential } from '../credentials/stored.js'
import { principalOf } from '../did/methods/ethr/index.js'
import { conflict, invalid, notFound } from '../errors.js'
import type { OneTimeStore } from '../one-time/index.js'
import { collectionOf, tenantCollectionOf, tenantCollections } from '../storage/declaration.js'
import type { Where } from '../storage/port.js'
import { assertControlsWallet } from '../wallets/access.js'
import { WALLETS } from '../wallets/records.js'
import type { CredentialsContext } from '../credentials/context.js'
import { running, type CredentialEndpointContext } from './credential-endpoint.js'
import type {
  CompleteDeferredCredentialInput,
  CompleteDeferredCredentialResponse,
  DeferredCredential,
  DeferredCredentialRequestInput,
  DeferredCredentialsResponse,
  GetDeferredCredentialsInput,
} from './deferred-schemas.js'
import { grantOf, type AccessGrant } from './grants.js'
import { issueCredentials } from './issuance.js'
import { requireModule } from './offers.js'
import { OAuthError } from './oauth-error.js'
import type { HolderKey } from './protocol/index.js'
import { configurationOf, OID4VCI_DEFERRED, type ConfigurationRecord, type DeferredRecord } from './records.js'
import type { CredentialResponseBody } from './schemas.js'

/** What the deferred operations use of the service. */
export type DeferredContext = CredentialEndpointContext & Pick<CredentialsContext, 'callers'>

/** Purpose of the keyed hash naming a deferred issuance by its transaction id (`OneTimeStore.keyed`). */
const KEYED_TRANSACTION = 'oid4vci-deferred'
/** Purpose of the keyed hash of a grant (the access-token binding). */
const KEYED_GRANT = 'oid4vci-deferred-grant'

/** The storage id of a deferred issuance: the keyed hash of its transaction id in its tenant. */
const recordIdOf = (oneTime: OneTimeStore, tenantId: string, transactionId: string): string =>
  oneTime.keyed(KEYED_TRANSACTION, tenantId, transactionId)

/**
 * What an access token must carry to fetch a deferred issuance: the same issuer, offer, authenticated subject and
 * DPoP key as the token of the request that was deferred (a keyed hash of them).
 */
const bindingOf = (oneTime: OneTimeStore, tenantId: string, grant: AccessGrant): string =>
  oneTime.keyed(KEYED_GRANT, tenantId, JSON.stringify([grant.issuer, grant.offerId ?? null, grant.subject ?? null, grant.jkt ?? null]))

/**
 * Defers a verified credential request (its nonces taken): stores the pending issuance, audits `credential.defer`
 * (one act per holder key) and answers the wallet's `transaction_id` and `interval` (sent with 202).
 */
export async function deferIssuance(
  ctx: CredentialEndpointContext,
  caller: Caller,
  request: { configuration: ConfigurationRecord; grant: AccessGrant; keys: readonly HolderKey[] },
): Promise<{ transactionId: string; interval: number }> {
  const { oid4vci } = running(ctx)
  const { configuration, grant, keys } = request
  const transactionId = oid4vci.lib.randomToken()
  const now = ctx.now()
  const record: DeferredRecord = {
    id: recordIdOf(ctx.oneTime, caller.tenantId, transactionId),
    tenantId: caller.tenantId,
    issuer: grant.issuer,
    reference: randomBytes(18).toString('base64url'),
    configurationId: configuration.configurationId,
    holderKeys: keys.map(({ jwk, jkt, did, kid }) => ({
      jwk,
      jkt,
      ...(did !== undefined && { did }),
      ...(kid !== undefined && { kid }),
    })),
    claims: grant.claims[configuration.configurationId] ?? {},
    ...(grant.offerId !== undefined && { offerId: grant.offerId }),
    ...(grant.subject !== undefined && { subject: grant.subject }),
    binding: bindingOf(ctx.oneTime, caller.tenantId, grant),
    state: 'pending',
    expiresAt: now + oid4vci.options.deferredTtlSeconds * 1000,
    createdAt: now,
    updatedAt: now,
  }
  // The request is the issuing DID's to answer; the deferral is recorded as the issuer's act, like an issuance.
  const actor = { ...caller, dids: [principalOf(configuration.issuingDid)] }
  await ctx.storage.transaction(async (tx) => {
    await collectionOf(tx, OID4VCI_DEFERRED).insert(record)
    await ctx.audit.append(
      tx,
      actor,
      keys.map((key) => ({
        action: 'credential.defer' as const,
        target: {
          type: 'deferredCredential',
          id: record.reference,
          holderKey: key.jkt,
          ...(grant.offerId !== undefined && { offer: grant.offerId }),
        },
      })),
    )
  })
  return { transactionId, interval: oid4vci.options.deferredIntervalSeconds }
}

/** GET `/oid4vci/deferred`: the tenant's deferred issuances (pending by default), oldest first. */
export async function getDeferredCredentials(
  ctx: DeferredContext,
  caller: Caller,
  input: GetDeferredCredentialsInput,
): Promise<DeferredCredentialsResponse> {
  const clauses: Where[] = [{ field: 'state', op: 'eq', value: input.state ?? 'pending' }]
  if (input.configurationId !== undefined) clauses.push({ field: 'configurationId', op: 'eq', value: input.configurationId })
  const page = await tenantCollectionOf(ctx.storage, OID4VCI_DEFERRED, caller.tenantId).find(
    { and: clauses },
    { limit: input.limit ?? 100 },
  )
  const now = ctx.now()
  return { deferred: page.items.filter((r) => r.expiresAt > now).map(listed) }
}

/**
 * POST `/oid4vci/deferred/:reference`: the issuing backend completes a pending issuance — signs the credentials now
 * with the configuration's issuing DID (the grant's claims, or those given), stored and audited `credential.issue`
 * with the issuance marked ready in one transaction — or refuses it (audited `credential.refuse`). The caller proves
 * control of the issuing DID. Nothing is written before every check passed.
 */
export async function completeDeferredCredential(
  ctx: DeferredContext,
  caller: Caller,
  input: CompleteDeferredCredentialInput,
): Promise<CompleteDeferredCredentialResponse> {
  requireModule(ctx.oid4vci)
  const deferred = tenantCollectionOf(ctx.storage, OID4VCI_DEFERRED, caller.tenantId)
  const record = await deferred.findOne({ field: 'reference', op: 'eq', value: input.reference })
  if (!record || record.expiresAt <= ctx.now()) throw notFound(`reference: no deferred issuance ${input.reference} in this tenant`)
  const configuration = await configurationOf(ctx.storage, caller.tenantId, record.configurationId)
  if (!configuration) throw notFound(`reference: its configuration ${record.configurationId} no longer exists`)
  const { wallets } = tenantCollections(ctx.storage, caller.tenantId, { wallets: WALLETS })
  const wallet = await wallets.findOne({ field: 'did', op: 'eq', value: principalOf(configuration.issuingDid) })
  if (!wallet) throw notFound(`reference: the issuing DID ${configuration.issuingDid} is no longer a wallet of this tenant`)
  await assertControlsWallet(ctx, caller, wallet)
  if (record.state !== 'pending') throw conflict(`reference: the deferred issuance is ${record.state} already`)

  // One completion per issuance, across processes: the first to count 1 completes it.
  if ((await collectionOf(ctx.storage, OID4VCI_DEFERRED).increment(record.id, 'completions')) !== 1)
    throw conflict('reference: the deferred issuance is being completed already')
  try {
    if ('refuse' in input) {
      await ctx.storage.transaction(async (tx) => {
        await collectionOf(tx, OID4VCI_DEFERRED).update(record.id, { state: 'refused', reason: input.refuse, updatedAt: ctx.now() })
        await ctx.audit.append(tx, caller, [
          {
            action: 'credential.refuse',
            target: { type: 'deferredCredential', id: record.reference, ...(record.offerId !== undefined && { offer: record.offerId }) },
          },
        ])
      })
      return { reference: record.reference, state: 'refused', credentialIds: [] }
    }
    const issued = await issueCredentials(ctx, caller, {
      configuration,
      claims: input.claims ?? record.claims,
      keys: record.holderKeys,
      ...(record.offerId !== undefined && { offerId: record.offerId }),
      within: async (tx, credentialIds) => {
        await collectionOf(tx, OID4VCI_DEFERRED).update(record.id, { state: 'ready', credentialIds, updatedAt: ctx.now() })
      },
    })
    return { reference: record.reference, state: 'ready', credentialIds: issued.map((c) => c.recordId) }
  } catch (err) {
    await collectionOf(ctx.storage, OID4VCI_DEFERRED).increment(record.id, 'completions', -1)
    // The issuance code speaks OAuth to wallets; the backend gets the service's errors.
    if (err instanceof OAuthError) throw invalid(err.description)
    throw err
  }
}

/**
 * POST `/oid4vci/:issuer/deferred-credential` (OID4VCI 1.0 §9): pending → 202 `{ transaction_id, interval }`; ready →
 * the credentials, once (the transaction is done then); refused → `credential_request_denied`;
 * unknown, expired, done, of another issuer or of another grant → `invalid_transaction_id`. Nothing is written but
 * the single fetch.
 */
export async function requestDeferredCredential(
  ctx: CredentialEndpointContext,
  caller: Caller,
  input: DeferredCredentialRequestInput,
): Promise<CredentialResponseBody> {
  const { oid4vci } = running(ctx)
  const grant = grantOf(caller)
  const { issuer: slug, ...body } = input
  if (grant.issuer !== slug) throw new OAuthError('invalid_token', 'the access token is not for this issuer', 401)
  const { transactionId } = oid4vci.lib.parseDeferredCredentialRequest(body)
  const deferred = collectionOf(ctx.storage, OID4VCI_DEFERRED)
  const record = await deferred.get(recordIdOf(ctx.oneTime, caller.tenantId, transactionId))
  if (
    !record ||
    record.tenantId !== caller.tenantId ||
    record.issuer !== slug ||
    record.binding !== bindingOf(ctx.oneTime, caller.tenantId, grant) ||
    record.expiresAt <= ctx.now() ||
    record.state === 'issued'
  )
    throw new OAuthError('invalid_transaction_id', 'the transaction_id is unknown, expired or done')
  if (record.state === 'refused') throw new OAuthError('credential_request_denied', 'the issuer will not issue this credential')
  if (record.state === 'pending')
    return oid4vci.lib.deferredCredentialResponse({ transactionId, interval: oid4vci.options.deferredIntervalSeconds }).body

  // Ready: the credentials go to one fetch only.
  if ((await deferred.increment(record.id, 'fetches')) !== 1)
    throw new OAuthError('invalid_transaction_id', 'the transaction_id is unknown, expired or done')
  const ids = record.credentialIds ?? []
  const credentials = []
  for (const id of ids) {
    const stored = await tenantCollectionOf(ctx.storage, CREDENTIALS, caller.tenantId).get(id)
    if (!stored) throw new OAuthError('credential_request_denied', 'the issued credential was deleted by the issuer')
    credentials.push(storedCredential(ctx.custody, stored).encoded)
  }
  await deferred.update(record.id, { state: 'issued', updatedAt: ctx.now() })
  // No notification_id: @openid4vc/openid4vci 0.4.6 (credo's wallets) refuses a deferred response carrying one with
  // credentials (its schema check is inverted), and 1.0 §9.2 makes it optional.
  return oid4vci.lib.deferredCredentialResponse({ credentials }).body
}

/** A deferred issuance as the backend lists it. */
function listed(r: DeferredRecord): DeferredCredential {
  return {
    reference: r.reference,
    configurationId: r.configurationId,
    state: r.state,
    ...(r.offerId !== undefined && { offerId: r.offerId }),
    ...(r.subject !== undefined && { subject: r.subject }),
    holderKeys: r.holderKeys.map((k) => k.jkt),
    claims: r.claims,
    createdAt: new Date(r.createdAt).toISOString(),
    expiresAt: new Date(r.expiresAt).toISOString(),
  }
}
