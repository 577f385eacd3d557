/**
 * Sign Verifiable Credentials (`POST /claims/sign`, DESIGN §4 *Claim DIDs*, *Expiration
 * inputs*, `format`, *JSON-LD proof*).
 *
 * `iss` must be a wallet of the caller's tenant that the caller controls; the credentials are
 * signed by the key of the issuer DID's current owner (the wallet itself, or the tenant's
 * wallet a `newOwner` named) through its signer, as `<iss>#controller`. A claim without `id`
 * gets a claim DID: a new wallet of the tenant (named by `alias`), whose document then takes
 * the claim's `walletConfig`.
 *
 * Everything that can be refused is checked, and every credential signed, before anything is
 * written: the claim DIDs' wallets are inserted together (all or none), then their
 * `walletConfig`s applied, each reported on its credential as `registry`.
 */
import type { SuiteRequest } from '../proofs/suites/index.js'
import type { z } from 'zod'
import { invalid, notFound } from '../errors.js'
import { normalizeDid, principalOf } from '../did/methods/ethr/index.js'
import type { Caller } from '../auth/context.js'
import {
  carriedBy,
  credentialFormatNamed,
  memberOf,
  type CredentialContent,
  type CredentialFormat,
  type SdJwtContent,
  type BbsAssertionKey,
} from './formats/index.js'
import type { Resolvable } from 'did-resolver'
import { subjectHolderJwk } from './holder-key.js'
import type { KeySigner } from '../keys/signer.js'
import type { ClaimInput, SignClaimsInput, SignedCredential, signClaimsResponse } from './schemas.js'
import type { WalletRecord } from '../wallets/records.js'
import type { RegistryReport } from '../wallets/did-updates.js'
import { expirationOf } from '../operations/expiration.js'
import { jsonLdHasher } from './jsonld-work.js'
import { aliasConflict, uniqueOr } from '../operations/unique.js'
import { checkWalletConfig, keyTypeOfConfig, networkForNewWallet, signingWallet, walletConfigApplier } from '../wallets/config.js'
import { buildWallet } from '../wallets/build.js'
import type { KeyManager, StagedKey } from '../keys/port.js'
import { portBbsSigner } from '../keys/port-signers.js'
import { assertControlsWallet } from '../wallets/access.js'
import { WALLETS } from '../wallets/records.js'
import { tenantCollections } from '../storage/declaration.js'
import type { CredentialsContext, StatusAllocation } from './context.js'
import type { StatusPurpose } from './schemas.js'

/** One claim, checked and ready to sign. */
interface PlannedClaim {
  content: CredentialContent
  /** The claim DID's wallet, when the claim had no `id` (not stored yet). */
  wallet?: WalletRecord
  /** Its key, stored with it. */
  key?: StagedKey
  /** Applies the claim's `walletConfig` once its wallet is stored. */
  apply?: (wallet: WalletRecord) => Promise<RegistryReport | undefined>
  /** The purposes of its status entries, if any. */
  purposes?: readonly StatusPurpose[]
}

export async function signClaims(
  ctx: Pick<
    CredentialsContext,
    | 'audit'
    | 'callers'
    | 'config'
    | 'custody'
    | 'jsonld'
    | 'keyManager'
    | 'now'
    | 'onError'
    | 'onItemFailure'
    | 'registries'
    | 'resolvers'
    | 'signers'
    | 'statuses'
    | 'storage'
  >,
  caller: Caller,
  input: SignClaimsInput,
): Promise<z.output<typeof signClaimsResponse>> {
  const { name: resolver, resolver: resolving } = ctx.resolvers.get(input.resolver)
  const format = credentialFormatNamed(input.format)
  const { signer, bbs } = await issuerSigning(ctx, caller, input.iss, { format, proof: input })
  const issuer = normalizeDid(input.iss)
  const now = ctx.now()
  const plans: PlannedClaim[] = []
  for (const [i, claim] of input.claims.entries())
    plans.push(await planClaim(ctx, caller, input, format, claim, { field: `claims.${i}`, issuer, now, resolver: resolving }))

  // Status entries are written first (a credential names them); given back if the request fails after all.
  const allocations: StatusAllocation[] = []
  try {
    for (const plan of plans) {
      if (plan.purposes === undefined) continue
      const request = { issuer, format: input.format, purposes: plan.purposes, credentialId: plan.content.id, approvals: caller }
      const allocation = await ctx.statuses.allocate(caller.tenantId, request)
      allocations.push(allocation)
      plan.content.status = allocation.entries
    }
    return { resolver, vcs: await issueAll(ctx, caller, input, format, plans, signer, bbs) }
  } catch (err) {
    for (const allocation of allocations) await allocation.release()
    throw err
  }
}

/**
 * Signs the planned credentials, then stores their claim DIDs' wallets with the audit records of
 * the signatures (and of those wallets) in one transaction, and applies their `walletConfig`s.
 */
