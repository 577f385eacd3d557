/**
 * Verify a Verifiable Presentation (`POST /presentations/verify`). Every finding is a named
 * check; an invalid presentation is `verified: false` in the 200, never an error.
 *
 * - JWT: a VP-JWT (`format`) signed (`signature`) by an `authentication` key of the holder's
 *   (`iss`) current DID document — the service's verifier first (OpenSSL for keys it knows), what
 *   it does not accept decided by did-jwt-vc's `verifyPresentation` —; `nonce` and `aud` as the
 *   request expects, by either name (`challenge`, `domain`: `bindings.ts`; a presentation naming an
 *   audience needs the request's); `nbf`/`exp`.
 * - VC-JOSE: a `vp+jwt` whose payload is a VCDM 2.0 presentation (`format`) with its credentials as
 *   `EnvelopedVerifiableCredential`s (`data:application/vc+jwt,<jws>`), signed (`signature`) by an `authentication` key
 *   of its `holder` that `kid` names; `nonce`, `aud`, `nbf`, `exp` as for a VP-JWT.
 * - JSON-LD: within the JSON-LD bounds (`bounds`, `keys`), a `VerifiablePresentation` with a
 *   `holder` (`format`), proofs verified (`proof`) with at least one by an `authentication` key
 *   of the holder, purpose `authentication` (`proofPurpose`), the request's `challenge` and
 *   `domain` (or `nonce`, `aud`: `bindings.ts`), and its `expires` not past.
 *
 * - SD-JWT: the KB-JWT (the format's key-binding checks: `kb` — present, `typ: kb+jwt`, an accepted algorithm —,
 *   `kbSignature` by the credential's `cnf.jwk`, `sd_hash` over the presented SD-JWT, `nonce`, `aud`, `kbIat` within
 *   the last 300 seconds, 60 s skew); the credential it presents (with the chosen disclosures) is verified as below,
 *   its `disclosed` claims in `vcs[0]`. It names no holder DID (`holder` is null): its holder is a key.
 *
 * Every embedded credential is then verified by the very function `POST /claims/verify` runs,
 * one credential at a time, its result given in `vcs` and summed up as a `credential` check; a
 * credential naming a context that is not bundled (a 422 there) is a failed `format` result here.
 * With `holderBinding`, each credential's subject must be the holder (`holderBinding`).
 */
import { verifyPresentation as verifyVpJwt } from 'did-jwt-vc'
import type { Resolvable } from 'did-resolver'
import type { Caller } from '../auth/context.js'
import { principalOf } from '../did/methods/ethr/index.js'
import type { NamedResolver } from '../did/named-resolvers.js'
import { decodeJwt, verifyDidJwt } from '../proofs/jwt-verifier.js'
import { JsonLdBoundsError, jsonLdBoundsError } from '../proofs/jsonld/bounds.js'
import { JsonLdDeadlineError, shown } from '../proofs/jsonld/errors.js'
import { noIssuerProof } from '../proofs/jsonld/proof-set.js'
import { UnknownContextError, proofsOf, verifyJsonLd, type JsonLdDocument, type SigningKey } from '../proofs/jsonld/index.js'
import { signingKeysResolver } from '../proofs/signing-keys.js'
import { jsonLdHasher } from '../credentials/jsonld-work.js'
import { verifyClaimsWith } from '../credentials/verify.js'
import type { VerifiedCredential } from '../credentials/schemas.js'
import type { CredentialsContext } from '../credentials/context.js'
import {
  carriedBy,
  credentialFormatNamed,
  envelopedPresentationSignature,
  isEnvelopedPresentation,
  readEnvelopedPresentation,
  type CredentialStatusCheck,
} from '../credentials/formats/index.js'
import {
  MAX_PRESENTED_CREDENTIALS,
  type PresentationCheck,
  type VerifyPresentationInput,
  type VerifyPresentationResponse,
} from './schemas.js'
import { jsonLdBinding, jwtBinding } from './bindings.js'

type Context = Pick<CredentialsContext, 'config' | 'jsonld' | 'keys' | 'now' | 'resolvers' | 'status'>
type Item = { jwt: string } | { jsonld: JsonLdDocument } | { sdjwt: string }

/** What the presentation's own checks found: its holder, checks, and the credentials it holds. */
interface Findings {
  holder: string | null
  checks: PresentationCheck[]
  credentials: Item[]
}

const SKEW_SECONDS = 60

