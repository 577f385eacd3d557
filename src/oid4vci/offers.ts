/**
 * Credential Offers (OID4VCI 1.0 §4): the issuing backend makes one (`createCredentialOffer`: configurations and their
 * claims, an optional PIN, expiry), wallets fetch it by reference (`GET /oid4vci/:issuer/offers/:offerId`).
 *
 * What is stored (docs/oid4vci.md): the offer record under the keyed hash of its id (`OneTimeStore.keyed`), and the PIN
 * as a keyed hash over (offer id, PIN). The pre-authorized code is not stored: each fetch of the offer hands out the
 * offer's storage id sealed (`OneTimeStore.seal`, AES-256-GCM under a key derived from the one-time hashing key, itself
 * sealed by the master key) for the tenant's issuer until the offer expires, so the token endpoint finds the offer by
 * opening the code, reading nothing else — and a copy of the database holds no offer id, code or PIN, and nothing to
 * test guesses against without the master key. Wrong PINs are counted on the offer record; at the module's
 * `txCodeAttempts` it is burned. An offer with the authorization code grant carries an `issuer_state`, kept as a
 * one-time value and derived as the keyed hash of the offer id (`issuer-state.ts` binds an authorization request to the
 * offer); either grant redeems the offer once ({@link claimOffer}), and so does the burn.
 */
import { randomBytes, randomInt, timingSafeEqual } from 'node:crypto'
import type { Caller } from '../auth/context.js'
import type { AuditTrail } from '../audit/trail.js'
import { IdentityError, invalid, notFound } from '../errors.js'
import type { OneTimeStore } from '../one-time/index.js'
import { principalOf } from '../did/methods/ethr/index.js'
import { collectionOf, tenantCollections } from '../storage/declaration.js'
import type { StorageAdapter } from '../storage/port.js'
import { assertControlsWallet } from '../wallets/access.js'
import type { CredentialsContext } from '../credentials/context.js'
import { WALLETS } from '../wallets/records.js'
import { ONE_TIME_KINDS } from './grants.js'
import { credentialIssuerOf, requirePublicUrl } from './issuer-url.js'
import type { Oid4vciContext, Oid4vciRuntime } from './module.js'
import type { CreateCredentialOfferInput, CredentialOfferResponse, OfferGrant } from './offer-schemas.js'
import { configurationOf, issuerBySlug, issuerOfTenant, OID4VCI_OFFERS, type IssuerRecord, type OfferRecord } from './records.js'

/** What the offer operations use of the service. */
export type OffersContext = Pick<CredentialsContext, 'callers'> &
  Oid4vciContext & {
    storage: StorageAdapter
    oneTime: OneTimeStore
    audit: Pick<AuditTrail, 'append'>
    now: () => number
    config: { publicUrl?: string }
  }

/** Purposes of the keyed hashes of offers (`OneTimeStore.keyed`). */
const KEYED = {
  offer: 'oid4vci-offer',
  txCode: 'oid4vci-tx-code',
  issuerState: 'oid4vci-issuer-state',
} as const

/** Characters of a `text` PIN: no 0/O, 1/I/L look-alikes. */
const TEXT_PIN = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789'

/** The running issuer, or the 422 of a management operation on a service without the module. */
export function requireModule(oid4vci: Oid4vciRuntime | undefined): Oid4vciRuntime {
  if (!oid4vci) throw invalid('oid4vci: the service has no OID4VCI issuer module (IdentityService.create({ oid4vci: oid4vci() }))')
  return oid4vci
}

/** The storage id of an offer: the keyed hash of its id in its tenant. */
export const offerRecordIdOf = (oneTime: OneTimeStore, tenantId: string, offerId: string): string =>
  oneTime.keyed(KEYED.offer, tenantId, offerId)

/**
 * A grant small enough to ride in its pre-authorized code (the JSON of the configurations and claims at most this many
 * characters): the token request then needs no read of the offer. A larger one stays in the offer record alone.
 */
