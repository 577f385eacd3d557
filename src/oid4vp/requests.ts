/**
 * Presentation requests (OID4VP 1.0 §5): a tenant's backend asks wallets for credentials (`createPresentationRequest`:
 * a DCQL query, the verifier identity, the response mode, optional transaction data, expiry); the service makes the
 * nonce and `state`, signs the Request Object once, and answers the links a wallet opens.
 *
 * What is stored (docs/oid4vp.md): one record under the keyed hash of the request id (the id itself is never stored),
 * holding the signed Request Object, and — for `direct_post.jwt` — the ephemeral private key sealed by the master
 * key. The `oid4vp-answer` one-time value lets exactly one wallet response win.
 */
import type { Caller } from '../auth/context.js'
import { forbidden, invalid, notFound } from '../errors.js'
import { normalizeDid } from '../did/methods/ethr/index.js'
import { qrSvg } from '../oid4vci/offers.js'
import type { VpContext } from './context.js'
import { collectionOf } from '../storage/declaration.js'
import { assertControlsWallet } from '../wallets/access.js'
import { sealVpKey } from './ephemeral-key.js'
import type { Oid4vpRuntime } from './module.js'
import { OID4VP_ONE_TIME, OID4VP_REQUESTS, type ClientIdPrefix, type PresentationRequestRecord } from './records.js'
import { baseOf, didSigner, requestUriOf, responseUriOf, signRequestObject, tenantWallet, VERIFIED_FORMATS } from './request-signing.js'
import { sweepPresentationRequests } from './results.js'
import type { CreatePresentationRequestInput, PresentationRequestResponse } from './schemas.js'
import { x509ClientIdOf, x5cOf } from './x509.js'

/** What the request operations use of the service. */
export type RequestsContext = Pick<
  VpContext,
  'audit' | 'callers' | 'config' | 'custody' | 'now' | 'oid4vp' | 'oneTime' | 'registries' | 'resolvers' | 'signers' | 'storage'
>

/** The purpose of the keyed hash naming a request's record (`OneTimeStore.keyed`, global scope). */
export const REQUEST_KEYED = 'oid4vp-request'

/** The storage id of request `requestId`'s record. */
export const requestRecordIdOf = (oneTime: RequestsContext['oneTime'], requestId: string): string =>
  oneTime.keyed(REQUEST_KEYED, '', requestId)

/** The running verifier, or the 422 of a management operation on a service without the module. */
export function requireVpModule(oid4vp: Oid4vpRuntime | undefined): Oid4vpRuntime {
  if (!oid4vp) throw invalid('oid4vp: the service has no OID4VP verifier module (IdentityService.create({ oid4vp: oid4vp() }))')
  return oid4vp
}

/** `publicUrl` (https: response and request URIs are made of it), or the 422 naming it. */
export function requireVpPublicUrl(publicUrl: string | undefined): string {
  if (publicUrl === undefined)
    throw invalid('publicUrl: the service has no publicUrl, which request and response URIs are made of (set `publicUrl`)')
  if (!publicUrl.startsWith('https://')) throw invalid('publicUrl: OID4VP request and response URIs must be https URLs')
  return publicUrl
}

/** Creations between two lazy sweeps of deleted-due requests, per process. */
const SWEEP_EVERY = 32
let creations = 0

/**
 * Makes a presentation request of the caller's tenant. Every check (the query, the identity and its control, the
 * transaction data, the expiry) runs before anything is written; audited `presentationRequest.create` (target: the
 * record's id, never the request id).
 */
export async function createPresentationRequest(
  ctx: RequestsContext,
  caller: Caller,
  input: CreatePresentationRequestInput,
): Promise<PresentationRequestResponse> {
  const oid4vp = requireVpModule(ctx.oid4vp)
  const publicUrl = requireVpPublicUrl(ctx.config.publicUrl)
  const dcqlQuery = parseQuery(oid4vp, input.dcqlQuery)
  const transactionData = input.transactionData && encodeTransactionData(input.transactionData, dcqlQuery)
  const ttlSeconds = input.expiresInSeconds ?? oid4vp.options.requestTtlSeconds
  if (ttlSeconds > oid4vp.options.requestTtlSeconds)
    throw invalid(`expiresInSeconds: at most the module’s requestTtlSeconds (${oid4vp.options.requestTtlSeconds})`)

  const requestId = oid4vp.lib.vpRandomValue()
  const id = requestRecordIdOf(ctx.oneTime, requestId)
  const identity = await identityOf(ctx, caller, oid4vp, input.clientId, responseUriOf(publicUrl, requestId))
  const now = ctx.now()
  const expiresAt = now + ttlSeconds * 1000
  const responseMode = input.responseMode ?? 'direct_post'
  const ephemeral = responseMode === 'direct_post.jwt' ? await oid4vp.lib.generateVpResponseKey() : undefined
  const record: PresentationRequestRecord = {
    id,
    tenantId: caller.tenantId,
    clientId: identity.clientId,
    clientIdPrefix: input.clientId.prefix,
    ...(identity.kid !== undefined && { signingKid: identity.kid }),
    dcqlQuery,
    responseMode,
    nonce: oid4vp.lib.vpRandomValue(),
    state: oid4vp.lib.vpRandomValue(),
    ...(transactionData && { transactionData }),
    ...(input.redirectUri !== undefined && { redirectUri: input.redirectUri }),
    ...(ephemeral && {
      encryption: {
        publicJwk: ephemeral.publicJwk,
        sealedPrivateJwk: sealVpKey(ctx, { tenantId: caller.tenantId, id }, ephemeral.privateJwk),
        enc: input.enc ?? ['A128GCM', 'A256GCM'],
      },
    }),
    requestObject: '',
    status: 'pending',
    createdBy: { dids: caller.dids, ...(caller.apiKeyId !== undefined && { apiKeyId: caller.apiKeyId }) },
    createdAt: now,
    expiresAt,
    deleteAt: now + oid4vp.options.resultTtlSeconds * 1000,
    updatedAt: now,
  }
  record.requestObject = await signRequestObject(ctx, oid4vp, publicUrl, record, requestId, { now })
  const requestUri = requestUriOf(publicUrl, requestId)
  const query = new URLSearchParams({ client_id: record.clientId, request_uri: requestUri, request_uri_method: 'post' }).toString()
  const uri = `openid4vp://?${query}`
  const qr = await qrSvg(uri)

  // The record, its audit record and its answer (the one-time value the first response takes): all of it, or none.
  await ctx.storage.transaction(async (tx) => {
    await collectionOf(tx, OID4VP_REQUESTS).insert(record)
    await ctx.audit.append(tx, caller, [{ action: 'presentationRequest.create', target: { type: 'presentationRequest', id: requestId } }])
    await ctx.oneTime.within(tx).issue(caller.tenantId, OID4VP_ONE_TIME.answer, requestId, { ttlMs: expiresAt - now })
  })
  if (++creations % SWEEP_EVERY === 0) await sweepPresentationRequests(ctx, now).catch(() => undefined)
  return {
    id: requestId,
    requestUri,
    authorizationRequest: { uri, https: `${baseOf(publicUrl)}/oid4vp/authorize?${query}` },
    qr,
    expiresAt: new Date(expiresAt).toISOString(),
  }
}

