/**
 * The request and response schemas of the OID4VCI issuer's configuration and metadata operations (OpenID for Verifiable
 * Credential Issuance 1.0). Browser-safe: zod only.
 */
import * as z from 'zod'
import { did, isoDate } from '../operations/schemas.js'

/** An issuer slug: the last segment of the Credential Issuer Identifier `<publicUrl>/oid4vci/<slug>`. */
export const ISSUER_SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/
/** Path segments of the management routes under `/oid4vci/`: no issuer may be named like them. */
export const RESERVED_SLUGS: readonly string[] = ['configurations', 'offers', 'deferred']

export const issuerSlug = z
  .string()
  .regex(ISSUER_SLUG, 'must be 1–63 lowercase letters, digits or hyphens, not starting with a hyphen')
  .refine((slug) => !RESERVED_SLUGS.includes(slug), `is reserved: ${RESERVED_SLUGS.join(', ')} name routes of the management operations`)
  .meta({ description: 'The issuer slug: the Credential Issuer Identifier is `<publicUrl>/oid4vci/<slug>`.' })

/** A credential configuration id (the key of `credential_configurations_supported`, and its `scope`). */
export const configurationId = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}$/, 'must be 1–100 letters, digits, `_`, `.`, `:` or `-`, starting with a letter or digit')

/**
 * Credential Format Identifiers (OID4VCI 1.0 Appendix A): `dc+sd-jwt` (IETF SD-JWT VC; `vc+sd-jwt`, its identifier up
 * to draft 15, accepted for wallets that still ask for it), `jwt_vc_json` and `jwt_vc_json-ld` (VC-JWT), `ldp_vc` (Data
 * Integrity). `vc+jwt` (VC-JOSE, a VC 2.0 secured with JOSE) has no identifier in 1.0: it is named by its media type's
 * subtype, as the specification recommends for new profiles (docs/oid4vci.md). `mso_mdoc` is not signed here.
 */
export const CREDENTIAL_FORMATS = ['dc+sd-jwt', 'vc+sd-jwt', 'jwt_vc_json', 'jwt_vc_json-ld', 'ldp_vc', 'vc+jwt'] as const
export type Oid4vciFormat = (typeof CREDENTIAL_FORMATS)[number]
export const credentialFormat = z.enum(CREDENTIAL_FORMATS)

/** The formats of SD-JWT VCs (they take `vct`); the others are W3C VCs (they take `types`). */
export const SD_JWT_FORMATS: readonly Oid4vciFormat[] = ['dc+sd-jwt', 'vc+sd-jwt']

/** JOSE algorithms of key proofs (`proof_types_supported.jwt.proof_signing_alg_values_supported`). */
export const PROOF_ALGS = ['ES256', 'ES256K', 'EdDSA'] as const
export const proofAlg = z.enum(PROOF_ALGS)

const short = (max = 200) => z.string().min(1).max(max)
const uri = z.string().min(1).max(2_000)
const color = z.string().max(50)
const locale = z.string().regex(/^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/, 'must be a BCP 47 language tag')

/** A `display` entry of a credential configuration (OID4VCI 1.0 §12.2.4 `credential_metadata.display`). */
export const credentialDisplay = z.strictObject({
  name: short(),
  locale: locale.optional(),
  logo: z.strictObject({ uri, alt_text: short(500).optional() }).optional(),
  description: short(1_000).optional(),
  background_color: color.optional(),
  background_image: z.strictObject({ uri }).optional(),
  text_color: color.optional(),
})

/** A claims description of the issuer metadata (OID4VCI 1.0 Appendix B.2): a claims path pointer and how to show it. */
export const claimDescription = z.strictObject({
  path: z
    .array(z.union([z.string().min(1).max(200), z.number().int().nonnegative().max(10_000), z.null()]))
    .min(1)
    .max(16)
    .meta({ description: 'A claims path pointer (Appendix C): names, array indexes, `null` for every element.' }),
  mandatory: z.boolean().optional(),
  display: z
    .array(z.strictObject({ name: short().optional(), locale: locale.optional() }))
    .min(1)
    .max(20)
    .optional(),
})

