/**
 * Signing a status list: its bitstring is made from its set entries, signed by the issuer DID
 * (the key of its current owner) as a `BitstringStatusListCredential` in the list's format, and
 * stored with its ETag. The stored signed list is the truth every process serves; a signature of
 * an older version never replaces one of a newer.
 */
import { createHash } from 'node:crypto'
import { principalOf } from '../did/ethr.js'
import { forbidden } from '../errors.js'
import { issueJsonLdCredential, issueJwtCredential, type CredentialContent } from '../credentials/issue-credential.js'
import { CREDENTIALS_V2_URL } from '../proofs/jsonld/contexts.js'
import { collectionOf, tenantCollections } from '../storage/declaration.js'
import { registryForDid } from '../wallets/config.js'
import { ownerWallet } from '../wallets/did-updates.js'
import { WALLETS } from '../wallets/records.js'
import { encodeList } from './bitstring.js'
import { listUrlOf } from './list-url.js'
import { STATUS_ENTRIES, STATUS_LISTS, type StatusListRecord } from './records.js'
import type { StatusContext } from './context.js'

/** The parts of the context signing a list needs. */
export type SigningContext = Pick<StatusContext, 'now' | 'registries' | 'signers' | 'storage'>

/** Whether the stored signed list is older than the list's entries (or there is none). */
export const isDirty = (list: StatusListRecord) => list.credential === undefined || list.version > list.signedVersion

/**
 * Signs list `listId` when it changed since its stored signature, and stores the result; resolves
 * to the list as stored then (undefined when there is no such list).
 */
export async function signList(ctx: SigningContext, listId: string): Promise<StatusListRecord | undefined> {
  const lists = collectionOf(ctx.storage, STATUS_LISTS)
  const list = await lists.get(listId)
  if (!list || !isDirty(list)) return list
  // Read after the version: every change up to it is in (a change writes its entry and the version together).
  const { version } = list
  const { entries } = tenantCollections(ctx.storage, list.tenantId, { entries: STATUS_ENTRIES })
  const set = await entries.all({
    and: [
      { field: 'listId', op: 'eq', value: list.id },
      { field: 'value', op: 'eq', value: true },
    ],
  })
  const encodedList = await encodeList(
    list.size,
    set.map((e) => e.index),
  )
  const credential = await signListCredential(ctx, list, encodedList)
  const signed = { credential, encodedList, etag: etagOf(credential), signedAt: ctx.now(), signedVersion: version }
  await ctx.storage.transaction(async (tx) => {
    const current = await collectionOf(tx, STATUS_LISTS).get(listId)
    if (current && (current.credential === undefined || current.signedVersion < version))
      await collectionOf(tx, STATUS_LISTS).update(listId, signed)
  })
  return lists.get(listId)
}

/** The `BitstringStatusListCredential` of `list` with `encodedList`, signed by its issuer's owner key, in the list's format. */
async function signListCredential(
  ctx: SigningContext,
  list: StatusListRecord,
  encodedList: string,
): Promise<string | Record<string, unknown>> {
  const { wallets } = tenantCollections(ctx.storage, list.tenantId, { wallets: WALLETS })
  const wallet = await wallets.findOne({ field: 'did', op: 'eq', value: principalOf(list.issuer) })
  if (!wallet) throw forbidden(`the issuer ${list.issuer} of status list ${list.id} is no longer a wallet of the tenant`)
  const signer = ctx.signers.signerFor(await ownerWallet(ctx, wallet, registryForDid(ctx, wallet.did, undefined)))
  const url = listUrlOf(list.baseUrl, list.id)
  const content: CredentialContent = {
    id: url,
    issuer: list.issuer,
    subject: `${url}#list`,
    claims: { type: 'BitstringStatusList', statusPurpose: list.purpose, encodedList },
    // JSON-LD: data model 2.0 (its context defines the terms); a VC-JWT is data model 1.1 here, like every VC-JWT of the service.
    contexts: list.format === 'JWT' ? [] : [CREDENTIALS_V2_URL],
    types: ['BitstringStatusListCredential'],
    issuedAt: ctx.now(),
  }
  return list.format === 'JWT' ? issueJwtCredential(content, signer) : issueJsonLdCredential(content, signer, { undefinedTerms: 'reject' })
}

/** A strong ETag of a signed list: the SHA-256 of its served form, base64url, quoted. */
function etagOf(credential: string | Record<string, unknown>): string {
  const served = typeof credential === 'string' ? credential : JSON.stringify(credential)
  return `"${createHash('sha256').update(served).digest('base64url')}"`
}
