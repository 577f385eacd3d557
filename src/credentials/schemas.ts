/** Request and response schemas of the verifiable-credential operations (`/claims`). */
import * as z from 'zod'
import { MAX_JSON_DEPTH } from '../proofs/jsonld/bounds.js'
import { MAX_INLINE_CONTEXT_CHARS, MAX_INLINE_CONTEXT_TERMS, inlineContextProblem } from '../proofs/jsonld/inline-contexts.js'
import { DATA_INTEGRITY_PROOF, KOBLITZ_2016, PROOF_TYPES } from '../proofs/jsonld/suite-names.js'
import { anyCase, did, errorBody, expiration, label, nextCursor, page } from '../operations/schemas.js'
import { registryReport, walletConfig } from '../wallets/config-schemas.js'

/** Whether `value` nests at most `max` levels of objects/arrays. */
function depthAtMost(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]]
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!
    if (typeof v !== 'object' || v === null) continue
    if (depth > max) return false
    for (const child of Object.values(v)) stack.push([child, depth + 1])
  }
  return true
}

const isJsonObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/**
 * A JSON object, taken as given: every own key is kept (an object schema would drop a
 * `__proto__` key silently, and the JSON-LD checks must see it to refuse it). Nesting is capped
 * at {@link MAX_JSON_DEPTH}; the service's JSON-LD bounds (`limits.jsonld`) apply in the operations.
 */
export const jsonObject = z
  .custom<Record<string, unknown>>(isJsonObject, 'must be a JSON object')
  .refine((v) => depthAtMost(v, MAX_JSON_DEPTH), `nests deeper than ${MAX_JSON_DEPTH} levels`)
  .meta({ type: 'object', additionalProperties: {} })

/** Either one value or an array of them, as an array. */
const oneOrMany = <T extends z.ZodType>(item: T, max: number) =>
  z.union([item, z.array(item).max(max)]).transform((v): Array<z.output<T>> => (Array.isArray(v) ? v : [v]))

/** A JSON-LD context URL; Sign Verifiable Credentials takes only bundled or registered ones (src/operations/known-contexts.ts). */
export const contextUrl = z.string().max(2_000)

/**
 * An inline JSON-LD context: a context definition object, as an entry of `@context` holds one
 * (standard JSON-LD, processed offline), within the inline-context limits.
 */
const inlineContext = jsonObject.superRefine((context, ctx) => {
  const problem = inlineContextProblem(context)
  if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem })
})

/** A context of a credential to sign: a bundled or registered URL, or an inline context. */
const contextEntry = z.union([contextUrl, inlineContext])

/** Credential type names (a term its contexts define, or an absolute IRI). */
const typeName = z.string().min(1).max(200).regex(/^\S+$/, 'must not contain spaces')

/** A claim's `id`: a DID, or another absolute URI. */
const claimId = z
  .string()
  .max(2_000)
  .regex(/^[a-zA-Z][a-zA-Z0-9+.-]*:\S+$/, 'must be a DID or an absolute URI')

/** A name of a resolver configured in the service. */
export const resolverName = z.string().min(1).max(50).meta({
  description: 'Name of a DID resolver configured in the service (default `default`, the service’s own); unknown names are 422.',
})

/** At most one of `exp`, `expiresIn`, `expirationDate` (DESIGN §4 *Expiration inputs*). */
function oneExpiration(v: { exp?: unknown; expiresIn?: unknown; expirationDate?: unknown }, ctx: z.RefinementCtx): void {
  if ([v.exp, v.expiresIn, v.expirationDate].filter((x) => x !== undefined).length > 1) {
    ctx.addIssue({ code: 'custom', message: 'give at most one of exp, expiresIn, expirationDate' })
  }
}

/** The statuses Fetch's `status` filter names: a stored credential is `revoked`, `suspended` (in this service's lists) or `active`. */
export const CREDENTIAL_STATUSES = ['active', 'revoked', 'suspended'] as const

/** The purposes of status entries (W3C Bitstring Status List). */
export const STATUS_PURPOSES = ['revocation', 'suspension'] as const
export const statusPurpose = z.enum(STATUS_PURPOSES)
export type StatusPurpose = z.output<typeof statusPurpose>

