/**
 * The IETF Token Status List mechanism (draft-ietf-oauth-status-list), for SD-JWT VCs: one list per issuer, one entry
 * per credential holding every purpose it was issued with, `bits: 2` — 0 valid, 1 invalid (revoked: final, never
 * changed again), 2 suspended. `revocation: true` sets 1; `suspension: true` sets 2 and `false` sets 0 back. The
 * credential carries `status.status_list { idx, uri }`; the list is a Status List Token (`typ: statuslist+jwt`, `sub`
 * its URI, `iat`, `exp` = `iat` + the token lifetime — none for an MPC issuer's list, which only requests with its
 * quorum sign —, `ttl`), signed by the issuer's key with `kid` its verification method.
 */
import { jwtIssuerOf } from '../../proofs/jwt-signer.js'
import { listUrlOf } from '../list-url.js'
import {
  STATUS_INVALID,
  STATUS_LIST_JWT_TYPE,
  STATUS_SUSPENDED,
  STATUS_VALID,
  encodeStatusList,
  signStatusListToken,
} from '../token-status-list/index.js'
import type { StatusMechanism } from './port.js'

/** Bits per entry: room for valid, invalid and suspended. */
export const TOKEN_STATUS_BITS = 2

const seconds = (ms: number) => Math.floor(ms / 1000)
const REVOKED_IS_FINAL = 'revocation is final (a revoked entry is never changed again)'

export const tokenStatusListMechanism: StatusMechanism = {
  name: 'Token Status List',
  entries: 'perCredential',
  claimOf: (entries) => entries.slice(0, 1).map(({ url, index }) => ({ status_list: { idx: index, uri: url } })),
  next(current, purpose, value) {
    if (current === STATUS_INVALID) return value && purpose === 'revocation' ? STATUS_INVALID : REVOKED_IS_FINAL
    if (purpose === 'revocation') return value ? STATUS_INVALID : current
    return value ? STATUS_SUSPENDED : STATUS_VALID
  },
  valueFor: (status, purpose) => status === (purpose === 'revocation' ? STATUS_INVALID : STATUS_SUSPENDED),
  async sign({ list, statuses, signer, now, quorum, resolver, lifetimeMs, ttlMs }) {
    const values = new Uint8Array(list.size)
    for (const [index, status] of statuses) {
      if (!Number.isSafeInteger(index) || index < 0 || index >= list.size)
        throw new RangeError(`status list ${list.id}: index ${index} is not one of its ${list.size} entries`)
      values[index] = status
    }
    const lst = encodeStatusList(values, TOKEN_STATUS_BITS)
    const kid =
      (await jwtIssuerOf(list.issuer, signer, { resolver })).kid ??
      (list.issuer.startsWith('did:ethr:') ? `${list.issuer}#controller` : undefined)
    if (kid === undefined) throw new Error(`no verification method of ${list.issuer} lists the issuer's key`)
    const iat = seconds(now)
    // An MPC issuer's list is signed only when a request with its quorum changes it: it must not expire meanwhile.
    const exp = quorum ? undefined : iat + Math.max(1, seconds(lifetimeMs))
    const credential = await signStatusListToken({
      signer,
      kid,
      uri: listUrlOf(list.baseUrl, list.id),
      bits: TOKEN_STATUS_BITS,
      lst,
      iat,
      ...(exp !== undefined && { exp }),
      ttl: Math.max(1, seconds(ttlMs)),
    })
    return { credential, encodedList: lst, ...(exp !== undefined && { expiresAt: exp * 1000 }) }
  },
  mediaType: () => `application/${STATUS_LIST_JWT_TYPE}`,
}
