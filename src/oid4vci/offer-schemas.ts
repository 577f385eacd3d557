/**
 * Schemas of the OID4VCI issuer's offers, token and nonce endpoints (helper "offer-token"): what the issuing backend
 * gives `createCredentialOffer` and gets back, and the wallet-facing bodies. Browser-safe: zod only.
 */
import * as z from 'zod'
import { isoDate } from '../operations/schemas.js'
import { configurationId, issuerSlug, walletEndpointParams } from './schemas.js'

/** Most configurations one offer names. */
export const MAX_OFFER_CONFIGURATIONS = 20
/** Longest an offer (and its pre-authorized code) lives, seconds. */
export const MAX_OFFER_TTL_SECONDS = 86_400

/** The grants an offer may carry (`createCredentialOffer`'s `grants`). */
export const OFFER_GRANTS = ['pre-authorized_code', 'authorization_code'] as const
export type OfferGrant = (typeof OFFER_GRANTS)[number]

/** The PIN an offer asks for (`tx_code`): drawn by the service, returned once. */
export const txCodeSpec = z.union([
  z.literal(true),
  z.strictObject({
    length: z.number().int().min(4).max(8).optional().meta({ description: 'Characters of the PIN (default 6).' }),
    inputMode: z.enum(['numeric', 'text']).optional().meta({ description: '`numeric` digits (default) or `text` (letters and digits).' }),
    description: z.string().min(1).max(300).optional().meta({ description: 'Shown by the wallet: where the user finds the PIN.' }),
  }),
])

export const createCredentialOffer = z.strictObject({
  configurations: z
    .array(
      z.strictObject({
        id: configurationId,
        claims: z
          .record(z.string().min(1).max(200), z.unknown())
          .meta({ description: 'The claims of this configuration’s credential (bounded by the request’s size and depth limits).' }),
      }),
    )
    .min(1)
    .max(MAX_OFFER_CONFIGURATIONS)
    .meta({ description: 'The tenant’s credential configurations offered, each with its claims; the caller controls each issuing DID.' }),
  txCode: txCodeSpec.optional().meta({ description: 'Ask the wallet for a PIN (`true`: 6 digits); the service draws it.' }),
  expiresInSeconds: z
    .number()
    .int()
    .min(30)
    .max(MAX_OFFER_TTL_SECONDS)
    .optional()
    .meta({ description: 'Lifetime of the offer and its pre-authorized code (default the module’s `offerTtlSeconds`, 600).' }),
  grants: z
    .array(z.enum(OFFER_GRANTS))
    .min(1)
    .max(2)
    .refine((grants) => new Set(grants).size === grants.length, 'each grant at most once')
    .optional()
    .meta({
      description:
        'The grants offered (default `["pre-authorized_code"]`). `authorization_code` puts an `issuer_state` in the offer: ' +
        'the wallet’s authorization request carrying it is bound to this offer (its configurations and claims); needs the ' +
        'module’s `authorize` hook or `loginUrl`. Either grant consumes the offer.',
    }),
})
export type CreateCredentialOfferInput = z.output<typeof createCredentialOffer>

export const credentialOfferResponse = z.strictObject({
  offerId: z
    .string()
    .meta({ description: 'The offer’s id: the last segment of `credentialOfferUri` (whoever has it can fetch the offer).' }),
  offerUri: z.string().meta({ description: '`openid-credential-offer://?credential_offer_uri=…`, for a link or the QR code.' }),
  credentialOfferUri: z.string().meta({ description: 'Where wallets fetch the Credential Offer (by reference).' }),
  qr: z.string().meta({ description: 'An SVG QR code of `offerUri` (needs the optional peer `qrcode`).' }),
  expiresAt: isoDate,
  txCode: z
    .string()
    .optional()
    .meta({ description: 'The PIN, returned this once (the service keeps only a keyed hash): give it to the user apart.' }),
})
export type CredentialOfferResponse = z.output<typeof credentialOfferResponse>

/** Path parameters of the offer endpoint. */
export const offerParams = z.strictObject({ issuer: issuerSlug, offerId: z.string().min(1).max(200) })
export const emptyQuery = z.object({})

/** The Credential Offer (OID4VCI 1.0 §4.1.1). */
export const credentialOfferDocument = z.object({
  credential_issuer: z.string(),
  credential_configuration_ids: z.array(z.string()),
  grants: z.record(z.string(), z.record(z.string(), z.unknown())),
})

/** Path parameters of the token and nonce endpoints. */
/** The issuer slug of a wallet-facing endpoint's path. */
export const issuerParams = walletEndpointParams

/** A token request's form fields (RFC 6749 §4.1.3, OID4VCI 1.0 §6.1): strings, checked by the protocol adapter. */
export const tokenRequest = z
  .object({ grant_type: z.string().min(1).max(200) })
  .catchall(z.string().max(8_192))
  .meta({ description: 'Form fields: `grant_type`, `pre-authorized_code`, `tx_code` (or `user_pin`), `authorization_details`, …' })

/** The token response (RFC 6749 §5.1). */
export const tokenResponseBody = z.object({
  access_token: z.string(),
  token_type: z.enum(['DPoP', 'bearer']),
  expires_in: z.number().int().positive(),
  authorization_details: z.array(z.record(z.string(), z.unknown())).optional(),
  refresh_token: z
    .string()
    .optional()
    .meta({ description: 'For grants with a deferred configuration: single use, rotated, good until the deferred issuance expires.' }),
})

export type TokenResponseBody = z.output<typeof tokenResponseBody>

/** The nonce request: an empty body. */
export const nonceRequest = z.object({})
/** The nonce response (OID4VCI 1.0 §7.2). */
export const nonceResponseBody = z.object({ c_nonce: z.string() })