export const SEALED_GRANT_MAX_CHARS = 1_024

/** What a pre-authorized code carries of an offer without a PIN whose grant is small: the token request reads nothing. */
export interface SealedGrant {
  configurationIds: string[]
  claims: Record<string, Record<string, unknown>>
  expiresAt: number
  updatedAt: number
}

/**
 * A pre-authorized code of an offer: its storage id sealed for the tenant's issuer, good until the offer expires — and,
 * for an offer without a PIN whose configurations and claims are small ({@link SEALED_GRANT_MAX_CHARS}), the grant
 * itself (offers never change but by their claim, so the sealed copy is the record's). Never stored; each fetch of the
 * offer makes a new one, and any of them redeems the offer once.
 */
export function preAuthorizedCodeOf(oneTime: Pick<OneTimeStore, 'seal'>, offer: OfferRecord, now: number): string {
  const grant: SealedGrant = {
    configurationIds: offer.configurationIds,
    claims: offer.claims,
    expiresAt: offer.expiresAt,
    updatedAt: offer.updatedAt,
  }
  const small = offer.txCode === undefined && JSON.stringify([grant.configurationIds, grant.claims]).length <= SEALED_GRANT_MAX_CHARS
  const data = small ? { offer: offer.id, grant } : { offer: offer.id }
  return oneTime.seal(ONE_TIME_KINDS.preAuthorizedCode, [offer.tenantId, offer.issuer], data, offer.expiresAt - now)
}

/**
 * The storage id of the offer a pre-authorized code was sealed for at `tenantId`'s issuer `slug`, while it is live, and
 * the grant it carries (when it does).
 */
export function offerOfPreAuthorizedCode(
  oneTime: Pick<OneTimeStore, 'unseal'>,
  tenantId: string,
  slug: string,
  code: string,
): { id: string; grant?: SealedGrant } | undefined {
  const data = oneTime.unseal(ONE_TIME_KINDS.preAuthorizedCode, [tenantId, slug], code)
  if (typeof data?.offer !== 'string') return undefined
  return { id: data.offer, ...(isSealedGrant(data.grant) && { grant: data.grant }) }
}

function isSealedGrant(value: unknown): value is SealedGrant {
  if (typeof value !== 'object' || value === null) return false
  const grant = value as Partial<SealedGrant>
  return (
    Array.isArray(grant.configurationIds) &&
    typeof grant.claims === 'object' &&
    grant.claims !== null &&
    typeof grant.expiresAt === 'number' &&
    typeof grant.updatedAt === 'number'
  )
}

/** The `issuer_state` of an offer with the authorization code grant: derived from its id like the code, never stored. */
export const issuerStateOf = (oneTime: OneTimeStore, tenantId: string, offerId: string): string =>
  oneTime.keyed(KEYED.issuerState, tenantId, offerId)

/** The grants of an offer (a record without `grants` predates them: the pre-authorized code only). */
export const grantsOf = (offer: Pick<OfferRecord, 'grants'>): OfferGrant[] => offer.grants ?? ['pre-authorized_code']

/** What a claim of an offer sets: its redemption, or its burn after too many wrong PINs. */
export type OfferClaim = Exclude<OfferRecord['state'], 'offered'>

/**
 * Claims a live offer for `state`: its redemption (either grant) or its burn ({@link countWrongTxCode}). The first claim
 * across processes (an atomic count) sets `state` and answers true; any later one — the other grant, a replay, a claim
 * after a burn, a burn after a redemption — answers false and writes nothing.
 */
export async function claimOffer(
  storage: StorageAdapter,
  offer: Pick<OfferRecord, 'id' | 'updatedAt'>,
  state: OfferClaim,
  now: number,
): Promise<boolean> {
  const offers = collectionOf(storage, OID4VCI_OFFERS)
  // One statement: the count and the state it decides, written by the first claim only (`atMost` 1: a later claim
  // writes nothing).
  const claims = await offers.increment(offer.id, 'redemptions', 1, { state, updatedAt: Math.max(now, offer.updatedAt + 1) }, 1)
  return claims === 1
}

