/**
 * The issuer's `notification_id`s are sealed, not stored: the credential endpoint hands out what the id stands for —
 * the issuer, the configuration, the credential record ids and the offer — encrypted and authenticated like an access
 * token (`OneTimeStore.seal`, AES-256-GCM, purpose `notification`), bound to the tenant and the issuer slug, good for
 * {@link NOTIFICATION_TTL_MS}. The notification endpoint opens it with a computation, reading nothing; a forged,
 * altered, expired, another tenant's or another issuer's id opens to nothing: `invalid_notification_id`.
 */
import type { OneTimeStore } from '../one-time/index.js'
import { ONE_TIME_KINDS } from './grants.js'

/** How long a `notification_id` is good for: a wallet may report a deletion long after the issuance. */
export const NOTIFICATION_TTL_MS = 30 * 24 * 3600 * 1000

/** What a `notification_id` stands for (no secret). */
export interface NotificationData {
  issuer: string
  configurationId: string
  credentials: string[]
  offerId?: string
}

/** The sealed `notification_id` of `data` for `tenantId`'s issuer `data.issuer`. Writes nothing. */
export function sealNotificationId(oneTime: Pick<OneTimeStore, 'seal'>, tenantId: string, data: NotificationData): string {
  return oneTime.seal(ONE_TIME_KINDS.notification, [tenantId, data.issuer], { ...data }, NOTIFICATION_TTL_MS)
}

/** What a `notification_id` sealed for `tenantId`'s issuer `slug` stands for while it is live; undefined otherwise. */
export function openNotificationId(
  oneTime: Pick<OneTimeStore, 'unseal'>,
  tenantId: string,
  slug: string,
  id: string,
): NotificationData | undefined {
  const data = oneTime.unseal(ONE_TIME_KINDS.notification, [tenantId, slug], id) as NotificationData | undefined
  return data?.issuer === slug && Array.isArray(data.credentials) ? data : undefined
}
