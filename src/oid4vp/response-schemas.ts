/**
 * The schemas of the response endpoint (`POST /oid4vp/responses/:id`, OID4VP 1.0 §8.2): its path, form fields and
 * answer. Browser-safe: schemas only. The fields are read (and bounded) by the protocol adapter's
 * `parseVpResponseForm`; the schema only says they are strings.
 */
import * as z from 'zod'

/** The path of the response endpoint: the request id. */
export const responseParams = z.strictObject({ id: z.string().min(1).max(200) })

/** The form fields of a wallet's Authorization Response. */
export const presentationResponseForm = z
  .object({
    vp_token: z.string().optional().meta({ description: '`direct_post`: the presentations, a JSON object (credential query id → array)' }),
    response: z.string().optional().meta({ description: '`direct_post.jwt`: the response parameters as a JWE (ECDH-ES)' }),
    error: z.string().optional().meta({ description: 'The wallet’s error (`access_denied`, …) instead of presentations' }),
    error_description: z.string().optional(),
    state: z.string().optional().meta({ description: 'The request’s `state`, echoed' }),
  })
  .catchall(z.string())
  .meta({ id: 'Oid4vpAuthorizationResponse' })

/** The answer to the wallet: empty, or (same-device flow) where to send the user's browser. */
export const presentationResponseAnswer = z
  .object({
    redirect_uri: z
      .string()
      .optional()
      .meta({ description: 'Same-device flow: the verifier front end’s `redirectUri` with a one-time `response_code`' }),
  })
  .meta({ id: 'Oid4vpResponseAnswer' })

export type PresentationResponseAnswer = z.infer<typeof presentationResponseAnswer>
