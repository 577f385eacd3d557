/**
 * The status check of a Token Status List reference (an SD-JWT VC's `status.status_list { idx, uri }`,
 * draft-ietf-oauth-status-list § Referenced Token): the reference parsed, its status read — from the service's storage
 * for its own lists, else from a Status List Token fetched from an allowed origin and verified
 * (`verifyStatusListToken`: signature by `kid`'s DID, `typ`, `sub` = the URI, `exp`, the list within its bound) —
 * and judged: 0 valid; 1 invalid (reason `revoked`), 2 suspended (`suspended`), any other value not valid.
 */
import type { Resolvable } from 'did-resolver'
import type { StatusProblem } from './status-list-entry.js'
import { STATUS_INVALID, STATUS_SUSPENDED, STATUS_VALID, statusAt, verifyStatusListToken } from './token-status-list/index.js'
import type { VerifiedStatusListToken } from './token-status-list/index.js'

/** A Token Status List reference, parsed. */
export interface TokenStatusReference {
  index: number
  /** The Status List Token's URI, as the credential gives it. */
  uri: string
  url: URL
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Whether a status entry is a Token Status List reference (it has `status_list`). */
export const isTokenStatusReference = (entry: unknown): entry is { status_list: unknown } => isRecord(entry) && 'status_list' in entry

/** The fields of a reference a check reports. */
export function referenceFields(entry: { status_list: unknown }): {
  type: string
  statusListCredential?: string
  statusListIndex?: string
} {
  const ref = isRecord(entry.status_list) ? entry.status_list : {}
  return {
    type: 'TokenStatusList',
    ...(typeof ref.uri === 'string' && { statusListCredential: ref.uri.slice(0, 2_000) }),
    ...(Number.isSafeInteger(ref.idx) && { statusListIndex: String(ref.idx) }),
  }
}

/** The reference `status_list { idx, uri }` parsed, or why not: `idx` a non-negative integer, `uri` an http(s) URL. */
export function parseTokenReference(entry: { status_list: unknown }): TokenStatusReference | StatusProblem {
  const ref = entry.status_list
  if (!isRecord(ref)) return { reason: 'malformedEntry', error: 'status_list: must be an object { idx, uri }' }
  if (typeof ref.idx !== 'number' || !Number.isSafeInteger(ref.idx) || ref.idx < 0)
    return { reason: 'malformedEntry', error: 'status_list.idx: must be a non-negative integer' }
  let url: URL | undefined
  try {
    url = typeof ref.uri === 'string' ? new URL(ref.uri) : undefined
  } catch {
    url = undefined
  }
  if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:'))
    return { reason: 'malformedEntry', error: 'status_list.uri: must be an http(s) URL' }
  return { index: ref.idx, uri: ref.uri as string, url }
}

/** A status read from a list: the list's issuer DID and length, and the status at the reference's index. */
export interface ReadTokenStatus {
  issuer: string
  length: number
  status: number
}

/** The verdict of a read status: the check's fields. */
export function judgeTokenStatus(
  read: ReadTokenStatus,
  reference: TokenStatusReference,
  issuer: string,
): StatusProblem | { verified: boolean; value: boolean; reason?: 'revoked' | 'suspended' | 'unsupportedEntry'; error?: string } {
  if (read.issuer !== issuer)
    return { reason: 'issuerMismatch', error: `the status list’s issuer ${read.issuer} is not the credential’s ${issuer}` }
  if (reference.index >= read.length)
    return { reason: 'indexOutOfRange', error: `status_list.idx ${reference.index} is beyond the list’s ${read.length} entries` }
  const { status } = read
  if (status === STATUS_VALID) return { verified: true, value: false }
  if (status === STATUS_INVALID)
    return { verified: false, value: true, reason: 'revoked', error: `revoked: entry ${reference.index} of its status list is 1 (invalid)` }
  if (status === STATUS_SUSPENDED)
    return {
      verified: false,
      value: true,
      reason: 'suspended',
      error: `suspended: entry ${reference.index} of its status list is 2 (suspended)`,
    }
  return {
    verified: false,
    value: true,
    reason: 'unsupportedEntry',
    error: `entry ${reference.index} of its status list is ${status}, not valid`,
  }
}

/** A verified Status List Token's list, as a check reads it. */
export type VerifiedTokenList = Pick<VerifiedStatusListToken, 'issuer' | 'bits' | 'list'>

/** Status List Token `token`, fetched from `uri`, verified; or why not (`listNotVerified`, naming the failed check). */
export async function verifiedTokenList(
  token: unknown,
  uri: string,
  options: { resolver: Resolvable; now: number; maxBytes: number },
): Promise<VerifiedTokenList | StatusProblem> {
  const verified = await verifyStatusListToken(token, { resolver: options.resolver, uri, now: options.now, maxBytes: options.maxBytes })
  if (!verified.verified) return { reason: 'listNotVerified', error: `status list token: ${verified.check}: ${verified.reason}` }
  return { issuer: verified.issuer, bits: verified.bits, list: verified.list }
}

/** The status at `index` of a verified list, with its length (an index past it reads as 0 and fails on the length). */
export function readTokenList(list: VerifiedTokenList, index: number): ReadTokenStatus {
  const length = (list.list.length * 8) / list.bits
  return { issuer: list.issuer, length, status: index < length ? statusAt(list.list, list.bits, index) : 0 }
}