async function issueAll(
  ctx: Pick<CredentialsContext, 'audit' | 'config' | 'jsonld' | 'resolvers' | 'storage'>,
  caller: Caller,
  input: SignClaimsInput,
  format: CredentialFormat,
  plans: PlannedClaim[],
  signer: KeySigner,
  bbs: BbsAssertionKey | undefined,
): Promise<SignedCredential[]> {
  const hasher = jsonLdHasher(ctx, caller)
  const undefinedTerms = input.undefinedTerms ?? ctx.config.undefinedTerms
  // The issuer's key is named as the service's own resolver lists it (did:web documents).
  const { resolver } = ctx.resolvers.get()
  const vcs: SignedCredential[] = []
  for (const { content } of plans) {
    const encoded = await format.issue(content, signer, {
      proofType: input.proofType,
      cryptosuite: input.cryptosuite,
      ...(input.mandatoryPointers !== undefined && { mandatoryPointers: input.mandatoryPointers }),
      hasher,
      undefinedTerms,
      resolver,
      ...(bbs !== undefined && { bbs }),
    })
    // A claim of a format without claim DIDs (SD-JWT) has an id only when given.
    const member = memberOf(encoded, format)
    vcs.push((content.id === '' ? member : { id: content.id, ...member }) as SignedCredential)
  }

  const wallets = plans.flatMap((p) => (p.wallet ? [p.wallet] : []))
  const acts = [
    ...wallets.map((w) => ({ action: 'wallet.create' as const, target: { type: 'wallet', id: w.did } })),
    // A credential without id is named by its content hash (never by its disclosures or salts).
    ...vcs.map((vc) => ({
      action: 'credential.sign' as const,
      target: { type: 'credential', id: vc.id ?? format.contentHash(carriedBy(vc).encoded) },
    })),
  ]
  await uniqueOr(
    () =>
      ctx.storage.transaction(async (tx) => {
        if (wallets.length > 0) await tenantCollections(tx, caller.tenantId, { wallets: WALLETS }).wallets.insertMany(wallets)
        for (const plan of plans) await plan.key?.store(tx)
        await ctx.audit.append(tx, caller, acts)
      }),
    aliasConflict,
  )
  for (const [i, plan] of plans.entries()) {
    const report = plan.wallet && plan.apply ? await plan.apply(plan.wallet) : undefined
    if (report) vcs[i] = { ...vcs[i], registry: report }
  }
  return vcs
}

/**
 * The signer of the issuer: `iss` must be a wallet of the tenant (422 NOT_FOUND otherwise) that
 * the caller controls (403) — for an MPC wallet, whose quorum approves (403 when short) —, whose
 * DID's current owner key the service holds for the tenant (403). With `format`, a key that format does not sign
 * with (JSON-LD: with the suite `proof` names, or its key type's default, see the suite registry) is 422 naming what
 * does, whoever asks: a property of the request, checked before control.
 */
export async function issuerSigner(
  ctx: Pick<CredentialsContext, 'callers' | 'registries' | 'signers' | 'storage'>,
  caller: Caller,
  iss: string,
  options: { format?: CredentialFormat; proof?: SuiteRequest } = {},
): Promise<KeySigner> {
  return (await signingOf(ctx, caller, iss, options)).signer
}

/**
 * {@link issuerSigner}, and for a JSON-LD `bbs-2023` request the BBS assertion key of the issuer wallet, which signs its
 * base proofs (as `<iss>#bbs-0`; docs/keys.md): 422 when the wallet has none, whatever its key — checked, like the
 * suite, before control. The wallet's own key is still the one whose control the caller must prove.
 */
export async function issuerSigning(
  ctx: Pick<CredentialsContext, 'callers' | 'keyManager' | 'registries' | 'signers' | 'storage'>,
  caller: Caller,
  iss: string,
  options: { format?: CredentialFormat; proof?: SuiteRequest } = {},
): Promise<{ signer: KeySigner; bbs?: BbsAssertionKey }> {
  return signingOf(ctx, caller, iss, options, ctx.keyManager)
}

