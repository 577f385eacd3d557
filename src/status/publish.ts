/**
 * Publishing status lists (`GET /status/:listId`, public like DID documents): the stored signed
 * list, signed first when it never was, or changed and its interval is over.
 */
import { IdentityError } from '../errors.js'
import { collectionOf } from '../storage/declaration.js'
import type { Caller } from '../auth/context.js'
import type { StatusContext } from './context.js'
import { STATUS_LISTS } from './records.js'
import { isDirty, signList, type SigningContext } from './sign-list.js'
import type { GetStatusListInput, ServedStatusList } from './schemas.js'

/** Media types of the served lists. */
export const STATUS_LIST_MEDIA_TYPES = { 'JSON-LD': 'application/vc+ld+json', JWT: 'application/vc+jwt' } as const

export async function getStatusList(
  ctx: SigningContext & Pick<StatusContext, 'config'>,
  _caller: Caller,
  input: GetStatusListInput,
): Promise<ServedStatusList> {
  let list = await collectionOf(ctx.storage, STATUS_LISTS).get(input.listId)
  if (!list) throw new IdentityError('NOT_FOUND', `no status list ${input.listId}`, 404)
  const interval = ctx.config.statusPublishIntervalMs
  if (list.credential === undefined || (isDirty(list) && ctx.now() - (list.signedAt ?? 0) >= interval))
    list = (await signList(ctx, list.id)) ?? list
  // Only an MPC issuer's list can be unsigned here: its first signature needs a request with its quorum.
  if (list.credential === undefined || list.etag === undefined)
    throw new IdentityError('NOT_FOUND', `status list ${input.listId} is not published yet`, 404)
  return {
    document: list.credential,
    contentType: STATUS_LIST_MEDIA_TYPES[list.format],
    etag: list.etag,
    maxAge: Math.floor(interval / 1000),
  }
}

/**
 * The signed status list this service publishes as `listId` (lists are public: any tenant's), as
 * stored — what `GET /status/:listId` serves, except that a list changed within its interval
 * may not be signed yet —; undefined when there is no such list or it was never signed.
 */
export async function publishedList(
  ctx: Pick<StatusContext, 'storage'>,
  listId: string,
): Promise<{ credential: string | Record<string, unknown>; etag: string } | undefined> {
  const list = await collectionOf(ctx.storage, STATUS_LISTS).get(listId)
  return list?.credential !== undefined && list.etag !== undefined ? { credential: list.credential, etag: list.etag } : undefined
}