/** Most credentials one Credential Request may ask for (`batch_credential_issuance.batch_size`). */
export const MAX_BATCH_SIZE = 10
/** Most credential configurations of one tenant (its metadata lists them all). */
export const MAX_CONFIGURATIONS = 100

/** A credential configuration as its creator gives it, `id` apart. */
const configurationFields = {
  issuer: issuerSlug,
  format: credentialFormat.meta({ description: 'The Credential Format Identifier (OID4VCI 1.0 Appendix A).' }),
  vct: short(500).optional().meta({ description: 'The SD-JWT VC type (`dc+sd-jwt`, `vc+sd-jwt`): required there, refused elsewhere.' }),
  types: z
    .array(short())
    .min(1)
    .max(20)
    .optional()
    .meta({ description: 'The W3C credential types (`VerifiableCredential` first added when missing): required for W3C formats.' }),
  context: z
    .array(uri)
    .min(1)
    .max(20)
    .optional()
    .meta({ description: '`@context` of `ldp_vc` and `jwt_vc_json-ld` credentials (default: the VC data model context of the format).' }),
  issuingDid: did.meta({ description: 'The DID that signs the credentials: a wallet of the tenant whose control the caller proves.' }),
  proofTypes: z
    .strictObject({ jwt: z.strictObject({ algs: z.array(proofAlg).min(1).max(PROOF_ALGS.length) }) })
    .optional()
    .meta({ description: 'Key proofs the wallet signs: `jwt` with these algorithms (default all of ES256, ES256K, EdDSA).' }),
  credentialSigningAlg: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .meta({
      description:
        'The JOSE algorithm the issuer signs with (one of its key type; default its first), or for `ldp_vc` the Data Integrity ' +
        'cryptosuite or proof type (default the key type’s).',
    }),
  display: z.array(credentialDisplay).min(1).max(20).optional(),
  claims: z.array(claimDescription).min(1).max(200).optional(),
  batchSize: z.number().int().min(1).max(MAX_BATCH_SIZE).optional().meta({ description: 'Most credentials per request (default 1).' }),
  deferred: z.boolean().optional().meta({ description: 'Credentials are issued later, completed by the issuing backend.' }),
  dpopRequired: z.boolean().optional().meta({ description: 'Access tokens must be DPoP-bound (RFC 9449).' }),
  status: z.boolean().optional().meta({ description: 'Each issued credential gets a status entry (revocation).' }),
  acceptUntypedProofs: z
    .boolean()
    .optional()
    .meta({
      description:
        'Leniency for deployed wallets (@digitalbazaar/oid4-client): also accept key proofs without `typ` and `iat` whose `kid` ' +
        'is a did:jwk DID URL, checked by signature, `aud`, `exp` (required, short-lived), `nbf` and nonce. Default false.',
    }),
  expiresInSeconds: z
    .number()
    .int()
    .min(60)
    .max(10 * 365 * 24 * 3600)
    .optional()
    .meta({ description: 'Lifetime of issued credentials, seconds (default none).' }),
}

export const createCredentialConfiguration = z.strictObject({ id: configurationId, ...configurationFields })
export type CreateCredentialConfigurationInput = z.output<typeof createCredentialConfiguration>

export const configurationParams = z.strictObject({ configurationId })
export const updateCredentialConfiguration = z.strictObject(configurationFields)
export type UpdateCredentialConfigurationInput = z.output<typeof updateCredentialConfiguration> & { configurationId: string }
export const deleteCredentialConfiguration = z.strictObject({})
export type DeleteCredentialConfigurationInput = { configurationId: string }
export const getCredentialConfigurations = z.strictObject({})

/** A stored credential configuration as the operations answer it. */
export const credentialConfiguration = z.strictObject({
  id: configurationId,
  ...configurationFields,
  credentialIssuer: z.string().meta({ description: 'The Credential Issuer Identifier (`<publicUrl>/oid4vci/<slug>`).' }),
  createdAt: isoDate,
  updatedAt: isoDate,
})
export type CredentialConfiguration = z.output<typeof credentialConfiguration>

