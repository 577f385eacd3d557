/**
 * Signing a status list: its bitstring is made from its set entries, signed by the issuer DID
 * (the key of its current owner) as a `BitstringStatusListCredential` in the list's format, and
 * stored with its ETag. The stored signed list is the truth every process serves; a signature of
 * an older version never replaces one of a newer.
 *
 * A list whose issuer DID is owned by an MPC wallet signs only with its vault's quorum, so it is signed by the
 * requests that bring approvals — the signature that creates it, the status change that changes
 * it (before its write, stored with it) — and never by the publisher or a `GET`.
 */
import { createHash } from 'node:crypto'
import { principalOf } from '../did/methods/ethr/index.js'
import { forbidden } from '../errors.js'
import { credentialFormatNamed, type CredentialContent } from '../credentials/formats/index.js'
import type { KeySigner } from '../keys/signer.js'
import type { ApprovalEvidence } from '../mpc/approvals.js'
import { RECOVERY_2020 } from '../proofs/jsonld/suite-names.js'
import { collectionOf, tenantCollections } from '../storage/declaration.js'
import { signingWallet } from '../wallets/config.js'
import { WALLETS, type WalletRecord } from '../wallets/records.js'
import { encodeList } from './bitstring.js'
import { listUrlOf } from './list-url.js'
import { STATUS_ENTRIES, STATUS_LISTS, type StatusListRecord } from './records.js'
import type { StatusContext } from './context.js'
import { systemActor } from '../audit/trail.js'

/** The parts of the context signing a list needs. */
export type SigningContext = Pick<StatusContext, 'audit' | 'now' | 'registries' | 'resolvers' | 'signers' | 'storage'>

/** The fields of a list record its signature sets. */
export type SignedList = Required<Pick<StatusListRecord, 'credential' | 'encodedList' | 'etag' | 'signedAt' | 'signedVersion'>>

/**
 * The proof suite of JSON-LD lists: EcdsaSecp256k1RecoverySignature2020, which verifiers outside
 * didvault implement (the transmute suite, Veramo, jsonld-signatures based verifiers). Lists of
 * secp256k1 issuers are never signed with EcdsaKoblitzSignature2016 again; a list an earlier
 * release stored with it is signed again at its next publication (its version unchanged).
 */
const LIST_PROOF_TYPE = RECOVERY_2020

/** Whether the stored signed list is JSON-LD with a proof of another suite than {@link LIST_PROOF_TYPE}: signed again when next served. */
export function hasRetiredProof(list: Pick<StatusListRecord, 'credential'>): boolean {
  if (list.credential === undefined || typeof list.credential === 'string') return false
  const proofs: unknown[] = [list.credential.proof].flat()
  return proofs.some((p) => typeof p !== 'object' || p === null || (p as { type?: unknown }).type !== LIST_PROOF_TYPE)
}

/** Whether the stored signed list is older than version `version` of the list's entries, or of a retired suite (or there is none). */
const isOlderThan = (list: StatusListRecord, version: number) =>
  list.credential === undefined || version > list.signedVersion || (version === list.signedVersion && hasRetiredProof(list))

/** Whether the stored signed list is older than the list's entries, or of a retired suite (or there is none): it needs a signature. */
export const isDirty = (list: StatusListRecord) => isOlderThan(list, list.version)

/** The issuer wallet of a list, and the wallet of its DID's current owner, which signs the list (403 when the service holds neither). */
export interface ListSigners {
  issuer: WalletRecord
  owner: WalletRecord
}

/**
 * The {@link ListSigners} of the lists of `issuer` in a tenant. When the owner is an MPC wallet,
 * the list is a *quorum list*: signed only with approvals its vault's quorum meets.
 */
export async function listSigners(
  ctx: Pick<SigningContext, 'registries' | 'signers' | 'storage'>,
  list: Pick<StatusListRecord, 'tenantId' | 'issuer'>,
): Promise<ListSigners> {
  const { wallets } = tenantCollections(ctx.storage, list.tenantId, { wallets: WALLETS })
  const issuer = await wallets.findOne({ field: 'did', op: 'eq', value: principalOf(list.issuer) })
  if (!issuer) throw forbidden(`the issuer ${list.issuer} of its status lists is no longer a wallet of the tenant`)
  return { issuer, owner: await signingWallet(ctx, issuer) }
}