/** `status` of a sign request: one `credentialStatus` entry per purpose. */
const statusRequest = z
  .strictObject({
    purposes: z
      .array(statusPurpose)
      .min(1)
      .max(2)
      .refine((p) => new Set(p).size === p.length, 'each purpose at most once'),
  })
  .meta({
    description: [
      'Status entries (`credentialStatus`, `BitstringStatusListEntry`), one per purpose, in status lists of the issuer published',
      'under the service’s `publicUrl`. A JSON-LD credential with status is data model 2.0: one that names no `context` is issued with',
      '`https://www.w3.org/ns/credentials/v2`; one naming other contexts must include it (422 otherwise). A VC-JWT with status names',
      '`https://www.w3.org/ns/credentials/status/v1` after `https://www.w3.org/2018/credentials/v1`.',
    ].join(' '),
  })

/**
 * The SD-JWT codec's bounds (src/credentials/formats/sd-jwt/limits.ts, which the operation applies too): repeated here
 * so that the browser-safe schemas bound a request before it is parsed further.
 */
export const SD_JWT_BOUNDS = { vctChars: 2_048, disclosePaths: 256, pathChars: 2_000, decoys: 64, compactChars: 512 * 1024 }

/** A holder's public JWK (`cnf.jwk` of an SD-JWT VC): a private part (`d`) or another member is 422. */
const holderJwk = z
  .strictObject({
    kty: z.enum(['EC', 'OKP']),
    crv: z.enum(['secp256k1', 'P-256', 'Ed25519']),
    x: z.string().max(200),
    y: z.string().max(200).optional(),
    kid: z.string().max(2_000).optional(),
    alg: z.string().max(20).optional(),
    use: z.string().max(20).optional(),
  })
  .meta({ description: 'A public JWK of a secp256k1, P-256 or Ed25519 key (no `d`).' })

/** JSON pointers to claims of an SD-JWT VC (`/address/street`, `/nationalities/0`): made disclosable at Sign, shown when presenting. */
export const disclosePointers = z.array(z.string().max(SD_JWT_BOUNDS.pathChars)).max(SD_JWT_BOUNDS.disclosePaths)

/** The members of a claim that only SD-JWT VCs take. */
const sdJwtClaimFields = {
  vct: z
    .string()
    .min(1)
    .max(SD_JWT_BOUNDS.vctChars)
    .optional()
    .meta({ description: 'SD-JWT only, and required there: the credential type (`vct`).' }),
  disclose: disclosePointers.optional().meta({
    description:
      'SD-JWT only: JSON pointers (`/address/street`, `/nationalities/0`) of the payload claims made selectively disclosable; ' +
      'default every top-level claim of `payload`; `[]` none. `sub` is always visible.',
  }),
  decoys: z
    .number()
    .int()
    .min(0)
    .max(SD_JWT_BOUNDS.decoys)
    .optional()
    .meta({ description: 'SD-JWT only: decoy digests added at the top level.' }),
  holderJwk: holderJwk.optional().meta({
    description:
      'SD-JWT only: the holder key (`cnf.jwk`). Default: the first `authentication` key with key material of the subject DID’s ' +
      'current document; with neither `sub` nor `holderJwk` the claim is 422.',
  }),
}