export async function verifyPresentation(
  ctx: Context,
  caller: Caller,
  input: VerifyPresentationInput,
): Promise<VerifyPresentationResponse> {
  // One resolver for the presentation and its credentials: one budget of did:web reads for the whole request.
  const named = ctx.resolvers.get(input.resolver)
  const { name, resolver } = named
  const found =
    'sdjwt' in input.presentation
      ? await checkSdJwt(ctx, input.presentation.sdjwt, input)
      : 'jwt' in input.presentation
        ? await checkJwt(ctx, resolver, input.presentation.jwt, input)
        : await checkJsonLd(ctx, caller, resolver, input.presentation.jsonld, input)
  // One status budget for every credential of the presentation.
  const status = ctx.status?.forRequest()
  const vcs: VerifiedCredential[] = []
  for (const item of found.credentials) vcs.push(await verifyOne(ctx, caller, input, item, status, named))
  const checks = [...found.checks]
  for (const [i, vc] of vcs.entries())
    checks.push({ check: 'credential', credential: i, verified: vc.verified, ...(vc.error !== undefined && { error: vc.error }) })
  if (input.holderBinding === true) {
    for (const [i, item] of found.credentials.entries()) checks.push(holderBinding(i, item, found.holder))
  }
  const failed = checks.find((c) => !c.verified)
  const error = failed && `${failed.check}${failed.credential === undefined ? '' : ` ${failed.credential}`}: ${failed.error ?? 'failed'}`
  return { resolver: name, verified: failed === undefined, holder: found.holder, checks, ...(error !== undefined && { error }), vcs }
}

/** One embedded credential, through `POST /claims/verify`'s own function. */
async function verifyOne(
  ctx: Context,
  caller: Caller,
  input: VerifyPresentationInput,
  item: Item,
  status: CredentialStatusCheck | undefined,
  named: NamedResolver,
): Promise<VerifiedCredential> {
  try {
    const [result] = (await verifyClaimsWith(ctx, caller, { resolver: input.resolver, vcs: [item] }, status, named)).vcs
    return result
  } catch (err) {
    if (!(err instanceof UnknownContextError)) throw err
    return {
      ...item,
      format: carriedBy(item).format.name,
      verified: false,
      issuer: null,
      checks: [{ check: 'format', verified: false, error: err.message }],
      error: err.message,
    }
  }
}

const failedCheck = (check: PresentationCheck['check'], error: string): PresentationCheck => ({ check, verified: false, error })
const checkOf = (check: PresentationCheck['check'], ok: boolean, error: string): PresentationCheck =>
  ok ? { check, verified: true } : failedCheck(check, error)

/** The embedded credentials of a presentation (`verifiableCredential`), or why they cannot be read. */
function credentialsIn(value: unknown, jsonOnly: boolean): Item[] | string {
  const list = value === undefined ? [] : Array.isArray(value) ? value : [value]
  if (list.length > MAX_PRESENTED_CREDENTIALS) return `more than ${MAX_PRESENTED_CREDENTIALS} credentials`
  const items: Item[] = []
  for (const [i, vc] of list.entries()) {
    if (typeof vc === 'string' && !jsonOnly) items.push({ jwt: vc })
    else if (typeof vc === 'object' && vc !== null && !Array.isArray(vc)) items.push({ jsonld: vc as JsonLdDocument })
    else return `verifiableCredential ${i}: must be ${jsonOnly ? 'a JSON-LD credential' : 'a VC-JWT or a JSON-LD credential'}`
  }
  return items
}

/** An SD-JWT presentation's key binding; the credential it presents is verified with the others. */
async function checkSdJwt(ctx: Context, sdjwt: string, input: VerifyPresentationInput): Promise<Findings> {
  const { nonce, aud } = jwtBinding(input)
  const checks = await credentialFormatNamed('SD-JWT').keyBindingChecks!(sdjwt, { nonce: nonce!, aud: aud as string }, ctx.now())
  return { holder: null, checks: checks as PresentationCheck[], credentials: [{ sdjwt }] }
}

async function checkJwt(ctx: Context, resolver: Resolvable, jwt: string, input: VerifyPresentationInput): Promise<Findings> {
  if (isEnvelopedPresentation(jwt)) return checkVcJose(ctx, resolver, jwt, input)
  let payload: Record<string, unknown>
  try {
    payload = decodeJwt(jwt).payload
  } catch {
    return { holder: null, checks: [failedCheck('format', 'not a JWT')], credentials: [] }
  }
  const holder = typeof payload.iss === 'string' ? payload.iss : null
  const vp = payload.vp as Record<string, unknown> | undefined
  const types = vp === undefined || vp === null ? [] : [vp.type].flat()
  const credentials = typeof vp === 'object' && vp !== null ? credentialsIn(vp.verifiableCredential, false) : 'vp: missing'
  const shape = !types.includes('VerifiablePresentation') ? 'vp.type: must include VerifiablePresentation' : credentials
  if (typeof shape === 'string' || typeof credentials === 'string')
    return { holder, checks: [failedCheck('format', typeof shape === 'string' ? shape : 'malformed')], credentials: [] }
  const checks: PresentationCheck[] = [await signatureCheck(ctx, resolver, jwt)]
  const named = holderNamed(payload, vp ?? {})
  if (named !== undefined) checks.push(holderCheck(named, holder))
  return { holder, checks: [...checks, ...jwtClaimChecks(ctx, payload, input)], credentials }
}

