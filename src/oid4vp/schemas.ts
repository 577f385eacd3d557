/**
 * Schemas of the verifier's management operations (`createPresentationRequest`, `getPresentationResult`) and of the
 * `request_uri` endpoint (helper "vp-core"). Browser-safe: zod only.
 */
import * as z from 'zod'
import { isoDate } from '../operations/schemas.js'
import { FailedOutcomeSchema, OutcomeCheckSchema, PresentedCredentialSchema } from './outcome-schemas.js'

/** Longest a presentation request lives, seconds (the module's `requestTtlSeconds` may say less). */
export const MAX_REQUEST_TTL_SECONDS = 3600
/** Most credential queries in one DCQL query, and most claims queries in one credential query. */
export const MAX_DCQL_CREDENTIALS = 20
export const MAX_DCQL_CLAIMS = 100
/** Largest DCQL query, as JSON text, characters. */
export const MAX_DCQL_CHARS = 32 * 1024
/** Most `transaction_data` entries, and largest one as JSON text. */
export const MAX_TRANSACTION_DATA = 10
export const MAX_TRANSACTION_DATA_CHARS = 8 * 1024

/** A request id (or any value the service made: 32 random bytes, base64url) as a path parameter. */
export const requestIdParam = z.string().min(1).max(200)

const dcqlQuery = z
  .looseObject({
    credentials: z
      .array(z.looseObject({ claims: z.array(z.unknown()).max(MAX_DCQL_CLAIMS).optional() }))
      .min(1)
      .max(MAX_DCQL_CREDENTIALS),
  })
  .refine((query) => JSON.stringify(query).length <= MAX_DCQL_CHARS, { message: `at most ${MAX_DCQL_CHARS} characters as JSON` })
  .meta({ description: 'The DCQL query (OID4VP 1.0 §6), checked by the `dcql` library; formats `dc+sd-jwt`, `jwt_vc_json`, `ldp_vc`.' })

/** The verifier identity of a request: its client identifier prefix (OID4VP 1.0 §5.9.3). */
export const clientIdInput = z
  .discriminatedUnion('prefix', [
    z.strictObject({
      prefix: z.literal('decentralized_identifier'),
      did: z.string().min(1).max(2048).meta({ description: 'A DID of the tenant whose control the caller proves in `x-did-auth`.' }),
    }),
    z.strictObject({ prefix: z.literal('redirect_uri') }),
    z.strictObject({ prefix: z.literal('x509_san_dns') }),
    z.strictObject({ prefix: z.literal('x509_hash') }),
  ])
  .meta({
    description:
      '`decentralized_identifier` (signed by the DID’s key), `redirect_uri` (unsigned: `client_id` is the response URI), ' +
      '`x509_san_dns` / `x509_hash` (signed by the operator’s certificate key; the module’s `x509` option).',
  })

const transactionDataEntry = z
  .looseObject({ type: z.string().min(1).max(200), credential_ids: z.array(z.string().min(1).max(200)).min(1).max(MAX_DCQL_CREDENTIALS) })
  .refine((entry) => JSON.stringify(entry).length <= MAX_TRANSACTION_DATA_CHARS, {
    message: `at most ${MAX_TRANSACTION_DATA_CHARS} characters as JSON`,
  })

export const createPresentationRequest = z.strictObject({
  dcqlQuery,
  clientId: clientIdInput,
  responseMode: z
    .enum(['direct_post', 'direct_post.jwt'])
    .optional()
    .meta({ description: '`direct_post` (default) or `direct_post.jwt`: the response encrypted to a key of this request (ECDH-ES).' }),
  enc: z
    .array(z.enum(['A128GCM', 'A256GCM']))
    .min(1)
    .max(2)
    .optional()
    .meta({ description: '`direct_post.jwt`: the content encryptions accepted (default both).' }),
  transactionData: z
    .array(transactionDataEntry)
    .min(1)
    .max(MAX_TRANSACTION_DATA)
    .optional()
    .meta({ description: '`transaction_data` (OID4VP 1.0 §8.4): objects naming `type` and `credential_ids` of the query.' }),
  expiresInSeconds: z
    .number()
    .int()
    .min(30)
    .max(MAX_REQUEST_TTL_SECONDS)
    .optional()
    .meta({ description: 'Lifetime of the request (default and at most the module’s `requestTtlSeconds`).' }),
  redirectUri: z
    .url({ protocol: /^https$/ })
    .max(2048)
    .optional()
    .meta({
      description: 'Same-device flow: the https page of the verifier’s front end the wallet sends the browser to, with a `response_code`.',
    }),
})
export type CreatePresentationRequestInput = z.output<typeof createPresentationRequest>

export const presentationRequestResponse = z.strictObject({
  id: z.string().meta({ description: 'The request’s id (32 random bytes, base64url): read the result with it.' }),
  requestUri: z.string().meta({ description: 'Where the wallet fetches the Request Object (`request_uri`).' }),
  authorizationRequest: z.strictObject({
    uri: z.string().meta({ description: '`openid4vp://?client_id=…&request_uri=…&request_uri_method=post`' }),
    https: z.string().meta({ description: 'The same parameters under `<publicUrl>/oid4vp/authorize` (a link form).' }),
  }),
  qr: z.string().meta({ description: 'An SVG QR code of `authorizationRequest.uri` (needs the optional peer `qrcode`).' }),
  expiresAt: isoDate,
})
export type PresentationRequestResponse = z.output<typeof presentationRequestResponse>

export const resultParams = z.strictObject({ id: requestIdParam })
export const resultQuery = z.strictObject({
  response_code: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .meta({ description: 'Same-device: the `response_code` the wallet’s redirect carried (needed to read an answered request).' }),
})

export const presentationResult = z.strictObject({
  id: z.string(),
  status: z.enum(['pending', 'fulfilled', 'failed']),
  createdAt: isoDate,
  expiresAt: isoDate,
  answeredAt: isoDate.optional(),
  credentials: z.record(z.string(), z.array(PresentedCredentialSchema)).optional(),
  error: FailedOutcomeSchema.shape.error.optional(),
  errorDescription: z.string().optional(),
  checks: z.array(OutcomeCheckSchema).optional(),
})
export type PresentationResult = z.output<typeof presentationResult>

/** The `request_uri` endpoint's path. */
export const requestObjectParams = z.strictObject({ id: requestIdParam })
export const requestObjectQuery = z.object({})
/** A `request_uri_method=post` fetch (OID4VP 1.0 §5.10): form fields. */
export const requestObjectPost = z.object({
  wallet_metadata: z.string().max(16_384).optional().meta({ description: 'The wallet’s metadata (JSON), OID4VP 1.0 §10.' }),
  wallet_nonce: z.string().min(1).max(512).optional().meta({ description: 'Echoed in the re-signed Request Object.' }),
})

/** The Request Object, served as itself (`application/oauth-authz-req+jwt`). */
export const servedRequestObject = z.strictObject({
  document: z.string(),
  contentType: z.enum(['application/oauth-authz-req+jwt']),
  etag: z.string(),
  maxAge: z.number().int().nonnegative(),
})
export type ServedRequestObject = z.output<typeof servedRequestObject>

/** The https link's query (`GET /oid4vp/authorize`), as `authorizationRequest.https` carries it. */
export const authorizeLinkQuery = z.strictObject({
  client_id: z.string().min(1).max(4096),
  request_uri: z.string().min(1).max(4096),
  request_uri_method: z.enum(['get', 'post']).optional(),
})
/** A 302 to the wallet's `openid4vp://` scheme. */
export const authorizeLinkRedirect = z.object({ location: z.string() })