const claimInput = z
  .strictObject({
    id: claimId
      .optional()
      .meta({ description: 'The credential’s id. Absent: a new claim DID is made (a wallet of the tenant, named by `alias`).' }),
    alias: label(200)
      .optional()
      .meta({ description: 'Alias of the new claim DID’s wallet (default: the DID). Only for claims without `id`.' }),
    sub: did.optional().meta({ description: 'Subject DID (`credentialSubject.id`); overrides the global `sub`.' }),
    context: oneOrMany(contextEntry, 20)
      .optional()
      .meta({ description: 'More contexts for this claim (after the global ones): URLs or inline contexts.' }),
    type: oneOrMany(typeName, 20).optional().meta({ description: 'More types for this claim (after the global ones).' }),
    payload: jsonObject.optional().meta({ description: 'The claims about the subject: the members of `credentialSubject`.' }),
    status: statusRequest.optional().meta({ description: 'Status entries of this claim’s credential; overrides the global `status`.' }),
    ...expiration,
    walletConfig: walletConfig
      .optional()
      .meta({ description: 'Applied to the new claim DID’s document (e.g. `newOwner`). Only for claims without `id`.' }),
    ...sdJwtClaimFields,
  })
  .superRefine(oneExpiration)
  .superRefine((c, ctx) => {
    if (c.id === undefined) return
    for (const field of ['alias', 'walletConfig'] as const) {
      if (c[field] !== undefined)
        ctx.addIssue({ code: 'custom', path: [field], message: 'only for claims without `id` (it configures the claim DID made for them)' })
    }
  })
  .superRefine((c, ctx) => {
    if (c.payload !== undefined && Object.hasOwn(c.payload, 'id')) {
      ctx.addIssue({ code: 'custom', path: ['payload', 'id'], message: 'the subject is given by `sub`' })
    }
  })

/** `format`, case-insensitive (also a presentation's). */
export const format = z
  .string()
  .regex(anyCase('json-ld', 'jwt'), 'must be JSON-LD or JWT')
  .transform((v) => v.toUpperCase() as 'JSON-LD' | 'JWT')
  .meta({ description: '`JSON-LD` (default) or `JWT`, any letter case.' })

/** `format` of Sign Verifiable Credentials, case-insensitive: the presentation formats and `SD-JWT`. */
const claimFormat = z
  .string()
  .regex(anyCase('json-ld', 'jwt', 'sd-jwt', 'vc-jose'), 'must be JSON-LD, JWT, SD-JWT or VC-JOSE')
  .transform((v) => v.toUpperCase() as 'JSON-LD' | 'JWT' | 'SD-JWT' | 'VC-JOSE')
  .meta({
    description:
      '`JSON-LD` (default), `JWT` (VC-JWT, data model 1.1), `SD-JWT` (SD-JWT VC, `dc+sd-jwt`) or `VC-JOSE` (a data model 2.0 ' +
      'credential as the payload of a JWS, `vc+jwt`), any letter case.',
  })

/** The format of a stored, fetched or verified credential: the credential-format port's name (`FormatName`). */
const elementFormat = z.enum(['JSON-LD', 'JWT', 'SD-JWT', 'VC-JOSE']).meta({
  description:
    'The credential’s format: `JSON-LD` (in `jsonld`), `JWT` (a VC-JWT, in `jwt`), `SD-JWT` (in `sdjwt`) or `VC-JOSE` ' +
    '(a `vc+jwt` JWS, in `jwt`).',
})

/** What a claim may carry in each format: an SD-JWT claim needs `vct`, takes no claim-DID member; others no SD-JWT member. */
function claimFitsFormat(v: { format: string; claims: ClaimFields[] }, ctx: z.RefinementCtx): void {
  const sdJwt = v.format === 'SD-JWT'
  for (const [i, claim] of v.claims.entries()) {
    const refuse = (field: string, message: string) => ctx.addIssue({ code: 'custom', path: ['claims', i, field], message })
    if (!sdJwt) {
      for (const field of Object.keys(sdJwtClaimFields) as Array<keyof typeof sdJwtClaimFields>)
        if (claim[field] !== undefined) refuse(field, 'only for SD-JWT credentials')
      continue
    }
    if (claim.vct === undefined) refuse('vct', 'required for an SD-JWT VC (its type)')
    for (const field of ['alias', 'walletConfig'] as const)
      if (claim[field] !== undefined) refuse(field, 'an SD-JWT claim gets no claim DID')
  }
}
type ClaimFields = z.output<typeof claimInput>

/**
 * The JSON-LD proof suite a request names (Sign, Add Proof, Sign Presentation): a `proofType`, a Data Integrity
 * `cryptosuite` (with `proofType` `DataIntegrityProof` or alone), or neither — the suite registry's default for the
 * signing key's type. Whether a suite is registered and fits the key is the registry's answer (422).
 */