/**
 * Counts a wrong PIN against `offer`; at `maxAttempts` the offer is burned — a claim like a redemption
 * ({@link claimOffer}), so whichever comes first wins (a burn after a redemption writes nothing; a redemption after a
 * burn is refused). Answers whether the offer is burned.
 */
export async function countWrongTxCode(
  ctx: Pick<OffersContext, 'storage' | 'now'>,
  offer: Pick<OfferRecord, 'id' | 'updatedAt'>,
  maxAttempts: number,
): Promise<boolean> {
  const wrong = await collectionOf(ctx.storage, OID4VCI_OFFERS).increment(offer.id, 'txCodeFailures', 1)
  if (wrong < maxAttempts) return false
  await claimOffer(ctx.storage, offer, 'burned', ctx.now())
  return true
}

/** The keyed hash of a PIN of an offer. */
const txCodeHashOf = (oneTime: OneTimeStore, tenantId: string, recordId: string, pin: string): string =>
  oneTime.keyed(KEYED.txCode, tenantId, JSON.stringify([recordId, pin]))

/** Whether `pin` is the offer's PIN (constant time over the hashes). */
export function txCodeMatches(oneTime: OneTimeStore, offer: Pick<OfferRecord, 'id' | 'tenantId' | 'txCode'>, pin: string): boolean {
  if (!offer.txCode) return false
  const given = Buffer.from(txCodeHashOf(oneTime, offer.tenantId, offer.id, pin))
  const kept = Buffer.from(offer.txCode.hash)
  return given.length === kept.length && timingSafeEqual(given, kept)
}

/** A PIN of `length` characters, drawn with the platform's CSPRNG. */
function drawPin(length: number, inputMode: 'numeric' | 'text'): string {
  const alphabet = inputMode === 'numeric' ? '0123456789' : TEXT_PIN
  return Array.from({ length }, () => alphabet[randomInt(alphabet.length)]).join('')
}

/** The `openid-credential-offer://` URI of an offer fetched by reference. */
const offerUriOf = (credentialOfferUri: string) =>
  `openid-credential-offer://?credential_offer_uri=${encodeURIComponent(credentialOfferUri)}`

/** An SVG QR code of `text`, by the optional peer `qrcode` (a clear 422 when it is not installed). */
export async function qrSvg(text: string): Promise<string> {
  let qrcode: { toString(text: string, options: { type: 'svg' }): Promise<string> }
  try {
    qrcode = await import('qrcode')
    qrcode = (qrcode as unknown as { default?: typeof qrcode }).default ?? qrcode
  } catch {
    throw invalid('qr: the optional peer dependency qrcode is not installed (npm install qrcode)')
  }
  return qrcode.toString(text, { type: 'svg' })
}

/**
 * Makes a Credential Offer of the caller's tenant: the configurations (of its issuer, each issuing DID controlled by
 * the caller) with their claims, an optional PIN drawn here and returned once, a pre-authorized code live until the
 * offer expires. Audited `credentialOffer.create` (target: the offer's storage id, not its id). Nothing is written
 * before every check passed.
 */
