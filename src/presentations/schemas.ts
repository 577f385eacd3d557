/** Request and response schemas of the verifiable-presentation operations (`/presentations`). */
import * as z from 'zod'
import { anyCase, did } from '../operations/schemas.js'
import {
  cryptosuiteFitsProofType,
  disclosePointers,
  jsonObject,
  proofSuiteFields,
  resolverName,
  sdJwtCompact,
  selectionPointers,
  verifiedCredential,
} from '../credentials/schemas.js'
import { bindingOf, type Binding, type BindingFamily, type BindingNames } from './bindings.js'

/** Most credentials one presentation holds (docs/credentials.md *Presentations*). */
export const MAX_PRESENTED_CREDENTIALS = 1_000

/** A string a verifier binds a presentation to (`challenge`, `domain`, `nonce`, `aud`). */
const binding = (description: string) => z.string().min(1).max(500).meta({ description })

const jwtText = z.string().min(1).max(100_000)

/** A credential to present: a stored one the caller may read, or one given. */
const presentedCredential = z.union([
  z.strictObject({ _id: z.string().min(1).max(200).meta({ description: 'A stored credential’s `_id` the caller may read.' }) }),
  z.strictObject({ jwt: jwtText.meta({ description: 'A VC-JWT.' }) }),
  z.strictObject({ jsonld: jsonObject.meta({ description: 'A JSON-LD verifiable credential.' }) }),
  z.strictObject({ sdjwt: sdJwtCompact.meta({ description: 'An SD-JWT VC (format `SD-JWT` only), without key binding JWT.' }) }),
])

/** `format` of a presentation, case-insensitive. */
const format = z
  .string()
  .regex(anyCase('json-ld', 'jwt', 'sd-jwt', 'vc-jose'), 'must be JSON-LD, JWT, SD-JWT or VC-JOSE')
  .transform((v) => v.toUpperCase() as 'JSON-LD' | 'JWT' | 'SD-JWT' | 'VC-JOSE')
  .meta({
    description:
      '`JSON-LD`, `JWT`, `SD-JWT` (an SD-JWT VC with a key binding JWT) or `VC-JOSE` (a `vp+jwt` holding VC-JOSE credentials ' +
      'as `EnvelopedVerifiableCredential`s), any letter case.',
  })

/** Most audiences one VP-JWT names. */
const MAX_AUDIENCES = 20

/** How long a presentation may live: a year, in milliseconds. */
const MAX_PRESENTATION_LIFETIME_MS = 365 * 24 * 3600 * 1000

/**
 * The binding fields of a request, both families' names (`bindings.ts`): a VP-JWT takes
 * `challenge` as `nonce` and `domain` as `aud`, a JSON-LD presentation `nonce` as `challenge` and
 * a single `aud` as `domain`.
 */
const bindingFields = (role: 'sign' | 'verify') => ({
  challenge: binding(
    role === 'sign'
      ? 'The verifier’s challenge: a JSON-LD proof’s `challenge` (required for JSON-LD), a VP-JWT’s `nonce`. Same as `nonce`.'
      : 'The challenge the presentation must answer: a JSON-LD proof’s `challenge`, a VP-JWT’s `nonce`. Same as `nonce`.',
  ).optional(),
  domain: binding(
    role === 'sign'
      ? 'The verifier’s domain: a JSON-LD proof’s `domain`, a VP-JWT’s `aud`. Same as `aud`.'
      : 'The domain the presentation must name: a JSON-LD proof’s `domain`, an audience of a VP-JWT’s `aud`. Same as `aud`.',
  ).optional(),
  nonce: binding(
    role === 'sign'
      ? 'The verifier’s nonce: a VP-JWT’s `nonce` claim, a JSON-LD proof’s `challenge`. Same as `challenge`.'
      : 'The nonce the presentation must carry: a VP-JWT’s `nonce`, a JSON-LD proof’s `challenge`. Same as `challenge`.',
  ).optional(),
  aud:
    role === 'sign'
      ? z
          .union([binding('The audience.'), z.array(binding('An audience.')).min(1).max(MAX_AUDIENCES)])
          .optional()
          .meta({
            description:
              'The audience: a VP-JWT’s `aud` claim (a list: every one), a JSON-LD proof’s `domain` ' +
              '(one only: a list is 422). Same as `domain`.',
          })
      : binding(
          'The audience the verifier is: one that a VP-JWT’s `aud` must name, a JSON-LD proof’s `domain`. Same as `domain`.',
        ).optional(),
})

/** The binding's 422s (`bindingOf`) as the schema's issues, each naming its field. */
function bindingIssues(family: BindingFamily, names: BindingNames, ctx: z.RefinementCtx): Binding {
  const { binding, issues } = bindingOf(family, names)
  for (const issue of issues) ctx.addIssue({ code: 'custom', path: [issue.path], message: issue.message })
  return binding
}