export const proofSuiteFields = {
  proofType: z
    .enum(PROOF_TYPES)
    .optional()
    .meta({
      description:
        `JSON-LD proof suite; default by the signing key's type (secp256k1: ${KOBLITZ_2016} for a credential). ` +
        `\`${DATA_INTEGRITY_PROOF}\` takes a \`cryptosuite\`.`,
    }),
  cryptosuite: z
    .string()
    .max(64)
    .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'a cryptosuite name (lower-case letters, digits and dashes)')
    .optional()
    .meta({
      description: `The Data Integrity cryptosuite (e.g. \`ecdsa-rdfc-2019\`): with \`proofType: "${DATA_INTEGRITY_PROOF}"\` or alone.`,
    }),
}

/** The Data Integrity cryptosuites of selective disclosure: their base proofs take `mandatoryPointers`. */
export const SELECTIVE_DISCLOSURE_CRYPTOSUITES: readonly string[] = ['ecdsa-sd-2023', 'bbs-2023']

/** Most JSON pointers one `mandatoryPointers` / `selectivePointers` list holds. */
export const MAX_SELECTION_POINTERS = 256

/** JSON pointers (RFC 6901) into a JSON-LD credential, for selective disclosure: bounded count and length. */
export const selectionPointers = z
  .array(
    z
      .string()
      .max(1024)
      .regex(/^(\/([^~]|~[01])*)+$/, 'a JSON pointer such as /credentialSubject/name'),
  )
  .max(MAX_SELECTION_POINTERS)

/**
 * `mandatoryPointers`: what every derived credential reveals, fixed by the issuer's base proof; only with a
 * selective-disclosure cryptosuite ({@link SELECTIVE_DISCLOSURE_CRYPTOSUITES}).
 */
export const mandatoryPointersField = {
  mandatoryPointers: selectionPointers.optional().meta({
    description:
      `With \`cryptosuite: "ecdsa-sd-2023"\` only: JSON pointers (\`/issuer\`, \`/credentialSubject/birthDate\`; at most ` +
      `${MAX_SELECTION_POINTERS}) of the claims every credential derived from the base proof reveals (\`POST /presentations/derive\`). ` +
      'A pointer that selects nothing in the credential is 422. Default `[]`.',
  }),
}

/** `mandatoryPointers` goes only with a selective-disclosure `cryptosuite`. */
export function mandatoryPointersFitCryptosuite(v: { cryptosuite?: string; mandatoryPointers?: unknown }, ctx: z.RefinementCtx): void {
  if (v.mandatoryPointers !== undefined && !SELECTIVE_DISCLOSURE_CRYPTOSUITES.includes(v.cryptosuite ?? ''))
    ctx.addIssue({
      code: 'custom',
      path: ['mandatoryPointers'],
      message: `only with a selective-disclosure cryptosuite (${SELECTIVE_DISCLOSURE_CRYPTOSUITES.join(', ')})`,
    })
}

/** A `cryptosuite` goes only with `proofType` `DataIntegrityProof` (or alone). */
export function cryptosuiteFitsProofType(v: { proofType?: string; cryptosuite?: string }, ctx: z.RefinementCtx): void {
  if (v.cryptosuite !== undefined && v.proofType !== undefined && v.proofType !== DATA_INTEGRITY_PROOF)
    ctx.addIssue({ code: 'custom', path: ['cryptosuite'], message: `only with proofType "${DATA_INTEGRITY_PROOF}" (or alone)` })
}

