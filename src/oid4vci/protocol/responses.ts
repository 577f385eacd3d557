/**
 * The bodies the issuer answers wallets with, made by the library's response builders (which validate them), and the
 * small requests of the deferred and notification endpoints.
 */
import { Openid4vciIssuer } from '@openid4vc/openid4vci'
import { z } from 'zod'
import { OAuthError } from '../oauth-error.js'
import { serverCallbacks } from './callbacks.js'
import type { CredentialRequest } from './credential-request.js'
import { parsing } from './request.js'

const issuer = new Openid4vciIssuer({ callbacks: serverCallbacks() })

/** The nonce endpoint's body (OID4VCI 1.0 §7.2): `{ c_nonce }`. Answer it with `Cache-Control: no-store`. */
export function nonceResponse(cNonce: string): Record<string, unknown> {
  return issuer.createNonceResponse({ cNonce })
}

/** A credential, as issued: a compact string (SD-JWT VC, VC-JWT) or a JSON object (Data Integrity). */
export type IssuedCredential = string | Record<string, unknown>

/**
 * The credential response (OID4VCI 1.0 §8.3): `credentials: [{ credential }]` (one per holder key) and
 * `notification_id`; or, for deferred issuance, `transaction_id` and `interval` (status 202).
 */
export function credentialResponse(
  request: CredentialRequest,
  result: { credentials: IssuedCredential[]; notificationId?: string } | { transactionId: string; interval: number },
): { status: 200 | 202; body: Record<string, unknown> } {
  const credentialRequest = { credentialRequest: request.body, proofs: { jwt: request.proofJwts } } as Parameters<
    Openid4vciIssuer['createCredentialResponse']
  >[0]['credentialRequest']
  if ('transactionId' in result) {
    return {
      status: 202,
      body: issuer.createCredentialResponse({ credentialRequest, transactionId: result.transactionId, interval: result.interval }),
    }
  }
  const credentials = result.credentials.map((credential) => ({ credential }))
  return { status: 200, body: issuer.createCredentialResponse({ credentialRequest, credentials, notificationId: result.notificationId }) }
}

/** The deferred credential request's transaction id (OID4VCI 1.0 §9.1); refuses `invalid_request`. */
export function parseDeferredCredentialRequest(body: Record<string, unknown>): { transactionId: string } {
  const parsed = parsing('invalid_request', () => issuer.parseDeferredCredentialRequest({ deferredCredentialRequest: body }))
  return { transactionId: parsed.deferredCredentialRequest.transaction_id }
}

/** The deferred credential response: the credentials when ready, else `transaction_id` and `interval` again (202). */
export function deferredCredentialResponse(
  result: { credentials: IssuedCredential[]; notificationId?: string } | { transactionId: string; interval: number },
): { status: 200 | 202; body: Record<string, unknown> } {
  if ('transactionId' in result) {
    return {
      status: 202,
      body: issuer.createDeferredCredentialResponse({ transactionId: result.transactionId, interval: result.interval }),
    }
  }
  const credentials = result.credentials.map((credential) => ({ credential }))
  return { status: 200, body: issuer.createDeferredCredentialResponse({ credentials, notificationId: result.notificationId }) }
}

/** The events of the notification endpoint (OID4VCI 1.0 §11). */
export const NOTIFICATION_EVENTS = ['credential_accepted', 'credential_failure', 'credential_deleted'] as const

const notificationRequest = z.object({
  notification_id: z.string().min(1).max(512),
  event: z.enum(NOTIFICATION_EVENTS),
  event_description: z.string().max(1000).optional(),
})

/** A parsed notification request. */
export interface NotificationRequest {
  notificationId: string
  event: (typeof NOTIFICATION_EVENTS)[number]
  description?: string
}

/** Parses a notification request; refuses `invalid_notification_request` (unknown ids are the caller's, same code). */
export function parseNotificationRequest(body: unknown): NotificationRequest {
  const parsed = notificationRequest.safeParse(body)
  if (!parsed.success) {
    const field = parsed.error.issues[0]?.path.join('.') || 'body'
    throw new OAuthError('invalid_notification_request', `the notification request is invalid at ${field}`)
  }
  const { notification_id, event, event_description } = parsed.data
  return { notificationId: notification_id, event, ...(event_description !== undefined && { description: event_description }) }
}

/** The credential endpoint's `invalid_nonce` refusal; `freshNonce` adds a `c_nonce` to retry with. */
export function invalidNonce(freshNonce?: string): OAuthError {
  return new OAuthError('invalid_nonce', 'a key proof carries a nonce that is unknown, used or expired: fetch a new one', 400, {
    ...(freshNonce !== undefined && { body: { c_nonce: freshNonce } }),
  })
}