export async function createCredentialOffer(
  ctx: OffersContext,
  caller: Caller,
  input: CreateCredentialOfferInput,
): Promise<CredentialOfferResponse> {
  const publicUrl = requirePublicUrl(ctx.config.publicUrl)
  const oid4vci = requireModule(ctx.oid4vci)
  const issuer = await issuerOfTenant(ctx.storage, caller.tenantId)
  const grants = input.grants ?? ['pre-authorized_code']
  const preAuthorized = grants.includes('pre-authorized_code')
  const authorizationCode = grants.includes('authorization_code')
  if (input.txCode !== undefined && !preAuthorized) throw invalid('txCode: a PIN goes with the pre-authorized_code grant only')
  if (authorizationCode && oid4vci.options.authorize === undefined && oid4vci.options.loginUrl === undefined)
    throw invalid('grants: authorization_code needs a way to authenticate users (the module’s authorize hook or loginUrl)')
  const ids = input.configurations.map((c) => c.id)
  if (new Set(ids).size !== ids.length) throw invalid('configurations: each configuration at most once')
  const claims: Record<string, Record<string, unknown>> = {}
  for (const [index, { id, claims: given }] of input.configurations.entries()) {
    const configuration = issuer && (await configurationOf(ctx.storage, caller.tenantId, id))
    if (!issuer || !configuration) throw notFound(`configurations.${index}.id: no credential configuration ${id} in this tenant`)
    if (configuration.issuer !== issuer.slug) throw invalid(`configurations.${index}.id: ${id} is not of the issuer ${issuer.slug}`)
    await assertControlsIssuer(ctx, caller, configuration.issuingDid, index)
    claims[id] = given
  }
  const spec = input.txCode === true ? {} : input.txCode
  const length = spec?.length ?? 6
  const inputMode = spec?.inputMode ?? 'numeric'

  const now = ctx.now()
  const ttlSeconds = input.expiresInSeconds ?? oid4vci.options.offerTtlSeconds
  const expiresAt = now + ttlSeconds * 1000
  const offerId = randomBytes(32).toString('base64url')
  const id = offerRecordIdOf(ctx.oneTime, caller.tenantId, offerId)
  const pin = spec ? drawPin(length, inputMode) : undefined
  const record: OfferRecord = {
    id,
    tenantId: caller.tenantId,
    issuer: issuer!.slug,
    configurationIds: ids,
    claims,
    grants,
    ...(pin !== undefined && {
      txCode: {
        hash: txCodeHashOf(ctx.oneTime, caller.tenantId, id, pin),
        length,
        inputMode,
        ...(spec?.description !== undefined && { description: spec.description }),
      },
    }),
    expiresAt,
    createdBy: { dids: caller.dids, ...(caller.apiKeyId !== undefined && { apiKeyId: caller.apiKeyId }) },
    state: 'offered',
    createdAt: now,
    updatedAt: now,
  }
  const credentialOfferUri = `${credentialIssuerOf(publicUrl, issuer!.slug)}/offers/${offerId}`
  const offerUri = offerUriOf(credentialOfferUri)
  const qr = await qrSvg(offerUri)
  await ctx.storage.transaction(async (tx) => {
    await collectionOf(tx, OID4VCI_OFFERS).insert(record)
    await ctx.audit.append(tx, caller, [{ action: 'credentialOffer.create', target: { type: 'credentialOffer', id } }])
  })
  // The issuer_state lives as long as the offer; written after it, so it never names a missing offer.
  if (authorizationCode)
    await ctx.oneTime.issue(caller.tenantId, ONE_TIME_KINDS.issuerState, issuerStateOf(ctx.oneTime, caller.tenantId, offerId), {
      ttlMs: expiresAt - now,
      data: { offer: id },
    })
  if (++offersMade % SWEEP_OFFERS_EVERY === 0) await sweepOffers(ctx, now).catch(() => undefined)
  return {
    offerId,
    offerUri,
    credentialOfferUri,
    qr,
    expiresAt: new Date(expiresAt).toISOString(),
    ...(pin !== undefined && { txCode: pin }),
  }
}

/** How long an offer's record outlives its expiry (its state, for a late look), ms: a day. */
export const OFFER_RETENTION_MS = 86_400_000
/** Offers of this process between two sweeps. */
const SWEEP_OFFERS_EVERY = 32
let offersMade = 0

/**
 * Deletes the offers of every tenant that expired more than {@link OFFER_RETENTION_MS} before `now`; returns how many.
 * One delete served by the `expiresAt` index, run every few offers of a process (an expired offer's code is expired
 * too: nothing redeems it).
 */