export const signClaims = z
  .strictObject({
    format: claimFormat.default('JSON-LD'),
    ...proofSuiteFields,
    ...mandatoryPointersField,
    iss: did.meta({ description: 'The issuer: a wallet DID of the caller’s tenant that the caller controls.' }),
    resolver: resolverName.optional(),
    context: oneOrMany(contextEntry, 20)
      .optional()
      .meta({
        description: [
          'Context(s) after `https://www.w3.org/2018/credentials/v1`: URLs of bundled or registered contexts, or inline context objects',
          `(at most ${MAX_INLINE_CONTEXT_CHARS} characters of JSON and ${MAX_INLINE_CONTEXT_TERMS} term definitions each;`,
          'a URL they reference must be bundled or registered). With `https://www.w3.org/ns/credentials/v2` among them (JSON-LD only),',
          'the credential follows data model 2.0: that context first, `validFrom`/`validUntil`.',
        ].join(' '),
      }),
    undefinedTerms: z
      .enum(['vocab', 'reject'])
      .optional()
      .meta({
        description: [
          'JSON-LD terms no context defines: `vocab` signs them under `https://www.w3.org/ns/credentials/undefined-terms/v2`,',
          'appended last to `@context` only when a claim needs it; `reject` refuses such a claim (422).',
          'Default: the service’s (`vocab` unless configured otherwise).',
        ].join(' '),
      }),
    type: oneOrMany(typeName, 20).optional().meta({ description: 'Type(s) after `VerifiableCredential`, for every claim.' }),
    sub: did.optional().meta({ description: 'Subject DID of the claims without their own.' }),
    status: statusRequest.optional(),
    ...expiration,
    claims: z.array(claimInput).min(1),
  })
  .superRefine(oneExpiration)
  .superRefine(cryptosuiteFitsProofType)
  .superRefine(mandatoryPointersFitCryptosuite)
  .superRefine((v, ctx) => {
    for (const field of ['proofType', 'cryptosuite', 'mandatoryPointers', 'undefinedTerms'] as const) {
      if (v[field] === undefined || v.format === 'JSON-LD') continue
      ctx.addIssue({ code: 'custom', path: [field], message: 'only for JSON-LD credentials' })
    }
  })
  .superRefine(claimFitsFormat)

export type SignClaimsInput = z.output<typeof signClaims>
export type ClaimInput = SignClaimsInput['claims'][number]

/** A compact SD-JWT VC (`<issuer-signed JWT>~<disclosure>~…~`). */
export const sdJwtCompact = z
  .string()
  .min(1)
  .max(SD_JWT_BOUNDS.compactChars)
  .meta({ description: 'An SD-JWT VC in compact form (`<issuer-signed JWT>~<disclosure>~…~`).' })

/** A credential as JSON-LD or as a JWT (or, to verify, an SD-JWT VC). */
const credentialItem = z.union([
  z.strictObject({ jsonld: jsonObject.meta({ description: 'A JSON-LD verifiable credential.' }) }),
  z.strictObject({ jwt: z.string().min(1).max(100_000).meta({ description: 'A VC-JWT.' }) }),
])

/** A credential to verify: JSON-LD, a VC-JWT or an SD-JWT VC. */
const verifyItem = z.union([...credentialItem.options, z.strictObject({ sdjwt: sdJwtCompact })])

/** The credentials of a verify (or patch) request: in `claims` (the spec's examples) or `vcs` (its field table). */
const credentialBatch = {
  resolver: resolverName.optional(),
  claims: z.array(verifyItem).min(1).optional().meta({ description: 'The credentials (or give them as `vcs`).' }),
  vcs: z.array(verifyItem).min(1).optional().meta({ description: 'The credentials (or give them as `claims`).' }),
}

/** Exactly one of `claims` and `vcs`. */
function oneBatch(v: { claims?: unknown; vcs?: unknown }, ctx: z.RefinementCtx): void {
  if ((v.claims === undefined) === (v.vcs === undefined))
    ctx.addIssue({ code: 'custom', path: ['claims'], message: 'give the credentials in exactly one of `claims` and `vcs`' })
}

/** A credential to add a proof to, or remove proofs from: a stored one (`_id`), or one given (`jsonld`; a JWT is refused with 422). */
const proofItem = z.union([
  z.strictObject({ _id: z.string().min(1).max(200).meta({ description: 'A stored credential’s `_id`.' }) }),
  z.strictObject({
    jsonld: jsonObject.meta({ description: 'A JSON-LD credential; stored records of the tenant with the same `id` are updated too.' }),
  }),
  z.strictObject({
    jwt: z.string().min(1).max(100_000).meta({ description: 'A VC-JWT: refused per item (a JWT cannot take a second proof).' }),
  }),
])

const proofBatch = {
  resolver: resolverName.optional(),
  claims: z.array(proofItem).min(1).optional().meta({ description: 'The credentials (or give them as `vcs`).' }),
  vcs: z.array(proofItem).min(1).optional().meta({ description: 'The credentials (or give them as `claims`).' }),
}

