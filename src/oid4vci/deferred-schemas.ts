/**
 * Schemas of deferred issuance (helper "deferred", OID4VCI 1.0 §9): what the issuing backend lists and completes, and
 * the wallet's Deferred Credential Request. Browser-safe: zod only.
 */
import * as z from 'zod'
import { isoDate } from '../operations/schemas.js'
import { configurationId } from './schemas.js'

/** The backend's handle of a pending issuance (not the wallet's `transaction_id`, which only the wallet holds). */
export const deferredReference = z
  .string()
  .regex(/^[A-Za-z0-9_-]{16,64}$/, 'must be a reference getDeferredCredentials listed')
  .meta({ description: 'The reference of a deferred issuance, as `getDeferredCredentials` lists it.' })

/** `getDeferredCredentials`: the tenant's deferred issuances, pending ones by default. */
export const getDeferredCredentials = z.strictObject({
  state: z
    .enum(['pending', 'ready', 'issued', 'refused'])
    .optional()
    .meta({ description: 'Only those in this state (default `pending`).' }),
  configurationId: configurationId.optional().meta({ description: 'Only those of this configuration.' }),
  limit: z.coerce.number().int().min(1).max(1_000).optional().meta({ description: 'At most this many, oldest first (default 100).' }),
})
export type GetDeferredCredentialsInput = z.output<typeof getDeferredCredentials>

/** A deferred issuance as the backend sees it: no secret (the wallet's transaction id is not kept). */
export const deferredCredential = z.strictObject({
  reference: deferredReference,
  configurationId,
  state: z.enum(['pending', 'ready', 'issued', 'refused']),
  offerId: z
    .string()
    .optional()
    .meta({ description: 'The offer’s storage id (as the audit trail names it), when the grant came from one.' }),
  subject: z.string().optional().meta({ description: 'The subject the embedding application authenticated (authorization code flow).' }),
  holderKeys: z.array(z.string()).meta({ description: 'RFC 7638 thumbprints of the holder keys the credentials will be bound to.' }),
  claims: z.record(z.string(), z.unknown()).meta({ description: 'The claims the grant carried (the default claims of the credentials).' }),
  createdAt: isoDate,
  expiresAt: isoDate,
})
export type DeferredCredential = z.output<typeof deferredCredential>

export const deferredCredentialsResponse = z.strictObject({ deferred: z.array(deferredCredential) })
export type DeferredCredentialsResponse = z.output<typeof deferredCredentialsResponse>

export const deferredParams = z.strictObject({ reference: deferredReference })

/** `completeDeferredCredential`: issue now (with the grant's claims, or these), or refuse. */
export const completeDeferredCredential = z.union([
  z.strictObject({
    claims: z
      .record(z.string(), z.unknown())
      .optional()
      .meta({ description: 'The claims of the credentials; default: those of the grant.' }),
  }),
  z.strictObject({
    refuse: z.string().min(1).max(300).meta({ description: 'Refuse the issuance: the wallet is told `credential_request_denied`.' }),
  }),
])
export type CompleteDeferredCredentialInput = z.output<typeof completeDeferredCredential> & { reference: string }

export const completeDeferredCredentialResponse = z.strictObject({
  reference: deferredReference,
  state: z.enum(['ready', 'refused']),
  credentialIds: z.array(z.string()).meta({ description: 'The credential records issued (empty when refused).' }),
})
export type CompleteDeferredCredentialResponse = z.output<typeof completeDeferredCredentialResponse>

/** A Deferred Credential Request (OID4VCI 1.0 §9.1); checked further by the protocol adapter. */
export const deferredCredentialRequest = z.looseObject({
  transaction_id: z.string().max(512).optional().meta({ description: 'The `transaction_id` of the credential response.' }),
})
export type DeferredCredentialRequestInput = z.output<typeof deferredCredentialRequest> & { issuer: string }
