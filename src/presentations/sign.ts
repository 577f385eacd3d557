/**
 * Sign a Verifiable Presentation (`POST /presentations/sign`). The holder's signer comes first,
 * by the rule of Sign Verifiable Credentials' `iss` (`issuerSigner`: a wallet of the tenant the
 * caller controls, 403 otherwise; an MPC wallet signs with its quorum's approvals). Stored
 * credentials are then read under the read rule — one the caller may not read is answered as one
 * that does not exist (422 NOT_FOUND) —, every input checked, and only then the presentation signed.
 * Nothing is written but its audit record (`presentation.sign`, before the presentation is returned;
 * a refusal is recorded by the dispatcher).
 *
 * The verifier's binding is read by the one rule of `bindings.ts` (either family's names), and
 * `expiresIn` is milliseconds, as everywhere.
 *
 * - JWT: a VP-JWT made by did-jwt-vc's `createVerifiablePresentationJwt` (ES256K), `nbf` now,
 *   `nonce` (or `challenge`), `aud` (or `domain`) and `exp` (now + `expiresIn`, in whole seconds, rounded
 *   down) as asked; it holds VC-JWTs as strings and JSON-LD credentials as objects.
 * - VC-JOSE: a `vp+jwt` JWS (`cty: vp`, `kid` the holder's key) whose payload is a VCDM 2.0 presentation holding each
 *   VC-JOSE credential as an `EnvelopedVerifiableCredential`, with the JWT claims `nonce`, `aud`, `iat`, `nbf` and `exp`
 *   as for a VP-JWT; it holds VC-JOSE credentials only.
 * - JSON-LD: an `EcdsaSecp256k1RecoverySignature2020` proof by `<holder>#controller`, purpose
 *   `authentication`, with `challenge` (or `nonce`), `domain` (or a single `aud`) and `expires`; canonicalized in the worker pool
 *   like credential signing. It holds JSON-LD credentials only (a VC-JWT has no JSON-LD form).
 * - SD-JWT: one SD-JWT VC with only the disclosures `disclose` needs and a KB-JWT (`nonce`, `aud`, `iat` now, `sd_hash`)
 *   by its holder key (`cnf.jwk`): the key of a wallet of the tenant the caller controls (`holder-key-signer.ts`, 403
 *   otherwise); a `holder` given must list that key under its current `authentication` (422 otherwise). The audit
 *   record names the holder (or that wallet's DID), never a disclosure.
 */
import type { Resolvable } from 'did-resolver'
import { createVerifiablePresentationJwt } from 'did-jwt-vc'
import type { z } from 'zod'
import type { Caller } from '../auth/context.js'
import { invalid, notFound } from '../errors.js'
import { normalizeDid } from '../did/methods/ethr/index.js'
import type { KeySigner } from '../keys/signer.js'
import { jwtIssuerOf, verificationMethodOf } from '../proofs/jwt-signer.js'
import {
  CREDENTIALS_V1_URL,
  CREDENTIALS_V2_URL,
  JsonLdProcessingError,
  signJsonLd,
  type JsonLdDocument,
  type ProofType,
} from '../proofs/jsonld/index.js'
import { DATA_INTEGRITY_NO_EXPIRES, suiteToSign } from '../proofs/suites/index.js'
import { DATA_INTEGRITY_PROOF } from '../proofs/jsonld/suite-names.js'
import { shown } from '../proofs/jsonld/errors.js'
import { issuerSigner } from '../credentials/sign.js'
import {
  carriedBy,
  credentialFormatNamed,
  isV2Credential,
  memberOf,
  signEnvelopedPresentation,
  type CredentialMember,
} from '../credentials/formats/index.js'
import { assertJsonLdInput, jsonLdHasher } from '../credentials/jsonld-work.js'
import { authenticationHoldsKey } from '../credentials/holder-key.js'
import { readerFacts } from '../credentials/reader-facts.js'
import type { ReaderFacts } from '../credentials/read-rule.js'
import { CREDENTIALS } from '../credentials/records.js'
import { storedMember } from '../credentials/stored.js'
import type { CredentialsContext } from '../credentials/context.js'
import { tenantCollections } from '../storage/declaration.js'
import { canPresentStoredCredential } from './policy.js'
import { holderKeySigner } from './holder-key-signer.js'
import { jsonLdBinding, jwtBinding } from './bindings.js'
import type { PresentedCredential, SignPresentationInput, signPresentationResponse } from './schemas.js'