const addProofFields = {
  ...proofBatch,
  iss: did.optional().meta({
    description:
      'The DID that signs the new proof: a wallet of the tenant the caller controls (default: the first DID the caller acts through).',
  }),
  ...proofSuiteFields,
  ...mandatoryPointersField,
}

/**
 * Add Proofs (`POST /claims/proofs`, or `PATCH /claims` with `operation: "addProof"`). The three
 * operations of `PATCH /claims` are three operations sharing that route (DESIGN §4 `PATCH /claims`):
 * each input names its `operation`, optional on its own route.
 */
export const addProofs = z
  .strictObject({ operation: z.literal('addProof').optional(), ...addProofFields })
  .superRefine(oneBatch)
  .superRefine(cryptosuiteFitsProofType)
  .superRefine(mandatoryPointersFitCryptosuite)
/** Remove the caller's proofs (`PATCH /claims` with `operation: "removeProof"`, extension). */
export const removeProofs = z.strictObject({ operation: z.literal('removeProof').optional(), ...proofBatch }).superRefine(oneBatch)

export type AddProofInput = z.output<typeof addProofs>
export type RemoveProofInput = z.output<typeof removeProofs>

/** Verify (`POST /claims/verify`, or `PATCH /claims` with `operation: "verify"`). */
export const verifyClaims = z.strictObject({ operation: z.literal('verify').optional(), ...credentialBatch }).superRefine(oneBatch)

export type VerifyClaimsInput = z.output<typeof verifyClaims>

/**
 * Why a status check failed: the bit is set (`revoked`, `suspended`); the entry is of a type not
 * read, malformed, or of a `statusSize` other than 1; its list is of an origin not allowed, cannot
 * be had, is malformed, does not verify, has another issuer or purpose, or is shorter than the index;
 * the request reads too many lists of other origins (`tooManyLists`) or its status checks passed
 * their deadline (`requestDeadline`).
 */
export const STATUS_FAILURES = [
  'revoked',
  'suspended',
  'unsupportedEntry',
  'malformedEntry',
  'statusSize',
  'originNotAllowed',
  'listUnavailable',
  'malformedList',
  'listNotVerified',
  'issuerMismatch',
  'purposeMismatch',
  'indexOutOfRange',
  'tooManyLists',
  'requestDeadline',
] as const

export type StatusFailure = (typeof STATUS_FAILURES)[number]

/** What one verification check found (DESIGN §4 *Verify result*). */
export const verificationCheck = z
  .strictObject({
    check: z.enum([
      'format',
      'bounds',
      'keys',
      'deadline',
      'proof',
      'issuerProof',
      'signature',
      'issuanceDate',
      'expirationDate',
      'validFrom',
      'validUntil',
      'exp',
      'nbf',
      'status',
      // SD-JWT VC (docs/credentials.md, *SD-JWT VC*); the key-binding ones for its presentations.
      'typ',
      'alg',
      'sd_alg',
      'disclosures',
      'vct',
      'iat',
      'kb',
      'kbSignature',
      'sd_hash',
      'nonce',
      'aud',
      'kbIat',
    ]),
    verified: z.boolean(),
    proof: z.number().int().optional().meta({ description: 'Index of the proof in the proof set (`check: "proof"`).' }),
    type: z.string().optional().meta({ description: 'The proof’s type, or the status entry’s (`check: "status"`).' }),
    verificationMethod: z.string().optional().meta({ description: 'The proof’s `creator` / `verificationMethod`.' }),
    did: z
      .string()
      .optional()
      .meta({
        description:
          'The DID whose key the proof names, which signed it when it verifies (`check: "proof"`, when its method is a DID ' +
          'URL naming a key).',
      }),
    entry: z.number().int().optional().meta({ description: 'Index of the entry in `credentialStatus` (`check: "status"`).' }),
    purpose: z.string().optional().meta({ description: 'The status entry’s `statusPurpose`.' }),
    statusListCredential: z.string().optional().meta({ description: 'The status list the entry names.' }),
    statusListIndex: z.string().optional().meta({ description: 'The entry’s index in that list.' }),
    value: z.boolean().optional().meta({ description: 'Whether the entry’s bit is set (a status check that read its list).' }),
    reason: z.enum(STATUS_FAILURES).optional().meta({ description: 'Why a status check failed.' }),
    error: z.string().optional(),
  })
  .meta({ id: 'VerificationCheck' })