/** The query as `dcql` validates it, of formats the verifier verifies; 422 naming the problem. */
function parseQuery(oid4vp: Oid4vpRuntime, given: unknown): Record<string, unknown> {
  const read = oid4vp.lib.parseVpDcqlQuery(given)
  if (!read.ok) throw invalid(`dcqlQuery: ${read.error.replace(/^dcql_query: /, '')}`)
  const parsed = read.query as unknown as Record<string, unknown>
  for (const [index, credential] of (parsed.credentials as Array<{ format: string; trusted_authorities?: unknown }>).entries()) {
    if (credential.trusted_authorities !== undefined)
      throw invalid(`dcqlQuery.credentials.${index}.trusted_authorities: not checked here (issuers are identified by DIDs)`)
    if (!VERIFIED_FORMATS.includes(credential.format))
      throw invalid(`dcqlQuery.credentials.${index}.format: ${credential.format} is not verified here (${VERIFIED_FORMATS.join(', ')})`)
  }
  return parsed
}

/** `transaction_data` entries as sent (base64url JSON), each naming credential queries of the query. */
function encodeTransactionData(entries: ReadonlyArray<Record<string, unknown>>, query: Record<string, unknown>): string[] {
  const ids = new Set((query.credentials as Array<{ id: string }>).map((c) => c.id))
  return entries.map((entry, index) => {
    const unknown = (entry.credential_ids as string[]).find((id) => !ids.has(id))
    if (unknown !== undefined) throw invalid(`transactionData.${index}.credential_ids: ${unknown} is no credential query of dcqlQuery`)
    return Buffer.from(JSON.stringify(entry)).toString('base64url')
  })
}

/**
 * The client identifier of the input's prefix: for a DID, one of the tenant's wallets the caller controls (422
 * NOT_FOUND otherwise, 403 without control) whose key the service holds; for x509 the module's chain (422 without it).
 */
async function identityOf(
  ctx: RequestsContext,
  caller: Caller,
  oid4vp: Oid4vpRuntime,
  clientId: CreatePresentationRequestInput['clientId'],
  responseUri: string,
): Promise<{ clientId: string; kid?: string }> {
  const prefix: ClientIdPrefix = clientId.prefix
  if (clientId.prefix === 'decentralized_identifier') {
    const did = normalizeDid(clientId.did)
    const wallet = await tenantWallet(ctx, caller.tenantId, did)
    if (!wallet) throw notFound(`clientId.did: ${clientId.did} is no wallet of this tenant`)
    await assertControlsWallet(ctx, caller, wallet)
    // The signer is made again when signing; here only its kid, and whether the service can sign as the DID.
    const signer = await didSigner(ctx, wallet, did)
    return { clientId: `decentralized_identifier:${did}`, kid: signer.kid }
  }
  if (prefix === 'redirect_uri') return { clientId: `redirect_uri:${responseUri}` }
  const x509 = oid4vp.options.x509
  if (!x509) throw invalid(`clientId.prefix: ${prefix} needs the module’s x509 option (a certificate chain and its key)`)
  // The operator's certificate names the operator: only the tenants the option lists may ask under it.
  if (x509.tenants !== undefined && !x509.tenants.includes(caller.tenantId))
    throw forbidden(`clientId.prefix: ${prefix} is the operator’s certificate, which this tenant may not use (oid4vp x509.tenants)`)
  if (!oid4vp.lib.vpAlgOfJwk(x509.privateKeyJwk)) throw invalid('oid4vp x509.privateKeyJwk: a P-256 or Ed25519 private JWK')
  return { clientId: x509ClientIdOf(prefix as 'x509_san_dns' | 'x509_hash', x5cOf(x509), new URL(responseUri).hostname) }
}