type Context = Pick<
  CredentialsContext,
  'audit' | 'callers' | 'config' | 'custody' | 'jsonld' | 'now' | 'registries' | 'resolvers' | 'signers' | 'storage'
>
/** A credential as it goes into the presentation. */
type Credential = { jwt: string } | { jsonld: JsonLdDocument }

export async function signPresentation(
  ctx: Context,
  caller: Caller,
  input: SignPresentationInput,
): Promise<z.output<typeof signPresentationResponse>> {
  if (input.format === 'SD-JWT') {
    const { sdjwt, holder } = await signedSdJwt(ctx, caller, input)
    await ctx.audit.record(caller, [{ action: 'presentation.sign', target: { type: 'wallet', id: holder } }])
    return { presentation: { sdjwt } }
  }
  const presentation = await signed(ctx, caller, input as SignPresentationInput & { holder: string })
  await ctx.audit.record(caller, [{ action: 'presentation.sign', target: { type: 'wallet', id: normalizeDid(input.holder!) } }])
  return { presentation }
}

/** The SD-JWT presentation and the holder it is recorded under (`holder`, or the DID of the wallet whose key signed). */
async function signedSdJwt(ctx: Context, caller: Caller, input: SignPresentationInput): Promise<{ sdjwt: string; holder: string }> {
  const { resolver } = ctx.resolvers.get(input.resolver)
  const format = credentialFormatNamed('SD-JWT')
  const sdjwtOf = async (item: PresentedCredential): Promise<string> => {
    if (!('_id' in item)) {
      const { encoded } = carriedBy(item)
      format.checkInput(encoded, 'vcs.0.sdjwt', ctx.config.limits)
      return encoded as string
    }
    const member = await storedCredentialMember(ctx, caller, item._id, 'vcs.0._id')
    if (!('sdjwt' in member)) throw invalid('vcs.0._id: the stored credential is no SD-JWT VC (present it with format JSON-LD or JWT)')
    return member.sdjwt
  }
  const credential = await sdjwtOf(input.vcs[0])
  const { nonce, aud } = jwtBinding(input)
  let holder = input.holder === undefined ? undefined : normalizeDid(input.holder)
  const sdjwt = (await format.present!(credential, {
    disclose: input.disclose ?? [],
    nonce: nonce!,
    aud: aud as string,
    now: ctx.now(),
    holderSigner: async (jwk) => {
      if (input.holder !== undefined && !(await authenticationHoldsKey(input.holder, jwk, resolver)))
        throw invalid('holder: its current DID document lists no authentication key that is the credential’s holder key (cnf.jwk)')
      const found = await holderKeySigner(ctx, caller, jwk)
      holder ??= found.wallet
      return found.signer
    },
  })) as string
  // Set by the holder signer, which every presentation is signed through.
  return { sdjwt, holder: holder! }
}