export const credentialConfigurationResponse = z.strictObject({ configuration: credentialConfiguration })
export const credentialConfigurationsResponse = z.strictObject({
  issuer: issuerSlug.optional().meta({ description: 'The tenant’s issuer slug, once its first configuration claimed one.' }),
  configurations: z.array(credentialConfiguration),
})
export const deletedConfigurationResponse = z.strictObject({ deleted: configurationId })

export const metadataParams = z.strictObject({ issuer: issuerSlug })
export type MetadataInput = z.output<typeof metadataParams>
export const metadataQuery = z.object({})

/** A served metadata document: the embedded API's answer; over HTTP the document itself, with these as headers. */
export const servedMetadata = z.strictObject({
  document: z.record(z.string(), z.unknown()),
  contentType: z.enum(['application/json']),
  etag: z.string(),
  maxAge: z.number().int().nonnegative(),
})
export type ServedMetadata = z.output<typeof servedMetadata>

// ---- helper "credential": the credential and notification endpoints (OID4VCI 1.0 §8, §11)

/** The path parameter of the wallet-facing endpoints: the issuer slug. */
export const walletEndpointParams = z.strictObject({ issuer: issuerSlug })

/**
 * A Credential Request (OID4VCI 1.0 §8.2), as wallets send it: checked further by the protocol adapter (its errors are
 * the specification's `invalid_credential_request`, `invalid_proof`, …). Draft 15's single `proof` is answered like a
 * one-element `proofs`; `issuer_state` and a stray `proofs.proof_type` (deployed wallets) are ignored.
 */
export const credentialRequest = z.looseObject({
  credential_configuration_id: z.string().max(200).optional().meta({ description: 'The configuration asked for.' }),
  credential_identifier: z
    .string()
    .max(200)
    .optional()
    .meta({ description: 'A `credential_identifiers` value of the token response (here: the configuration id).' }),
  proofs: z
    .record(z.string(), z.unknown())
    .optional()
    .meta({ description: 'Key proofs: `{ jwt: [<openid4vci-proof+jwt>, …] }`, one credential per key (at most the batch size).' }),
  proof: z.record(z.string(), z.unknown()).optional().meta({ description: 'Draft 15: one key proof `{ proof_type: "jwt", jwt }`.' }),
})
export type CredentialRequestInput = z.output<typeof credentialRequest> & { issuer: string }

/** A Credential Response (OID4VCI 1.0 §8.3): the credentials, or (deferred, 202) a transaction to fetch them by later. */
export const credentialResponseBody = z.looseObject({
  credentials: z
    .array(z.object({ credential: z.union([z.string(), z.record(z.string(), z.unknown())]) }))
    .optional()
    .meta({ description: 'One credential per key proof, in order: a compact SD-JWT VC or VC-JWT, or a Data Integrity JSON-LD VC.' }),
  notification_id: z.string().optional().meta({ description: 'What the wallet names this issuance by at the notification endpoint.' }),
  // ---- helper "deferred"
  transaction_id: z
    .string()
    .optional()
    .meta({ description: 'Deferred issuance (202): what the wallet fetches the credentials by at the deferred credential endpoint.' }),
  interval: z.number().int().positive().optional().meta({ description: 'Deferred issuance: seconds to wait before asking again.' }),
})
export type CredentialResponseBody = z.output<typeof credentialResponseBody>

/** A Notification Request (OID4VCI 1.0 §11.1). */
export const notificationRequest = z.looseObject({
  notification_id: z.string().max(4_096).optional(),
  event: z.string().max(100).optional().meta({ description: '`credential_accepted`, `credential_failure` or `credential_deleted`.' }),
  event_description: z.string().max(1_000).optional(),
})
export type NotificationInput = z.output<typeof notificationRequest> & { issuer: string }
export const notificationResponse = z.strictObject({})
