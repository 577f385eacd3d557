/**
 * Publishing status lists (`GET /status/:listId`, public like DID documents): the stored signed
 * list, signed first when it never was, was signed with a retired suite (EcdsaKoblitzSignature2016,
 * by an earlier release), is a Status List Token past half its lifetime, or changed and its interval is over.
 */
import { IdentityError } from '../errors.js'
import { collectionOf } from '../storage/declaration.js'
import type { Caller } from '../auth/context.js'
import type { StatusContext } from './context.js'
import { STATUS_LISTS } from './records.js'
import { mechanismOf } from './mechanisms/index.js'
import { hasRetiredProof, isDirty, pastHalfLife, signList, type SigningContext } from './sign-list.js'
import type { GetStatusListInput, ServedStatusList } from './schemas.js'

export async function getStatusList(
  ctx: SigningContext & Pick<StatusContext, 'config'>,
  _caller: Caller,
  input: GetStatusListInput,
): Promise<ServedStatusList> {
  let list = await collectionOf(ctx.storage, STATUS_LISTS).get(input.listId)
  if (!list) throw new IdentityError('NOT_FOUND', `no status list ${input.listId}`, 404)
  const interval = ctx.config.statusPublishIntervalMs
  // Signed now when never signed, signed with a suite lists no longer use, or past half its lifetime (a Status List
  // Token's `exp`); otherwise once changed and its interval is over.
  const now = ctx.now()
  if (
    list.credential === undefined ||
    hasRetiredProof(list) ||
    pastHalfLife(list, now) ||
    (isDirty(list) && now - (list.signedAt ?? 0) >= interval)
  )
    list = (await signList(ctx, list.id)) ?? list
  // Only an MPC issuer's list can be unsigned here: its first signature needs a request with its quorum.
  if (list.credential === undefined || list.etag === undefined)
    throw new IdentityError('NOT_FOUND', `status list ${input.listId} is not published yet`, 404)
  return {
    document: list.credential,
    contentType: mechanismOf(list.format).mediaType(list) as ServedStatusList['contentType'],
    etag: list.etag,
    maxAge: Math.floor(interval / 1000),
  }
}
