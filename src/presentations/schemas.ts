/** Request and response schemas of the verifiable-presentation operations (`/presentations`). */
import * as z from 'zod'
import { did } from '../operations/schemas.js'
import { format as credentialFormat, jsonObject, resolverName, verifiedCredential } from '../credentials/schemas.js'

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
    challenge: binding('JSON-LD: the verifier’s challenge, signed into the `authentication` proof (required for JSON-LD).').optional(),
    domain: binding('JSON-LD: the domain the proof is restricted to.').optional(),
    nonce: binding('JWT: the verifier’s nonce (`nonce` claim).').optional(),
    aud: binding('JWT: the audience (`aud` claim).').optional(),
    expiresIn: z
      .number()
      .int()
      .min(1)
      .max(31_536_000)
      .optional()
      .meta({ description: 'Seconds until the presentation expires (JWT `exp`, JSON-LD proof `expires`). None: no expiry.' }),
  })
  .superRefine((v, ctx) => {
    const wrong = v.format === 'JWT' ? (['challenge', 'domain'] as const) : (['nonce', 'aud'] as const)
    for (const field of wrong) {
      if (v[field] !== undefined)
        ctx.addIssue({ code: 'custom', path: [field], message: `not for ${v.format} presentations (see challenge/domain, nonce/aud)` })
    }
    if (v.format === 'JSON-LD' && v.challenge === undefined)
      ctx.addIssue({ code: 'custom', path: ['challenge'], message: 'a JSON-LD presentation needs the verifier’s challenge' })
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

export const verifyPresentation = z.strictObject({
  presentation,
  resolver: resolverName.optional(),
  challenge: binding('JSON-LD: the challenge the proof must answer.').optional(),
  domain: binding('JSON-LD: the domain the proof must name.').optional(),
  nonce: binding('JWT: the `nonce` the presentation must carry.').optional(),
  aud: binding('JWT: an audience the presentation’s `aud` must name.').optional(),
  holderBinding: z.boolean().optional().meta({ description: 'Require each credential’s subject to be the holder.' }),
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
