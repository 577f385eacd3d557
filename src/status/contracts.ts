/**
 * The contracts of the status-list operations (see `operations/contract.ts`). Browser-safe:
 * schemas and types only.
 */
import { BODY_ERRORS, defineContract, QUERY_ERRORS, UNAVAILABLE_ERRORS } from '../operations/contract.js'
import {
  changeStatus,
  changeStatusResponse,
  getStatusListParams,
  getStatusListQuery,
  listStatusListsQuery,
  servedStatusList,
  statusListsPage,
} from './schemas.js'

export const STATUS_CONTRACTS = {
  /** Change Credential Status (`POST /claims/status`): revoke, suspend, unsuspend entries of status lists. */
  changeStatus: defineContract({
    summary: 'Change Credential Status',
    description:
      'Each item names `credentialStatus` entries — of a stored credential (`_id`), of a credential `id` issued here, or ' +
      'one by `statusListCredential` + `statusListIndex` — of its `purpose`, and sets them to `value`. Only whoever ' +
      'controls the list’s issuer DID (its owner key) or the vault holding its wallet may. Revocation is final (`value: ' +
      'false` on a revoked entry is 422); suspension toggles. Every change is logged (who, when, which entry); the list ' +
      'is signed again within `statusPublishIntervalMs`. Failures are elements of `errors`, nothing written for them.',
    auth: 'tenant+did',
    tag: 'Verifiable credentials',
    audit: { action: 'credential.status', target: 'credential' },
    errors: BODY_ERRORS,
    routes: [{ method: 'post', path: '/claims/status' }],
    input: changeStatus,
    batch: 'items',
    response: changeStatusResponse,
    example: { items: [{ _id: '4f1c2b1e-8f4e-4c2a-9a57-0d7b8c3e5f21', purpose: 'revocation', value: true }] },
  }),
  /** Get a Status List (`GET /status/:listId`, public): the signed BitstringStatusListCredential or Status List Token. */
  getStatusList: defineContract({
    summary: 'Get a Status List',
    description:
      'The signed `BitstringStatusListCredential` as stored — JSON-LD (`application/vc+ld+json`) or a VC-JWT ' +
      '(`application/vc+jwt`) — or, for SD-JWT VCs, the Status List Token (`application/statuslist+jwt`, signed again ' +
      'from half its lifetime on) with its `ETag` (304 on `If-None-Match`) and `Cache-Control: public, max-age` of at ' +
      'most the publication interval. Over HTTP the document itself is the body; the embedded API answers ' +
      "`{ document, contentType, etag, maxAge }`. 404 for an unknown list (or an MPC issuer's list no request with its quorum signed yet).",
    auth: 'public',
    tag: 'Verifiable credentials',
    errors: { 404: 'NOT_FOUND: no such status list', ...UNAVAILABLE_ERRORS },
    routes: [{ method: 'get', path: '/status/:listId' }],
    params: getStatusListParams,
    input: getStatusListQuery,
    response: servedStatusList,
    document: true,
  }),
  /** List Status Lists (`GET /status-lists`): the tenant's status lists, oldest first, paged. */
  listStatusLists: defineContract({
    summary: 'List Status Lists',
    description:
      'The caller’s tenant’s status lists, oldest first, at most `limit` per page (`nextCursor` when more follow): id, URL, ' +
      'purpose, format and mechanism, size and entries allocated, issuer DID, creation and last change, and of the stored ' +
      'signed list its signature date (`signedAt`), expiry and `ETag` (`pending` while a change is not signed yet). ' +
      '`withBits=true` adds each list’s current statuses as a bitstring (`bits`); the signed list itself is public at ' +
      '`GET /status/:listId` (no token needed). Needs the tenant’s Base Auth Token; another tenant’s lists are never listed.',
    auth: 'tenant',
    tag: 'Verifiable credentials',
    errors: QUERY_ERRORS,
    routes: [{ method: 'get', path: '/status-lists' }],
    input: listStatusListsQuery,
    response: statusListsPage,
  }),
}