/**
 * A VC-JOSE presentation (`vp+jwt`, `format`): a VCDM 2.0 presentation whose credentials are enveloped VC-JOSE ones,
 * signed (`signature`) by an `authentication` key of its `holder` that `kid` names; then its JWT claims as a VP-JWT's.
 */
async function checkVcJose(ctx: Context, resolver: Resolvable, jwt: string, input: VerifyPresentationInput): Promise<Findings> {
  const read = readEnvelopedPresentation(jwt, MAX_PRESENTED_CREDENTIALS)
  if (!read.ok) return { holder: read.holder, checks: [failedCheck('format', read.error)], credentials: [] }
  const signed = await envelopedPresentationSignature(jwt, read.holder, resolver)
  const signature: PresentationCheck = signed.verified
    ? { check: 'signature', verified: true, verificationMethod: signed.method }
    : failedCheck('signature', signed.error)
  const credentials = read.credentials.map((vc) => ({ jwt: vc }))
  return { holder: read.holder, checks: [signature, ...jwtClaimChecks(ctx, read.payload, input)], credentials }
}

/** The checks of a presentation JWT's claims: `nonce` and `aud` as the request expects (by either name), `nbf`, `exp`. */
function jwtClaimChecks(ctx: Context, payload: Record<string, unknown>, input: VerifyPresentationInput): PresentationCheck[] {
  const checks: PresentationCheck[] = []
  const expected = jwtBinding(input)
  if (expected.nonce !== undefined) checks.push(checkOf('nonce', payload.nonce === expected.nonce, 'does not match the expected nonce'))
  if (payload.aud !== undefined || expected.aud !== undefined) {
    const audiences = [payload.aud].flat()
    const error = expected.aud === undefined ? 'names an audience: give the expected `aud`' : 'does not name the expected audience'
    checks.push(checkOf('aud', expected.aud !== undefined && [expected.aud].flat().every((a) => audiences.includes(a)), error))
  }
  const now = Math.floor(ctx.now() / 1000)
  if (payload.nbf !== undefined)
    checks.push(checkOf('nbf', typeof payload.nbf === 'number' && payload.nbf <= now + SKEW_SECONDS, 'nbf is malformed or in the future'))
  if (payload.exp !== undefined)
    checks.push(checkOf('exp', typeof payload.exp === 'number' && payload.exp > now - SKEW_SECONDS, 'exp is malformed or has passed'))
  return checks
}

/** The holders a VP-JWT names besides its `iss` (`vp.holder`, a top-level `holder`), or undefined when it names none. */
function holderNamed(payload: Record<string, unknown>, vp: Record<string, unknown>): unknown[] | undefined {
  const named = [vp.holder, payload.holder].filter((h) => h !== undefined)
  return named.length === 0 ? undefined : named
}

/**
 * Every holder the VP-JWT names is its signer: the `iss` whose `authentication` key signed it
 * (compared as principals, so either spelling of a did:ethr key DID). A DID the signer merely
 * controls is not accepted: the holder is who signed.
 */
function holderCheck(named: unknown[], iss: string | null): PresentationCheck {
  const other = named.find((h) => typeof h !== 'string' || iss === null || principalOf(h) !== principalOf(iss))
  if (other === undefined) return { check: 'holder', verified: true }
  const shownHolder = typeof other === 'string' ? shown(other) : 'not a DID'
  return failedCheck('holder', `the holder it names (${shownHolder}) is not its signer (iss ${iss === null ? 'missing' : shown(iss)})`)
}

/** The VP-JWT's signature by an `authentication` key of its `iss`: the service's verifier, else did-jwt-vc's verdict. */
async function signatureCheck(ctx: Context, resolver: Resolvable, jwt: string): Promise<PresentationCheck> {
  try {
    const { signer } = await verifyDidJwt(jwt, {
      resolver,
      audience: false,
      checkTimes: false,
      proofPurpose: 'authentication',
      keys: ctx.keys,
    })
    return { check: 'signature', verified: true, verificationMethod: signer }
  } catch {
    // Not accepted natively (another algorithm, a key it cannot read): did-jwt-vc decides.
  }
  try {
    const policies = { now: Math.floor(ctx.now() / 1000), nbf: false, exp: false, iat: false, aud: false, format: false }
    const verified = await verifyVpJwt(jwt, resolver, { proofPurpose: 'authentication', policies })
    return { check: 'signature', verified: true, verificationMethod: verified.signer.id }
  } catch (err) {
    return failedCheck('signature', shown(err instanceof Error ? err.message : String(err)))
  }
}

