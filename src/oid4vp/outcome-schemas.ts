/**
 * What a verifier learns from a wallet's answer: the result of a presentation request, as `getPresentationResult`
 * answers it and as it is stored. Shared by the response endpoint (which writes it) and the result operation.
 */
import * as z from 'zod'

/** A named check, as `/presentations/verify` names them (the presentation's and each credential's). */
export const OutcomeCheckSchema = z
  .object({
    check: z.string(),
    verified: z.boolean(),
    error: z.string().optional(),
    credential: z.number().int().optional(),
  })
  .catchall(z.unknown())
  .meta({ id: 'Oid4vpCheck' })

/** The key the holder proved possession of: a DID (VP-JWT, Data Integrity) or a JWK (SD-JWT `cnf`). */
export const HolderKeySchema = z
  .object({ did: z.string().optional(), jwk: z.record(z.string(), z.unknown()).optional() })
  .meta({ id: 'Oid4vpHolder' })

/** One presented credential that satisfies its DCQL credential query. */
export const PresentedCredentialSchema = z
  .object({
    /** The DCQL format identifier it was presented in (`dc+sd-jwt`, `jwt_vc_json`, `ldp_vc`, …). */
    format: z.string(),
    issuer: z.string().nullable(),
    holder: HolderKeySchema.nullable(),
    /** `vct` (SD-JWT VC) or the credential's types. */
    vct: z.string().optional(),
    types: z.array(z.string()).optional(),
    /** The verified claims the query asked for, at their paths. */
    claims: z.record(z.string(), z.unknown()),
    /** Paths of claims the wallet disclosed that the query did not ask for: reported, never returned as verified. */
    unrequested: z.array(z.array(z.union([z.string(), z.number(), z.null()]))),
    /** Every named check of the presentation and of the credential, all verified. */
    checks: z.array(OutcomeCheckSchema),
  })
  .meta({ id: 'Oid4vpPresentedCredential' })

/** A wallet answer the verifier accepted: per DCQL credential query id, the credentials that satisfy it. */
export const FulfilledOutcomeSchema = z.object({
  status: z.literal('fulfilled'),
  credentials: z.record(z.string(), z.array(PresentedCredentialSchema)),
})

/** A wallet answer the verifier refused, or the wallet's own error response: why. */
export const FailedOutcomeSchema = z.object({
  status: z.literal('failed'),
  /**
   * The wallet's own error (`access_denied`, `wallet_unavailable`, …), or the verifier's: `invalid_request` (the
   * response's form), `verification_failed` (a named check failed: `checks`), `query_not_satisfied` (the verified
   * credentials do not meet the DCQL query; the description names the query and the claim).
   */
  error: z.string(),
  errorDescription: z.string().optional(),
  /** Which named check failed, per presentation, when verification failed. */
  checks: z.array(OutcomeCheckSchema).optional(),
})

export const PresentationOutcomeSchema = z.discriminatedUnion('status', [FulfilledOutcomeSchema, FailedOutcomeSchema])

export type OutcomeCheck = z.infer<typeof OutcomeCheckSchema>
export type PresentedCredential = z.infer<typeof PresentedCredentialSchema>
export type PresentationOutcome = z.infer<typeof PresentationOutcomeSchema>