export const signPresentation = z
  .strictObject({
    holder: did.optional().meta({
      description:
        'The holder: a wallet DID of the caller’s tenant that the caller controls (as `iss` of Sign); required but for ' +
        '`SD-JWT`, where it is optional and, when given, a DID whose current `authentication` holds the credential’s `cnf.jwk`.',
    }),
    vcs: z
      .array(presentedCredential)
      .min(1)
      .max(MAX_PRESENTED_CREDENTIALS, `at most ${MAX_PRESENTED_CREDENTIALS} credentials per presentation`)
      .meta({ description: `The credentials, in order (at most ${MAX_PRESENTED_CREDENTIALS}).` }),
    format,
    ...proofSuiteFields,
    resolver: resolverName.optional(),
    ...bindingFields('sign'),
    expiresIn: z.number().int().min(1).max(MAX_PRESENTATION_LIFETIME_MS).optional().meta({
      description: 'Milliseconds until the presentation expires (JWT `exp`, in whole seconds; JSON-LD proof `expires`). None: no expiry.',
    }),
    disclose: disclosePointers.optional().meta({
      description:
        '`SD-JWT` only: JSON pointers (`/address/locality`) of the claims shown, each with everything beneath it; a pointer ' +
        'the credential cannot disclose is 422. Default `[]`: only the always-visible claims.',
    }),
  })
  .superRefine((v, ctx) => {
    // Refinements run on a body with other issues too: the binding is read only once the format is known.
    cryptosuiteFitsProofType(v, ctx)
    for (const field of ['proofType', 'cryptosuite'] as const)
      if (v[field] !== undefined && v.format !== 'JSON-LD')
        ctx.addIssue({ code: 'custom', path: [field], message: 'only for JSON-LD presentations' })
    if (v.format === 'SD-JWT') return sdJwtPresentationIssues(v, ctx)
    if (v.format !== 'JWT' && v.format !== 'JSON-LD' && v.format !== 'VC-JOSE') return
    if (v.holder === undefined) ctx.addIssue({ code: 'custom', path: ['holder'], message: 'required' })
    if (v.disclose !== undefined) ctx.addIssue({ code: 'custom', path: ['disclose'], message: 'for an SD-JWT presentation only' })
    for (const [i, vc] of (Array.isArray(v.vcs) ? v.vcs : []).entries())
      if (typeof vc === 'object' && vc !== null && 'sdjwt' in vc)
        ctx.addIssue({ code: 'custom', path: ['vcs', i], message: 'an SD-JWT VC is presented with format SD-JWT only' })
    // A VC-JOSE presentation is a JWT: its binding is the JWT claims `nonce` and `aud`.
    const bound = bindingIssues(v.format === 'VC-JOSE' ? 'JWT' : v.format, v, ctx)
    if (v.format === 'JSON-LD' && bound.challenge === undefined)
      ctx.addIssue({ code: 'custom', path: ['challenge'], message: 'a JSON-LD presentation needs the verifier’s challenge (or nonce)' })
  })

/**
 * What an `SD-JWT` presentation needs: one credential (`{ sdjwt }` or `{ _id }`), the verifier's nonce and a single
 * audience (either name), no `expiresIn` (the KB-JWT's age is judged by its verifier from `iat`).
 */
function sdJwtPresentationIssues(v: BindingNames & { vcs?: unknown; expiresIn?: unknown; disclose?: unknown }, ctx: z.RefinementCtx): void {
  const issue = (path: PropertyKey[], message: string) => ctx.addIssue({ code: 'custom', path, message })
  const vcs = Array.isArray(v.vcs) ? (v.vcs as object[]) : []
  if (vcs.length !== 1) issue(['vcs'], 'an SD-JWT presentation holds exactly one credential')
  for (const [i, vc] of vcs.entries())
    if (typeof vc === 'object' && vc !== null && !('sdjwt' in vc) && !('_id' in vc))
      issue(['vcs', i], 'an SD-JWT presentation holds an SD-JWT VC: `{ sdjwt }` or a stored one’s `{ _id }`')
  if (v.expiresIn !== undefined) issue(['expiresIn'], 'an SD-JWT presentation has no expiry: its verifier judges the KB-JWT’s iat')
  const bound = bindingIssues('JWT', v, ctx)
  if (bound.challenge === undefined) issue(['nonce'], 'an SD-JWT presentation needs the verifier’s nonce (or challenge)')
  if (bound.domain === undefined) issue(['aud'], 'an SD-JWT presentation needs the verifier’s audience (aud, or domain)')
  else if (Array.isArray(bound.domain)) issue(['aud'], 'a KB-JWT names one audience: give a single aud')
}

export type SignPresentationInput = z.output<typeof signPresentation>

