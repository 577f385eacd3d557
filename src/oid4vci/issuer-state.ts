/**
 * `issuer_state` (OID4VCI 1.0 §4.1.1, §5.1.3): an offer made with the authorization code grant carries one, derived
 * from the offer id like its pre-authorized code and stored only as a one-time value (keyed hash, single use, expiring
 * with the offer). A pushed authorization request carrying it is bound to that offer: the flow gets the offer's
 * configurations and claims, and the offer is redeemed — by that request alone, and not by its pre-authorized code
 * afterwards (nor the other way round: {@link claimOffer}). An unknown, expired, replayed or other issuer's (so other
 * tenant's) `issuer_state` is `invalid_request`, with nothing written.
 */
import type { OneTimeSeen, OneTimeStore } from '../one-time/index.js'
import type { StorageAdapter } from '../storage/port.js'
import { ONE_TIME_KINDS } from './grants.js'
import { OAuthError } from './oauth-error.js'
import { claimOffer, liveOffer } from './offers.js'
import type { OfferRecord } from './records.js'

/** What the binding reads and writes. */
export interface IssuerStateContext {
  storage: StorageAdapter
  oneTime: OneTimeStore
  now?: () => number
}

/** An offer an authorization request's `issuer_state` names, found live and not yet redeemed. */
export interface BoundOffer {
  issuerState: string
  offer: OfferRecord
  seen: OneTimeSeen
}

/** What a pushed request keeps of its offer (the data of its one-time values: no secret). */
export interface OfferBinding {
  /** The offer's storage id (audit, the access token's grant). */
  id: string
  configurationIds: string[]
  claims: Record<string, Record<string, unknown>>
}

const unknownState = () => new OAuthError('invalid_request', 'issuer_state is unknown, used or expired')

/**
 * The live offer of the tenant's issuer `slug` that `issuerState` names; the configurations asked for must be among
 * the offer's. Reads only. Refuses `invalid_request`.
 */
export async function offerOfIssuerState(
  ctx: IssuerStateContext,
  tenantId: string,
  slug: string,
  issuerState: string,
  requested: readonly string[],
): Promise<BoundOffer> {
  const seen = await ctx.oneTime.look(tenantId, ONE_TIME_KINDS.issuerState, issuerState)
  const id = seen?.data.offer
  const offer = typeof id === 'string' ? await liveOffer({ storage: ctx.storage, now: ctx.now ?? Date.now }, tenantId, id) : undefined
  if (!seen || !offer || offer.issuer !== slug) throw unknownState()
  if (requested.some((configurationId) => !offer.configurationIds.includes(configurationId)))
    throw new OAuthError('invalid_request', 'the request asks for a credential configuration its offer (issuer_state) does not name')
  return { issuerState, offer, seen }
}

/**
 * Redeems the bound offer inside the caller's transaction `tx` (`oneTime` within it): the `issuer_state` consumed once
 * and the offer claimed once across processes, or `invalid_request` (the transaction then writes nothing).
 */
export async function redeemIssuerState(
  tx: StorageAdapter,
  oneTime: OneTimeStore,
  tenantId: string,
  bound: BoundOffer,
  now: number,
): Promise<OfferBinding> {
  if ((await oneTime.consume(tenantId, ONE_TIME_KINDS.issuerState, bound.issuerState, bound.seen)) === undefined) throw unknownState()
  if (!(await claimOffer(tx, bound.offer, 'redeemed', now))) throw unknownState()
  return { id: bound.offer.id, configurationIds: bound.offer.configurationIds, claims: bound.offer.claims }
}