/** Whether lists signed by `owner` need its vault's quorum. */
export const isQuorumSigner = (owner: WalletRecord) => owner.keyManagement === 'MPC'

/**
 * Signs list `listId` when it changed since its stored signature, and stores the result; resolves
 * to the list as stored then (undefined when there is no such list). Without `approvals`, a list
 * of an MPC owner is left as it is (it is signed by the requests that change it).
 *
 * Without `approvals` the signature is the publisher's (its timer, or an unauthenticated `GET
 * /status/:listId`): recorded in the tenant's trail as `statusList.sign` by actor `{ system:
 * "publisher" }`, in the transaction that stores it — once per list version, never per fetch. A
 * quorum list signed with a request's approvals is recorded by that request (`mpc.sign`).
 */
export async function signList(ctx: SigningContext, listId: string, approvals?: ApprovalEvidence): Promise<StatusListRecord | undefined> {
  const lists = collectionOf(ctx.storage, STATUS_LISTS)
  const list = await lists.get(listId)
  if (!list || !isDirty(list)) return list
  const { owner } = await listSigners(ctx, list)
  if (isQuorumSigner(owner) && approvals === undefined) return list
  // Read after the version: every change up to it is in (a change writes its entry and the version together).
  const signed = await signedListOf(ctx, list, owner, [], approvals)
  await ctx.storage.transaction(async (tx) => {
    const current = await collectionOf(tx, STATUS_LISTS).get(listId)
    if (current && isOlderThan(current, signed.signedVersion)) {
      await collectionOf(tx, STATUS_LISTS).update(listId, signed)
      if (approvals === undefined)
        await ctx.audit.append(tx, systemActor(list.tenantId, 'publisher'), [
          { action: 'statusList.sign', target: { type: 'statusList', id: listId } },
        ])
    }
  })
  return lists.get(listId)
}

/**
 * The signature of `list` as stored now with `changes` applied on top in order, for version
 * `list.version + changes.length`: what a change of an MPC issuer's list stores with its entries.
 * `owner` (the issuer DID's owner) signs, with `approvals` counted towards an MPC quorum (403 when short).
 */
export async function signedListOf(
  ctx: SigningContext,
  list: StatusListRecord,
  owner: WalletRecord,
  changes: ReadonlyArray<{ index: number; value: boolean }>,
  approvals?: ApprovalEvidence,
): Promise<SignedList> {
  const { entries } = tenantCollections(ctx.storage, list.tenantId, { entries: STATUS_ENTRIES })
  const stored = await entries.all({
    and: [
      { field: 'listId', op: 'eq', value: list.id },
      { field: 'value', op: 'eq', value: true },
    ],
  })
  const set = new Set(stored.map((e) => e.index))
  for (const { index, value } of changes) {
    if (value) set.add(index)
    else set.delete(index)
  }
  const encodedList = await encodeList(list.size, set)
  const credential = await signListCredential(ctx, list, encodedList, ctx.signers.signerFor(owner, approvals))
  return { credential, encodedList, etag: etagOf(credential), signedAt: ctx.now(), signedVersion: list.version + changes.length }
}

/** The `BitstringStatusListCredential` of `list` with `encodedList`, signed by `signer`, in the list's format. */
function signListCredential(
  ctx: Pick<SigningContext, 'now' | 'resolvers'>,
  list: StatusListRecord,
  encodedList: string,
  signer: KeySigner,
): Promise<string | Record<string, unknown>> {
  const url = listUrlOf(list.baseUrl, list.id)
  const format = credentialFormatNamed(list.format)
  const content: CredentialContent = {
    id: url,
    issuer: list.issuer,
    subject: `${url}#list`,
    claims: { type: 'BitstringStatusList', statusPurpose: list.purpose, encodedList },
    contexts: format.statusListContexts,
    types: ['BitstringStatusListCredential'],
    issuedAt: ctx.now(),
  }
  // The issuer's key is named as the service's own resolver lists it (did:web documents).
  const { resolver } = ctx.resolvers.get()
  return format.issue(content, signer, { proofType: LIST_PROOF_TYPE, undefinedTerms: 'reject', resolver })
}

/** A strong ETag of a signed list: the SHA-256 of its served form, base64url, quoted. */
function etagOf(credential: string | Record<string, unknown>): string {
  const served = typeof credential === 'string' ? credential : JSON.stringify(credential)
  return `"${createHash('sha256').update(served).digest('base64url')}"`
}