/** The signed presentation. */
async function signed(
  ctx: Context,
  caller: Caller,
  input: SignPresentationInput & { holder: string },
): Promise<z.output<typeof signPresentationResponse>['presentation']> {
  ctx.resolvers.get(input.resolver)
  // A key no JSON-LD suite signs with is refused before any credential is read (422 naming the suites).
  const proof = { proofType: input.proofType, cryptosuite: input.cryptosuite }
  const signer = await issuerSigner(ctx, caller, input.holder, { format: credentialFormatNamed(input.format), proof })
  // The registry's suite for the holder's key that takes a challenge (secp256k1: Recovery2020), before any credential is read.
  const suite = input.format === 'JSON-LD' ? suiteToSign(signer.keyType, proof, 'presentation') : undefined
  if (suite?.type === DATA_INTEGRITY_PROOF && input.expiresIn !== undefined) throw invalid(`expiresIn: ${DATA_INTEGRITY_NO_EXPIRES}`)
  const holder = normalizeDid(input.holder)
  const credentials = await credentialsOf(ctx, caller, input.vcs)
  const now = ctx.now()
  if (input.format === 'JWT') return { jwt: await signJwt(input, holder, credentials, signer, now, ctx.resolvers.get().resolver) }
  if (input.format === 'VC-JOSE') return { jwt: await signVcJose(input, holder, credentials, signer, now, ctx.resolvers.get().resolver) }
  const embedded = credentials.map((c, i) => {
    if ('jwt' in c) throw invalid(`vcs.${i}: a JSON-LD presentation holds JSON-LD credentials only (present a VC-JWT in a JWT one)`)
    return c.jsonld
  })
  const unsigned: JsonLdDocument = {
    '@context': [dataModelOf(embedded) === 2 ? CREDENTIALS_V2_URL : CREDENTIALS_V1_URL],
    type: ['VerifiablePresentation'],
    holder,
    verifiableCredential: embedded,
  }
  assertJsonLdInput(ctx, unsigned, 'vcs')
  const { challenge, domain } = jsonLdBinding(input)
  const jsonld = await signJsonLd(unsigned, signer, {
    proofType: suite!.type as ProofType,
    cryptosuite: suite!.cryptosuite,
    creator: (await verificationMethodOf(holder, signer.publicJwk, ctx.resolvers.get().resolver)) ?? `${holder}#controller`,
    created: new Date(now),
    proofPurpose: 'authentication',
    challenge,
    ...(domain !== undefined && { domain }),
    ...(input.expiresIn !== undefined && { expires: new Date(now + input.expiresIn) }),
    hasher: jsonLdHasher(ctx, caller),
  }).catch((err: unknown) => {
    throw koblitzExplained(err, embedded)
  })
  return { jsonld }
}

/**
 * The data model of the presentation: that of its credentials (a credentials/v2 document cannot
 * sit inside a credentials/v1 one — both protect `VerifiableCredential` — nor the reverse).
 * @throws {IdentityError} 422 when they mix both
 */
function dataModelOf(credentials: JsonLdDocument[]): 1 | 2 {
  const v2 = credentials.map(isV2Credential)
  if (v2.every(Boolean) && v2.length > 0) return 2
  const first = v2.indexOf(true)
  if (first < 0) return 1
  throw invalid(
    `vcs.${first}: a data model 2.0 credential (credentials/v2) cannot be presented with data model 1.1 ones (vcs.${v2.indexOf(false)}) ` +
      'in one JSON-LD presentation: their contexts conflict; present them separately',
  )
}

/**
 * An `EcdsaKoblitzSignature2016` proof's terms (`creator`, `created`, …) come from security/v1,
 * which a credential's contexts rarely include: a verifier's check of the credential drops the
 * proof, but a presentation's canonicalization reads it. Says so rather than "invalid property".
 */
function koblitzExplained(err: unknown, embedded: JsonLdDocument[]): unknown {
  if (!(err instanceof JsonLdProcessingError)) return err
  const i = embedded.findIndex((vc) =>
    [vc.proof].flat().some((p) => (p as { type?: unknown } | undefined)?.type === 'EcdsaKoblitzSignature2016'),
  )
  if (i < 0) return err
  return invalid(
    `vcs.${i}: ${err.message}: the terms of its EcdsaKoblitzSignature2016 proof are not defined by its contexts, so it cannot be ` +
      'embedded in a JSON-LD presentation (present it in a JWT presentation, or sign it with EcdsaSecp256k1RecoverySignature2020)',
  )
}