async function signingOf(
  ctx: Pick<CredentialsContext, 'callers' | 'registries' | 'signers' | 'storage'>,
  caller: Caller,
  iss: string,
  options: { format?: CredentialFormat; proof?: SuiteRequest },
  bbsKeys?: KeyManager,
): Promise<{ signer: KeySigner; bbs?: BbsAssertionKey }> {
  const { wallets } = tenantCollections(ctx.storage, caller.tenantId, { wallets: WALLETS })
  const wallet = await wallets.findOne({ field: 'did', op: 'eq', value: principalOf(iss) })
  if (!wallet) throw notFound(`iss: no wallet of this tenant has DID ${iss}`)
  // The owner the caller's token proved in this request (its DID's `#controller` signed it) needs no second registry read.
  const proved = caller.owners !== undefined && Object.hasOwn(caller.owners, wallet.did) ? caller.owners[wallet.did] : undefined
  const owner = await signingWallet(ctx, wallet, proved)
  const signsBbs = bbsKeys !== undefined && options.format?.name === 'JSON-LD' && options.proof?.cryptosuite === 'bbs-2023'
  if (signsBbs && wallet.bbsKey === undefined)
    throw invalid(
      `cryptosuite: ${wallet.did} has no BBS assertion key, which signs bbs-2023 proofs (a did:web wallet made with ` +
        'walletConfig.bbsKey: true by Generate Identity Wallet)',
    )
  if (!signsBbs) options.format?.assertSigns(owner.keyType ?? 'secp256k1', options.proof)
  // A DID owned by an MPC key is governed by that vault's quorum: the signer asks for the members' approvals (403 when short).
  // Any other owner — an MPC wallet's DID handed to an ECS key included — is controlled like any wallet.
  if (owner.keyManagement !== 'MPC') await assertControlsWallet(ctx, caller, wallet)
  const signer = ctx.signers.signerFor(owner, caller)
  if (!signsBbs || wallet.bbsKey === undefined) return { signer }
  const { keyRef, publicKeyJwk } = wallet.bbsKey
  const bbsSigner = portBbsSigner(bbsKeys, { tenantId: caller.tenantId, keyRef, publicJwk: publicKeyJwk })
  return { signer, bbs: { signer: bbsSigner, verificationMethod: `${wallet.did}#bbs-0` } }
}

/** Checks a claim and makes what it needs (its claim DID's wallet, its key staged in the key port); nothing is stored. */
async function planClaim(
  ctx: Pick<
    CredentialsContext,
    'audit' | 'config' | 'custody' | 'keyManager' | 'now' | 'onError' | 'onItemFailure' | 'registries' | 'signers' | 'storage'
  >,
  caller: Caller,
  input: SignClaimsInput,
  format: CredentialFormat,
  claim: ClaimInput,
  { field, issuer, now, resolver }: { field: string; issuer: string; now: number; resolver: Resolvable },
): Promise<PlannedClaim> {
  // Claim-level expiration inputs win over global ones (DESIGN §4 *Expiration inputs*).
  const expiresAt = expirationOf(claim, now, `${field}: `) ?? expirationOf(input, now)
  if (expiresAt !== undefined && expiresAt <= now) throw invalid(`${field}: the expiration must be in the future`)
  const claims = claim.payload ?? {}
  const subject = claim.sub ?? input.sub
  const purposes = (claim.status ?? input.status)?.purposes
  const named = [...(input.context ?? []), ...(claim.context ?? [])]
  const contexts = format.contextsOf({ claims, named, withStatus: purposes !== undefined }, field)
  const content: Omit<CredentialContent, 'id'> = {
    issuer,
    ...(subject !== undefined && { subject: normalizeDid(subject) }),
    claims,
    contexts,
    types: [...(input.type ?? []), ...(claim.type ?? [])],
    issuedAt: now,
    ...(expiresAt !== undefined && { expiresAt }),
  }
  // Checked against the bounds before its claim DID is made (its id is a string either way).
  format.checkContent({ ...content, id: claim.id ?? '' }, field, ctx.config.limits)
  if (!format.claimDids)
    return { content: { ...content, id: claim.id ?? '', sdJwt: await sdJwtContentOf(claim, content, field, resolver) }, purposes }
  if (claim.id !== undefined) return { content: { ...content, id: claim.id }, purposes }

  checkWalletConfig(claim.walletConfig, ctx.config)
  const network = networkForNewWallet(ctx, claim.walletConfig)
  const key = await ctx.keyManager.stageKey({ tenantId: caller.tenantId, type: keyTypeOfConfig(claim.walletConfig) })
  const wallet = await buildWallet(ctx, { tenantId: caller.tenantId, key, alias: claim.alias, walletConfig: claim.walletConfig, network })
  return {
    content: { ...content, id: wallet.did },
    wallet,
    key,
    apply: walletConfigApplier(ctx, wallet, claim.walletConfig, caller),
    purposes,
  }
}

/**
 * What an SD-JWT claim adds: its `vct`, `disclose`, `decoys` and holder key — `holderJwk`, or else the first
 * `authentication` key of its subject DID's current document (neither: 422 asking for `holderJwk`).
 */
async function sdJwtContentOf(
  claim: ClaimInput,
  content: Pick<CredentialContent, 'subject'>,
  field: string,
  resolver: Resolvable,
): Promise<SdJwtContent> {
  let holderJwk = claim.holderJwk
  if (holderJwk === undefined) {
    if (content.subject === undefined) throw invalid(`${field}.holderJwk: required for an SD-JWT VC without a subject DID (sub)`)
    holderJwk = await subjectHolderJwk(content.subject, resolver, field)
  }
  return {
    vct: claim.vct!,
    holderJwk,
    ...(claim.disclose !== undefined && { disclose: claim.disclose }),
    ...(claim.decoys !== undefined && { decoys: claim.decoys }),
  }
}
