/** Request and response schemas of the verifiable-presentation operations (`/presentations`). */
import * as z from 'zod'
import { did } from '../operations/schemas.js'
import { format as credentialFormat, jsonObject, resolverName, verifiedCredential } from '../credentials/schemas.js'
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
])

const format = credentialFormat.meta({ description: '`JSON-LD` or `JWT`, any letter case.' })

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
    holder: did.meta({ description: 'The holder: a wallet DID of the caller’s tenant that the caller controls (as `iss` of Sign).' }),
    vcs: z
      .array(presentedCredential)
      .min(1)
      .max(MAX_PRESENTED_CREDENTIALS, `at most ${MAX_PRESENTED_CREDENTIALS} credentials per presentation`)
      .meta({ description: `The credentials, in order (at most ${MAX_PRESENTED_CREDENTIALS}).` }),
    format,
    resolver: resolverName.optional(),
    ...bindingFields('sign'),
    expiresIn: z.number().int().min(1).max(MAX_PRESENTATION_LIFETIME_MS).optional().meta({
      description: 'Milliseconds until the presentation expires (JWT `exp`, in whole seconds; JSON-LD proof `expires`). None: no expiry.',
    }),
  })
  .superRefine((v, ctx) => {
    // Refinements run on a body with other issues too: the binding is read only once the format is known.
    if (v.format !== 'JWT' && v.format !== 'JSON-LD') return
    const bound = bindingIssues(v.format, v, ctx)
    if (v.format === 'JSON-LD' && bound.challenge === undefined)
      ctx.addIssue({ code: 'custom', path: ['challenge'], message: 'a JSON-LD presentation needs the verifier’s challenge (or nonce)' })
  })

export type SignPresentationInput = z.output<typeof signPresentation>
export type PresentedCredential = SignPresentationInput['vcs'][number]

/** A presentation in either form; a VP-JWT within the body-size bound (it holds up to 1,000 credentials). */
export const presentation = z.union([
  z.strictObject({ jwt: z.string().min(1).max(2_000_000).meta({ description: 'A VP-JWT.' }) }),
  z.strictObject({ jsonld: jsonObject.meta({ description: 'A JSON-LD verifiable presentation.' }) }),
])

export const signPresentationResponse = z.strictObject({
  presentation: z.union([z.strictObject({ jwt: z.string() }), z.strictObject({ jsonld: jsonObject })]),
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
    const form = v.presentation as Partial<Record<'jwt' | 'jsonld', unknown>> | undefined
    if (typeof form?.jwt === 'string') bindingIssues('JWT', v, ctx)
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
