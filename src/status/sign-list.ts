/**
 * Signing a status list: its entries' statuses, signed by the issuer DID (the key of its current owner) by the list's
 * mechanism (`mechanisms/`: a `BitstringStatusListCredential` in the list's format, or a Status List Token), and
 * stored with its ETag (and a token's expiry: it is signed again from half its lifetime on). The stored signed list is
 * the truth every process serves; a signature of an older version never replaces one of a newer.
 *
 * A list whose issuer DID is owned by an MPC wallet signs only with its vault's quorum, so it is signed by the
 * requests that bring approvals — the signature that creates it, the status change that changes
 * it (before its write, stored with it) — and never by the publisher or a `GET`.
 */
import { createHash } from 'node:crypto'
import { principalOf } from '../did/methods/ethr/index.js'
import { forbidden } from '../errors.js'
import type { ApprovalEvidence } from '../mpc/approvals.js'
import { collectionOf, tenantCollections } from '../storage/declaration.js'
import { signingWallet } from '../wallets/config.js'
import { WALLETS, type WalletRecord } from '../wallets/records.js'
import { isListProof, mechanismOf } from './mechanisms/index.js'
import { STATUS_ENTRIES, STATUS_LISTS, type StatusListRecord } from './records.js'
import type { StatusContext } from './context.js'
import { systemActor } from '../audit/trail.js'

/** The parts of the context signing a list needs. */
export type SigningContext = Pick<StatusContext, 'audit' | 'now' | 'registries' | 'resolvers' | 'signers' | 'storage'> & {
  config: Pick<StatusContext['config'], 'statusTokenLifetimeMs' | 'statusTokenTtlMs'>
}

/** The fields of a list record its signature sets. */
export type SignedList = Required<Pick<StatusListRecord, 'credential' | 'encodedList' | 'etag' | 'signedAt' | 'signedVersion'>> &
  Pick<StatusListRecord, 'expiresAt'>

/**
 * Whether the stored signed list is JSON-LD with a proof of a suite no list is signed with now (see `LIST_SUITE_OF`:
 * Recovery2020 for secp256k1 issuers, the registry's default for the others): signed again when next served.
 */
export function hasRetiredProof(list: Pick<StatusListRecord, 'credential'>): boolean {
  if (list.credential === undefined || typeof list.credential === 'string') return false
  const proofs: unknown[] = [list.credential.proof].flat()
  return proofs.some((p) => !isListProof(p))
}

/** Whether the stored signed list is older than version `version` of the list's entries, or of a retired suite (or there is none). */
const isOlderThan = (list: StatusListRecord, version: number) =>
  list.credential === undefined || version > list.signedVersion || (version === list.signedVersion && hasRetiredProof(list))

/** Whether the stored signed list is older than the list's entries, or of a retired suite (or there is none): it needs a signature. */
export const isDirty = (list: StatusListRecord) => isOlderThan(list, list.version)

/** Whether the stored signed list expires and half its lifetime is over at `now` (ms): it is signed again. */
export const pastHalfLife = (list: StatusListRecord, now: number) =>
  list.expiresAt !== undefined && list.signedAt !== undefined && now - list.signedAt >= (list.expiresAt - list.signedAt) / 2

/** Whether the stored signed list needs a signature at `now`: it is dirty ({@link isDirty}) or past half its lifetime. */
export const needsSignature = (list: StatusListRecord, now: number) => isDirty(list) || pastHalfLife(list, now)

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
  if (!list || !needsSignature(list, ctx.now())) return list
  const { owner } = await listSigners(ctx, list)
  if (isQuorumSigner(owner) && approvals === undefined) return list
  // Read after the version: every change up to it is in (a change writes its entry and the version together).
  const signed = await signedListOf(ctx, list, owner, [], approvals)
  await ctx.storage.transaction(async (tx) => {
    const current = await collectionOf(tx, STATUS_LISTS).get(listId)
    const renewed = current !== undefined && (current.signedAt ?? 0) < signed.signedAt && pastHalfLife(current, signed.signedAt)
    if (current && (isOlderThan(current, signed.signedVersion) || renewed)) {
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
  changes: ReadonlyArray<{ index: number; status: number }>,
  approvals?: ApprovalEvidence,
): Promise<SignedList> {
  const { entries } = tenantCollections(ctx.storage, list.tenantId, { entries: STATUS_ENTRIES })
  const stored = await entries.all({
    and: [
      { field: 'listId', op: 'eq', value: list.id },
      { field: 'value', op: 'eq', value: true },
    ],
  })
  const statuses = new Map(stored.map((e) => [e.index, e.status ?? 1]))
  for (const { index, status } of changes) {
    if (status !== 0) statuses.set(index, status)
    else statuses.delete(index)
  }
  const now = ctx.now()
  const { resolver } = ctx.resolvers.get()
  // The issuer's key is named as the service's own resolver lists it (did:web documents).
  const { credential, encodedList, expiresAt } = await mechanismOf(list.format).sign({
    list,
    statuses,
    signer: ctx.signers.signerFor(owner, approvals),
    now,
    quorum: isQuorumSigner(owner),
    resolver,
    lifetimeMs: ctx.config.statusTokenLifetimeMs,
    ttlMs: ctx.config.statusTokenTtlMs,
  })
  return {
    credential,
    encodedList,
    etag: etagOf(credential),
    signedAt: now,
    signedVersion: list.version + changes.length,
    ...(expiresAt !== undefined && { expiresAt }),
  }
}

/** A strong ETag of a signed list: the SHA-256 of its served form, base64url, quoted. */
function etagOf(credential: string | Record<string, unknown>): string {
  const served = typeof credential === 'string' ? credential : JSON.stringify(credential)
  return `"${createHash('sha256').update(served).digest('base64url')}"`
}