const verifiedFields = {
  format: elementFormat,
  verified: z.boolean(),
  issuer: z.string().nullable().meta({ description: 'The issuer DID the credential names (null when it names none).' }),
  checks: z.array(verificationCheck),
  error: z.string().optional().meta({ description: 'The first failed check, when not verified.' }),
}

export const verifiedCredential = z
  .union([
    z.strictObject({ jsonld: jsonObject, ...verifiedFields }),
    z.strictObject({ jwt: z.string(), ...verifiedFields }),
    z.strictObject({
      sdjwt: z.string(),
      ...verifiedFields,
      disclosed: jsonObject
        .optional()
        .meta({ description: 'When verified: the payload with the disclosures applied and `_sd`, `_sd_alg`, `cnf` removed.' }),
    }),
  ])
  .meta({ id: 'VerifiedCredential' })

export const verifyClaimsResponse = z.strictObject({
  resolver: z.string().meta({ description: 'The resolver used.' }),
  vcs: z.array(verifiedCredential),
})

const signedFields = {
  id: z.string().meta({ description: 'The credential’s id: the claim’s `id`, or its new claim DID.' }),
  registry: registryReport.optional().meta({ description: 'What the registry did with the claim’s `walletConfig` on its new claim DID.' }),
}

export const signedCredential = z
  .union([
    z.strictObject({ ...signedFields, jsonld: jsonObject }),
    z.strictObject({ ...signedFields, jwt: z.string() }),
    z.strictObject({
      id: z.string().optional().meta({ description: 'The claim’s `id`, echoed when given (an SD-JWT claim gets no claim DID).' }),
      sdjwt: z.string().meta({ description: 'The SD-JWT VC, compact (`<issuer-signed JWT>~<disclosure>~…~`).' }),
    }),
  ])
  .meta({ id: 'SignedCredential' })

export const signClaimsResponse = z.strictObject({
  resolver: z.string().meta({ description: 'The resolver used.' }),
  vcs: z.array(signedCredential),
})

export type VerificationCheck = z.infer<typeof verificationCheck>
export type VerifiedCredential = z.infer<typeof verifiedCredential>
export type SignedCredential = z.infer<typeof signedCredential>

// ---- Store, fetch, delete (DESIGN §4 *Store VCs*, *Stored VC read access*, *VC write access*)

const roleDids = z.array(did).max(100)
const storeAccess = {
  isPublicAccess: z
    .boolean()
    .optional()
    .meta({ description: 'Anyone of the tenant may read it (read only). Overrides the top-level value.' }),
  roles: roleDids.optional().meta({ description: 'Role DIDs of the tenant granting access; added to the top-level `roles`.' }),
}

const storeItem = z.union([
  z.strictObject({ jsonld: jsonObject.meta({ description: 'A JSON-LD verifiable credential.' }), ...storeAccess }),
  z.strictObject({ jwt: z.string().min(1).max(100_000).meta({ description: 'A VC-JWT.' }), ...storeAccess }),
  z.strictObject({
    sdjwt: sdJwtCompact.meta({
      description:
        'An SD-JWT VC with its disclosures (no key binding JWT: a presentation is refused). Its disclosures are stored ' +
        'sealed and shown only to those who may read the record.',
    }),
    ...storeAccess,
  }),
])

export const storeClaims = z.strictObject({
  resolver: resolverName.optional(),
  claims: z.array(storeItem).min(1),
  isPublicAccess: z.boolean().optional().meta({ description: 'Default of the claims’ `isPublicAccess` (default false).' }),
  roles: roleDids.optional().meta({
    description:
      'Role DIDs of the tenant for every claim. Each must be a role the caller manages (its creator or its DID’s owner); ' +
      'it is assigned to the credential’s DID.',
  }),
  verify: z
    .boolean()
    .optional()
    .meta({ description: 'Verify each credential first (as `POST /claims/verify`); an invalid one is an element of `errors`.' }),
})
export type StoreClaimsInput = z.output<typeof storeClaims>