export function sweepOffers(ctx: Pick<OffersContext, 'storage'>, now: number): Promise<number> {
  return collectionOf(ctx.storage, OID4VCI_OFFERS).deleteMany({ field: 'expiresAt', op: 'lte', value: now - OFFER_RETENTION_MS })
}

/** Control of a configuration's issuing DID (403), which must still be a wallet of the tenant (422 NOT_FOUND). */
async function assertControlsIssuer(ctx: OffersContext, caller: Caller, issuingDid: string, index: number): Promise<void> {
  const { wallets } = tenantCollections(ctx.storage, caller.tenantId, { wallets: WALLETS })
  const wallet = await wallets.findOne({ field: 'did', op: 'eq', value: principalOf(issuingDid) })
  if (!wallet) throw notFound(`configurations.${index}.id: its issuing DID ${issuingDid} is no longer a wallet of this tenant`)
  await assertControlsWallet(ctx, caller, wallet)
}

/** The issuer a wallet-facing request names, with the tenant it is of; 404 without `publicUrl`, the module or the slug. */
export async function walletFacingIssuer(
  ctx: Pick<OffersContext, 'storage' | 'config' | 'oid4vci'>,
  slug: string,
): Promise<{ issuer: IssuerRecord; credentialIssuer: string; oid4vci: Oid4vciRuntime }> {
  const { publicUrl } = ctx.config
  const issuer = publicUrl === undefined || !ctx.oid4vci ? undefined : await issuerBySlug(ctx.storage, slug)
  if (!issuer || publicUrl === undefined || !ctx.oid4vci) throw new IdentityError('NOT_FOUND', `no Credential Issuer ${slug}`, 404)
  return { issuer, credentialIssuer: credentialIssuerOf(publicUrl, slug), oid4vci: ctx.oid4vci }
}

/** A live offer of the tenant by its storage id, or undefined (expired, burned, redeemed or unknown). */
export async function liveOffer(
  ctx: Pick<OffersContext, 'storage' | 'now'>,
  tenantId: string,
  id: string,
): Promise<OfferRecord | undefined> {
  const offer = await collectionOf(ctx.storage, OID4VCI_OFFERS).get(id)
  if (!offer || offer.tenantId !== tenantId || offer.state !== 'offered' || offer.expiresAt <= ctx.now()) return undefined
  return offer
}

/** GET a Credential Offer by reference (OID4VCI 1.0 §4.1.3): the offer JSON, with its pre-authorized code. */
export async function getCredentialOffer(
  ctx: OffersContext,
  _caller: Caller,
  input: { issuer: string; offerId: string },
): Promise<{ credential_issuer: string; credential_configuration_ids: string[]; grants: Record<string, Record<string, unknown>> }> {
  const { issuer, credentialIssuer } = await walletFacingIssuer(ctx, input.issuer)
  const offer = await liveOffer(ctx, issuer.tenantId, offerRecordIdOf(ctx.oneTime, issuer.tenantId, input.offerId))
  if (!offer || offer.issuer !== issuer.slug) throw new IdentityError('NOT_FOUND', 'no such credential offer, or it expired', 404)
  const txCode = offer.txCode && {
    length: offer.txCode.length,
    input_mode: offer.txCode.inputMode,
    ...(offer.txCode.description !== undefined && { description: offer.txCode.description }),
  }
  const grants = grantsOf(offer)
  return {
    credential_issuer: credentialIssuer,
    credential_configuration_ids: offer.configurationIds,
    grants: {
      ...(grants.includes('pre-authorized_code') && {
        'urn:ietf:params:oauth:grant-type:pre-authorized_code': {
          'pre-authorized_code': preAuthorizedCodeOf(ctx.oneTime, offer, ctx.now()),
          ...(txCode && { tx_code: txCode }),
        },
      }),
      ...(grants.includes('authorization_code') && {
        authorization_code: { issuer_state: issuerStateOf(ctx.oneTime, issuer.tenantId, input.offerId) },
      }),
    },
  }
}