async function signJwt(
  input: SignPresentationInput,
  holder: string,
  credentials: Credential[],
  signer: KeySigner,
  now: number,
  resolver: Resolvable,
): Promise<string> {
  const payload = {
    vp: {
      '@context': [CREDENTIALS_V1_URL],
      type: ['VerifiablePresentation'],
      // did-jwt-vc types embedded credentials as JWTs or W3C credential objects; both are given as they are.
      verifiableCredential: credentials.map((c) => ('jwt' in c ? c.jwt : c.jsonld)) as string[],
    },
    // iat from the service's clock too (did-jwt would read its own): exp − iat is exactly what was asked.
    iat: Math.floor(now / 1000),
    nbf: Math.floor(now / 1000),
    ...jwtBinding(input),
    ...(input.expiresIn !== undefined && { exp: Math.floor((now + input.expiresIn) / 1000) }),
  }
  try {
    const { kid, ...by } = await jwtIssuerOf(holder, signer, { resolver })
    return await createVerifiablePresentationJwt(payload, by, kid === undefined ? {} : { header: { kid } })
  } catch (err) {
    // did-jwt-vc refuses what it cannot present (e.g. a credential with an empty credentialSubject): the caller's input.
    const message = err instanceof Error ? err.message : String(err)
    if (/^(schema_error|format_error|invalid_argument)/.test(message)) throw invalid(`vcs: ${shown(message)}`)
    throw err
  }
}

/** The VC-JOSE presentation (`vp+jwt`) of VC-JOSE credentials only (422 naming any other), bound as a VP-JWT is. */
async function signVcJose(
  input: SignPresentationInput,
  holder: string,
  credentials: Credential[],
  signer: KeySigner,
  now: number,
  resolver: Resolvable,
): Promise<string> {
  const VC_JOSE = credentialFormatNamed('VC-JOSE')
  const enveloped = credentials.map((c, i) => {
    if (!('jwt' in c) || !VC_JOSE.is(c.jwt))
      throw invalid(`vcs.${i}: a VC-JOSE presentation holds VC-JOSE credentials only (present others with format JSON-LD or JWT)`)
    return c.jwt
  })
  const seconds = Math.floor(now / 1000)
  const claims = {
    ...jwtBinding(input),
    iat: seconds,
    nbf: seconds,
    ...(input.expiresIn !== undefined && { exp: Math.floor((now + input.expiresIn) / 1000) }),
  }
  return signEnvelopedPresentation(holder, enveloped, claims, signer, { resolver })
}

/**
 * The credentials of `vcs`, in order: stored ones read from the tenant's records under the read
 * rule (facts gathered once), given JSON-LD ones checked against the JSON-LD bounds.
 */
async function credentialsOf(ctx: Context, caller: Caller, vcs: PresentedCredential[]): Promise<Credential[]> {
  let reader: ReaderFacts | undefined
  const out: Credential[] = []
  for (const [i, item] of vcs.entries()) {
    if (!('_id' in item)) {
      const { format, encoded } = carriedBy(item)
      format.checkInput(encoded, `vcs.${i}.${format.member}`, ctx.config.limits)
      out.push(w3cCredential(memberOf(encoded, format), `vcs.${i}`))
    } else {
      reader ??= await readerFacts(ctx, caller)
      out.push(w3cCredential(await storedCredentialMember(ctx, caller, item._id, `vcs.${i}._id`, reader), `vcs.${i}._id`))
    }
  }
  return out
}

/** A stored credential in its wire member (SD-JWT disclosures unsealed), if the caller may read it; otherwise 404 as if none. */
export async function storedCredentialMember(
  ctx: Pick<Context, 'callers' | 'config' | 'custody' | 'registries' | 'storage'>,
  caller: Caller,
  id: string,
  field: string,
  reader?: ReaderFacts,
): Promise<CredentialMember> {
  const { credentials } = tenantCollections(ctx.storage, caller.tenantId, { credentials: CREDENTIALS })
  const record = await credentials.get(id)
  // A credential the caller may not read is answered as one that does not exist.
  if (!record || !canPresentStoredCredential(reader ?? (await readerFacts(ctx, caller)), record))
    throw notFound(`${field}: no stored credential ${id} that the caller may read`)
  return storedMember(ctx.custody, record)
}

/** A credential a W3C presentation can carry (`{ jwt }`, `{ jsonld }`): an SD-JWT VC is 422 naming `field`. */
function w3cCredential(member: CredentialMember, field: string): Credential {
  if ('sdjwt' in member) throw invalid(`${field}: an SD-JWT VC is not carried in a W3C presentation`)
  return member
}
