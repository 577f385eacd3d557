/**
 * The DID parameters that ask for a past DID document: `versionId` and `versionTime` (DID Core
 * §3.2.1), read from a DID URL — its query (`did:ethr:dev:0x…?versionTime=2024-05-01T12:00:00Z`)
 * or did-resolver's `;name=value` parameters — and written into one for
 * `IdentityService.resolveDid(did, { versionId, versionTime })`.
 *
 * A malformed value is never ignored: it makes the resolution fail with `invalidDidUrl`.
 * Malformed means: a `versionId` that is not a decimal integer from 0 to 2^53 − 1; a
 * `versionTime` that is not an ISO 8601 date-time with seconds and an explicit offset
 * (`Z` or `±hh:mm`; fractions of a second are allowed and truncated); either one given
 * twice; both given together; or a query whose percent-encoding is broken.
 */
import type { DIDResolutionResult, ParsedDID } from 'did-resolver'
import { resolutionFailure } from './methods/ethr/index.js'

/** The version a resolution asks for: a version number, or a time (UNIX seconds, whole). */
export type DidVersion = { versionId: number } | { versionTime: number }

/** `IdentityService.resolveDid`'s options: the DID parameters as a caller writes them. */
export interface DidVersionQuery {
  /** The version number: an event sequence number (embedded registry) or a block number (on chain). */
  versionId?: number | string
  /** ISO 8601 date-time with an offset, e.g. `2024-05-01T12:00:00Z`. */
  versionTime?: string
}

/** What a DID URL asks for: the current document (`version` undefined), a past one, or nothing valid. */
export type VersionRequest = { ok: true; version?: DidVersion } | { ok: false; failure: DIDResolutionResult }

const PARAMETERS = ['versionId', 'versionTime'] as const
const INTEGER = /^\d+$/
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:Z|([+-])(\d{2}):(\d{2}))$/

/** The version that `parsed` (a did-resolver parsed DID URL) asks for. */
export function versionRequest(parsed: Pick<ParsedDID, 'query' | 'params'>): VersionRequest {
  let pairs: Array<[string, string]>
  try {
    pairs = [...Object.entries(parsed.params ?? {}), ...queryPairs(parsed.query)].map(([name, value]) => [
      decodeURIComponent(name),
      decodeURIComponent(value),
    ])
  } catch {
    return invalid('the DID URL has a malformed percent-encoding')
  }
  const given = pairs.filter(([name]) => (PARAMETERS as readonly string[]).includes(name))
  if (given.length === 0) return { ok: true }
  for (const name of PARAMETERS) {
    if (given.filter(([n]) => n === name).length > 1) return invalid(`${name} is given more than once`)
  }
  if (given.length > 1) return invalid('give versionId or versionTime, not both')
  const [[name, value]] = given
  if (name === 'versionId') {
    const versionId = INTEGER.test(value) ? Number(value) : NaN
    if (!Number.isSafeInteger(versionId))
      return invalid(`versionId must be a non-negative integer (at most 2^53 - 1), not "${clip(value)}"`)
    return { ok: true, version: { versionId } }
  }
  const versionTime = unixSeconds(value)
  if (versionTime === undefined)
    return invalid(`versionTime must be an ISO 8601 date-time with an offset, such as 2024-05-01T12:00:00Z, not "${clip(value)}"`)
  return { ok: true, version: { versionTime } }
}

/** `didUrl` with the options' DID parameters added to its query (as given: malformed values are refused at resolution). */
export function withVersion(didUrl: string, query: DidVersionQuery = {}): string {
  const added = PARAMETERS.filter((name) => query[name] !== undefined).map((name) => `${name}=${encodeURIComponent(String(query[name]))}`)
  if (added.length === 0) return didUrl
  const hash = didUrl.indexOf('#')
  const [base, fragment] = hash < 0 ? [didUrl, ''] : [didUrl.slice(0, hash), didUrl.slice(hash)]
  return `${base}${base.includes('?') ? '&' : '?'}${added.join('&')}${fragment}`
}

/** A URL query's `name=value` pairs, still percent-encoded (`+` is a plus sign in a DID URL, not a space). */
function queryPairs(query: string | undefined): Array<[string, string]> {
  if (!query) return []
  return query
    .split('&')
    .filter(Boolean)
    .map((pair) => {
      const eq = pair.indexOf('=')
      return eq < 0 ? [pair, ''] : [pair.slice(0, eq), pair.slice(eq + 1)]
    })
}

/** An ISO 8601 date-time with an offset as whole UNIX seconds (fractions dropped), or undefined when it names no real instant. */
function unixSeconds(text: string): number | undefined {
  const m = DATE_TIME.exec(text)
  if (!m) return undefined
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number)
  const offset = m[7] ? (m[7] === '-' ? -1 : 1) * (Number(m[8]) * 3600 + Number(m[9]) * 60) : 0
  if (hour > 23 || minute > 59 || second > 59 || Number(m[8] ?? 0) > 23 || Number(m[9] ?? 0) > 59) return undefined
  const date = new Date(0)
  date.setUTCFullYear(year, month - 1, day)
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined
  return date.getTime() / 1000 + hour * 3600 + minute * 60 + second - offset
}

function invalid(message: string): VersionRequest {
  return { ok: false, failure: resolutionFailure('invalidDidUrl', message) }
}

/** A caller's value in a message: short, whatever its length. */
function clip(value: string): string {
  return value.length > 40 ? `${value.slice(0, 40)}…` : value
}