const storedFields = {
  _id: z.string().meta({ description: 'The stored-VC identifier (used to delete it).' }),
  id: z.string().nullable().meta({ description: 'The credential’s own `id` (a DID or URI), null when it has none.' }),
  format: elementFormat,
  isPublicAccess: z.boolean(),
  roles: z.array(z.string()),
  issuer: z.string().nullable(),
  subject: z.string().nullable(),
  type: z.array(z.string()),
  storedBy: z.array(z.string()),
  createdAt: z.string().meta({ description: 'ISO 8601.' }),
}

export const storedCredential = z
  .union([
    z.strictObject({ ...storedFields, jsonld: jsonObject }),
    z.strictObject({ ...storedFields, jwt: z.string() }),
    z.strictObject({
      ...storedFields,
      sdjwt: z.string().meta({ description: 'The SD-JWT VC as stored, with all its disclosures (compact `~` form).' }),
    }),
  ])
  .meta({ id: 'StoredCredential' })
export type StoredCredential = z.infer<typeof storedCredential>

const claimError = z.strictObject({ claim: z.number().int().meta({ description: 'Index of the item in the request.' }), error: errorBody })

export const storeClaimsResponse = z.strictObject({ resolver: z.string(), vcs: z.array(storedCredential), errors: z.array(claimError) })

const commaList = z
  .union([z.string().max(20_000), z.array(z.string())])
  .transform((v) => (Array.isArray(v) ? v : v.split(',')).map((s) => s.trim()).filter((s) => s.length > 0))
  .pipe(z.array(z.string().min(1).max(2_000)).max(100))

export const getClaimsQuery = z.strictObject({
  resolver: resolverName.optional(),
  subject: did.optional().meta({ description: 'The credential subject’s DID.' }),
  issuer: did.optional().meta({ description: 'The issuer’s DID.' }),
  ids: commaList.optional().meta({ description: 'Comma-separated credential ids (claim DIDs or URIs), at most 100.' }),
  type: typeName.optional().meta({ description: 'A type the credential has.' }),
  format: z
    .string()
    .regex(anyCase('json-ld', 'jwt', 'sd-jwt', 'vc-jose'), 'must be JSON-LD, JWT, SD-JWT or VC-JOSE')
    .transform((v) => v.toUpperCase() as 'JSON-LD' | 'JWT' | 'SD-JWT' | 'VC-JOSE')
    .optional()
    .meta({ description: 'The credential’s format, as Fetch reports it: `JSON-LD`, `JWT`, `SD-JWT` or `VC-JOSE` (any letter case).' }),
  status: z
    .enum(CREDENTIAL_STATUSES)
    .optional()
    .meta({
      description:
        'Its status in this service’s status lists: `revoked`, `suspended`, or `active` (neither, including credentials ' +
        'without status entries or with entries in lists of other services).',
    }),
  ...page,
})

export const claimsPage = z.strictObject({ resolver: z.string(), vcs: z.array(storedCredential), nextCursor })

export const deleteClaims = z.strictObject({
  resolver: resolverName.optional(),
  ids: z.array(z.string().min(1).max(200)).min(1).meta({ description: 'Stored-VC `_id`s.' }),
})

export const deleteClaimsResponse = z.strictObject({
  resolver: z.string(),
  vcs: z.array(storedCredential).meta({ description: 'The deleted credentials.' }),
  errors: z.array(z.strictObject({ _id: z.string(), error: errorBody })),
})

const patchedCredential = z
  .strictObject({ jsonld: jsonObject, _ids: z.array(z.string()).meta({ description: 'The stored records updated with it.' }) })
  .meta({ id: 'PatchedCredential' })

export const proofsResponse = z.strictObject({
  resolver: z.string(),
  vcs: z
    .array(patchedCredential)
    .meta({ description: 'The credentials with their new proof set, in request order (failed items left out).' }),
  errors: z.array(claimError),
})
