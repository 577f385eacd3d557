/**
 * Versions of an embedded registry's change log, numbered and dated the way `ethr-did-resolver`
 * numbers and dates an on-chain DID's versions by block: version `n` is the document after the
 * identity's first `n` events (event `seq` = its versionId, as `AppliedChange.versionId`
 * reports), version 0 the implicit document before any change.
 */
import type { DIDDocumentMetadata } from 'did-resolver'
import type { DidVersion } from '../../../version.js'

/** One version of a log. */
export interface LogVersion {
  /** How many of the log's first events it holds: its versionId. */
  count: number
  /** When (UNIX seconds) its delegates and attributes are judged valid (`validTo ≥ at`), as at a block's time on chain. */
  at: number
}

/**
 * The version `version` selects in a log whose event `i + 1` happened at `times[i]` (never
 * decreasing), when it is `now` (UNIX seconds); undefined when the log has no such version.
 *
 * - `versionId: n` — the first `n` events, judged at the time of event `n` (version 0 holds
 *   no event, so its time matters to nothing). Beyond the last event there is no version,
 *   as there is no block beyond the chain's head.
 * - `versionTime: t` — the events that happened by `t`, judged at `t` (a time before the
 *   first change selects version 0). A time later than `now` is taken as `now`: the log
 *   knows nothing of the future, so it does not foretell expiries.
 */
export function selectVersion(times: readonly number[], version: DidVersion, now: number): LogVersion | undefined {
  if ('versionId' in version) {
    const count = version.versionId
    if (count > times.length) return undefined
    return { count, at: count > 0 ? times[count - 1] : 0 }
  }
  const at = Math.min(version.versionTime, now)
  let count = 0
  while (count < times.length && times[count] <= at) count++
  return { count, at }
}

/**
 * The DID document metadata of version `count`, as `ethr-did-resolver` gives it for a block:
 * `versionId`/`updated` of its last change (none for version 0), and `nextVersionId`/
 * `nextUpdate` of the change after it (none for the latest version).
 */
export function versionMetadata(times: readonly number[], count: number): DIDDocumentMetadata {
  const meta: DIDDocumentMetadata = {}
  if (count > 0) {
    meta.versionId = String(count)
    meta.updated = isoSeconds(times[count - 1])
  }
  if (count < times.length) {
    meta.nextVersionId = String(count + 1)
    meta.nextUpdate = isoSeconds(times[count])
  }
  return meta
}

/** UNIX seconds as ISO 8601 without milliseconds, as `ethr-did-resolver` writes block times. */
function isoSeconds(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace('.000', '')
}