/** Derive a credential (`POST /presentations/derive`): a given or stored credential with a selective-disclosure base proof. */
export const deriveCredential = z
  .strictObject({
    jsonld: jsonObject.optional().meta({ description: 'A JSON-LD credential with an ecdsa-sd-2023 base proof (or `_id`).' }),
    _id: z.string().min(1).max(200).optional().meta({ description: 'A stored credential’s `_id` the caller may read (or `jsonld`).' }),
    selectivePointers: selectionPointers.meta({
      description:
        'JSON pointers (`/credentialSubject/degree/name`) of the claims revealed besides the mandatory ones; a pointer that ' +
        'selects nothing is 422. `[]`: the mandatory claims only.',
    }),
  })
  .superRefine((v, ctx) => {
    if ((v.jsonld === undefined) === (v._id === undefined))
      ctx.addIssue({ code: 'custom', path: ['jsonld'], message: 'give exactly one of jsonld and _id' })
  })

export type DeriveCredentialInput = z.output<typeof deriveCredential>

export const deriveCredentialResponse = z.strictObject({
  jsonld: jsonObject.meta({ description: 'The derived credential: the mandatory and selected claims, with a derived proof.' }),
})
export type PresentedCredential = SignPresentationInput['vcs'][number]

/** A presentation in either form; a VP-JWT within the body-size bound (it holds up to 1,000 credentials). */
export const presentation = z.union([
  z.strictObject({ jwt: z.string().min(1).max(2_000_000).meta({ description: 'A VP-JWT.' }) }),
  z.strictObject({ jsonld: jsonObject.meta({ description: 'A JSON-LD verifiable presentation.' }) }),
  z.strictObject({
    sdjwt: sdJwtCompact.meta({ description: 'An SD-JWT VC presentation: `<issuer-signed JWT>~<disclosure>~…~<KB-JWT>`.' }),
  }),
])

export const signPresentationResponse = z.strictObject({
  presentation: z.union([
    z.strictObject({ jwt: z.string() }),
    z.strictObject({ jsonld: jsonObject }),
    z.strictObject({ sdjwt: z.string() }),
  ]),
})

export const verifyPresentation = z
  .strictObject({
    presentation,
    resolver: resolverName.optional(),
    ...bindingFields('verify'),
    holderBinding: z.boolean().optional().meta({ description: 'Require each credential’s subject to be the holder.' }),
  })
  .superRefine((v, ctx) => {
    // Refinements run on a body with other issues too: the binding is read only once the presentation's form is known.
    const form = v.presentation as Partial<Record<'jwt' | 'jsonld' | 'sdjwt', unknown>> | undefined
    if (typeof form?.sdjwt === 'string') {
      const bound = bindingIssues('JWT', v, ctx)
      if (bound.challenge === undefined)
        ctx.addIssue({ code: 'custom', path: ['nonce'], message: 'required: the nonce the KB-JWT must carry' })
      if (bound.domain === undefined)
        ctx.addIssue({ code: 'custom', path: ['aud'], message: 'required: the audience the KB-JWT must name' })
      if (v.holderBinding !== undefined)
        ctx.addIssue({ code: 'custom', path: ['holderBinding'], message: 'an SD-JWT presentation’s holder binding is its key binding' })
    } else if (typeof form?.jwt === 'string') bindingIssues('JWT', v, ctx)
    else if (typeof form?.jsonld === 'object') bindingIssues('JSON-LD', v, ctx)
  })

export type VerifyPresentationInput = z.output<typeof verifyPresentation>

/** What one check of a presentation found. */
export const presentationCheck = z
  .strictObject({
    check: z.enum([
      'format',
      'bounds',
      'keys',
      'deadline',
      'credentials',
      'proof',
      'signature',
      'holder',
      'proofPurpose',
      'challenge',
      'domain',
      'nonce',
      'aud',
      'expires',
      'exp',
      'nbf',
      'credential',
      'holderBinding',
      // SD-JWT: the key binding JWT (docs/credentials.md *SD-JWT VC*).
      'kb',
      'kbSignature',
      'sd_hash',
      'kbIat',
    ]),
    verified: z.boolean(),
    credential: z.number().int().optional().meta({ description: 'Index of the credential (`credential`, `holderBinding`).' }),
    verificationMethod: z.string().optional().meta({ description: 'The key that made the proof or signature.' }),
    error: z.string().optional(),
  })
  .meta({ id: 'PresentationCheck' })

export type PresentationCheck = z.infer<typeof presentationCheck>

export const verifyPresentationResponse = z.strictObject({
  resolver: z.string().meta({ description: 'The resolver used.' }),
  verified: z.boolean(),
  holder: z.string().nullable().meta({ description: 'The holder DID the presentation names (null when it names none).' }),
  checks: z.array(presentationCheck),
  error: z.string().optional().meta({ description: 'The first failed check, when not verified.' }),
  vcs: z.array(verifiedCredential).meta({ description: 'Each embedded credential’s result, as `POST /claims/verify` gives it.' }),
})

export type VerifyPresentationResponse = z.output<typeof verifyPresentationResponse>