async function checkJsonLd(
  ctx: Context,
  caller: Caller,
  resolver: Resolvable,
  vp: JsonLdDocument,
  input: VerifyPresentationInput,
): Promise<Findings> {
  const hasher = jsonLdHasher(ctx, caller)
  const holder = typeof vp.holder === 'string' ? vp.holder : null
  const refused = jsonLdBoundsError(vp, hasher.limits)
  if (refused !== undefined) return { holder, checks: [failedCheck(refused.check, refused.message)], credentials: [] }
  const credentials = credentialsIn(vp.verifiableCredential, true)
  const shape =
    vp['@context'] === undefined
      ? '@context: missing'
      : ![vp.type].flat().includes('VerifiablePresentation')
        ? 'type: must include VerifiablePresentation'
        : holder === null
          ? 'holder: missing'
          : typeof credentials === 'string'
            ? credentials
            : undefined
  if (shape !== undefined || holder === null || typeof credentials === 'string')
    return { holder, checks: [failedCheck('format', shape ?? 'malformed')], credentials: [] }
  const keys = signingKeysResolver(resolver, ctx.keys, 'authentication')
  let proofs: Awaited<ReturnType<typeof verifyJsonLd>>
  try {
    proofs = await verifyJsonLd(vp, { resolveSigningKeys: orNone(keys), resolver, proofPurpose: 'authentication', issuer: holder, hasher })
  } catch (err) {
    if (err instanceof JsonLdDeadlineError) return { holder, checks: [failedCheck('deadline', err.message)], credentials }
    if (err instanceof JsonLdBoundsError) return { holder, checks: [failedCheck(err.check, err.message)], credentials }
    if (err instanceof UnknownContextError) return { holder, checks: [failedCheck('format', err.message)], credentials }
    throw err
  }
  const checks: PresentationCheck[] =
    proofs.proofs.length === 0
      ? [failedCheck('proof', proofs.error ?? 'no proof')]
      : [
          {
            check: 'proof',
            verified: proofs.verified,
            // The proof set's "issuer" is the presentation's holder.
            ...(proofs.error !== undefined && { error: proofs.error === noIssuerProof(holder) ? noHolderProof(holder) : proofs.error }),
          },
        ]
  // The holder's proof: what the purpose, challenge, domain and expiry are read from (all signed).
  const ofHolder = proofsOf(vp).filter(
    (p, i): p is Record<string, unknown> => proofs.proofs[i]?.did === holder && typeof p === 'object' && p !== null,
  )
  const proof = ofHolder.find((p) => p.proofPurpose === 'authentication') ?? ofHolder[0] ?? {}
  checks.push(checkOf('proofPurpose', proof.proofPurpose === 'authentication', 'the holder’s proof is not for authentication'))
  const expected = jsonLdBinding(input)
  if (expected.challenge !== undefined)
    checks.push(checkOf('challenge', proof.challenge === expected.challenge, 'does not match the expected challenge'))
  if (expected.domain !== undefined) checks.push(checkOf('domain', proof.domain === expected.domain, 'does not match the expected domain'))
  if (proof.expires !== undefined) {
    const expires = typeof proof.expires === 'string' ? Date.parse(proof.expires) : Number.NaN
    checks.push(checkOf('expires', expires > ctx.now() - SKEW_SECONDS * 1000, 'expires is malformed or has passed'))
  }
  return { holder, checks, credentials }
}

/** The error of a presentation none of whose proofs is by its `holder`. */
const noHolderProof = (holder: string) => `no proof is by the holder ${shown(holder)}: the holder must sign its presentation`

/** Each subject of the credential is the holder (compared as principals). */
function holderBinding(index: number, item: Item, holder: string | null): PresentationCheck {
  const { format, encoded } = carriedBy(item)
  const subjects = format.subjects(encoded)
  const bound = holder !== null && subjects.length > 0 && subjects.every((s) => principalOf(s) === principalOf(holder))
  return bound
    ? { check: 'holderBinding', credential: index, verified: true }
    : { check: 'holderBinding', credential: index, verified: false, error: 'the credential’s subject is not the holder' }
}

/** A key lookup that treats a resolver failure as "no keys": the proof is then not verified. */
function orNone(lookup: (didUrl: string) => Promise<SigningKey[]>): (didUrl: string) => Promise<SigningKey[]> {
  return (didUrl) => lookup(didUrl).catch(() => [])
}
