/**
 * The status checks of `POST /claims/verify` (docs/credentials.md *Checking status when
 * verifying*): one named check (`status`) per `credentialStatus` entry of a credential whose
 * other checks passed. Each reads the entry's list ({@link StatusListSource}: the service's own,
 * or one of an allowed origin), verifies and decodes it ({@link readStatusList}), and checks its
 * issuer and purpose against the entry, the index against its length, and the bit: set for
 * `revocation` or `suspension` fails the check. Every failure is a failed check with a named
 * `reason`, never a throw.
 *
 * A verified, decoded list is kept by version (content digest, or the own list's ETag) in a
 * bounded cache: a credential whose list is held is checked without a request, a signature
 * check or a GZIP inflate.
 */
import type { VerificationCheck } from '../credentials/schemas.js'
import type { CredentialStatusCheck, CredentialVerifyOptions, StatusBearing } from '../credentials/verify-credential.js'
import { BoundedCache } from './status-list-cache.js'
import { ENTRY_TYPES, entriesOf, entryFields, parseEntry, type StatusEntry, type StatusProblem } from './status-list-entry.js'
import { readStatusList, type ReadList } from './status-list-read.js'
import { StatusListSource, checkedOrigins, type OwnStatusLists } from './status-list-source.js'

/** Options of {@link StatusVerifier}; see `IdentityServiceOptions.statusLists`. */
export interface StatusVerifierOptions {
  /** The service's public base URL: lists under `<publicUrl>/status/` are its own. */
  publicUrl?: string
  /** The service's own lists (absent: a list under `publicUrl` is not found). */
  own?: OwnStatusLists
  /** Origins foreign lists may be fetched from (https; http on loopback). Default: none. */
  origins?: readonly string[]
  /** Longest wait for a foreign list, ms (default 5 s). */
  timeoutMs?: number
  /** Largest list read, and largest decoded bitstring, bytes (default 2 MiB). */
  maxBytes?: number
  /** Most lists kept, fetched and decoded each (default 32). */
  cacheSize?: number
}

/** Most status entries checked in one credential; more is a failed check. */
export const MAX_STATUS_ENTRIES = 20
const FAILING_PURPOSES = new Map<string, 'revoked' | 'suspended'>([
  ['revocation', 'revoked'],
  ['suspension', 'suspended'],
])

export class StatusVerifier {
  readonly #source: StatusListSource
  readonly #lists: BoundedCache<string, ReadList>
  readonly #maxBytes: number

  /** @throws {TypeError} an origin that is not https (or http on loopback), or a bad bound */
  constructor(options: StatusVerifierOptions = {}) {
    if (options.publicUrl !== undefined && !/^https?:\/\/[^/?#]+(\/[^?#]*)?$/.test(options.publicUrl))
      throw new TypeError('publicUrl: must be an absolute http(s) URL without query or fragment')
    this.#maxBytes = options.maxBytes ?? 2 * 1024 * 1024
    const cacheSize = options.cacheSize ?? 32
    this.#source = new StatusListSource({
      ...(options.publicUrl !== undefined && { publicUrl: new URL(options.publicUrl).href.replace(/\/+$/, '') }),
      ...(options.own !== undefined && { own: options.own }),
      origins: checkedOrigins(options.origins ?? []),
      timeoutMs: options.timeoutMs ?? 5_000,
      maxBytes: this.#maxBytes,
      cacheSize,
    })
    this.#lists = new BoundedCache(cacheSize)
  }

  /** The checks of `credential`'s status entries (a {@link CredentialStatusCheck}). */
  readonly check: CredentialStatusCheck = async (credential, options) => {
    const entries = entriesOf(credential.credentialStatus)
    if (entries.length > MAX_STATUS_ENTRIES) {
      const error = `more than ${MAX_STATUS_ENTRIES} status entries`
      return [{ check: 'status', verified: false, reason: 'malformedEntry', error }]
    }
    const checks: VerificationCheck[] = []
    for (const [index, entry] of entries.entries()) {
      const fields: VerificationCheck = { check: 'status', entry: index, ...entryFields(entry), verified: false }
      const parsed = parseEntry(entry)
      const found = 'reason' in parsed ? parsed : await this.#checkEntry(parsed, credential, options)
      checks.push({ ...fields, ...found })
    }
    return checks
  }

  async #checkEntry(
    entry: StatusEntry,
    credential: StatusBearing,
    options: CredentialVerifyOptions,
  ): Promise<StatusProblem | { verified: boolean; value: boolean; reason?: 'revoked' | 'suspended'; error?: string }> {
    const held = await this.#source.get(entry.url, options.now)
    if ('reason' in held) return held
    let list = this.#lists.get(held.version)
    if (list === undefined) {
      const read = await readStatusList(held.credential, options, this.#maxBytes)
      if ('reason' in read) return read
      this.#lists.set(held.version, (list = read))
    }
    if (list.entryType !== entry.type)
      return { reason: 'malformedList', error: `status list: a ${entry.type} needs a ${ENTRY_TYPES[entry.type].list}` }
    if (list.issuer !== credential.issuer)
      return { reason: 'issuerMismatch', error: `the status list’s issuer ${list.issuer} is not the credential’s ${credential.issuer}` }
    if (!list.purposes.includes(entry.purpose))
      return { reason: 'purposeMismatch', error: `the status list is for ${list.purposes.join(', ')}, not ${entry.purpose}` }
    if (entry.index >= list.bits.length)
      return { reason: 'indexOutOfRange', error: `statusListIndex ${entry.index} is beyond the list’s ${list.bits.length} entries` }
    const value = list.bits.get(entry.index)
    const failure = value ? FAILING_PURPOSES.get(entry.purpose) : undefined
    if (failure === undefined) return { verified: true, value }
    return { verified: false, value, reason: failure, error: `${failure}: entry ${entry.index} of its status list is set` }
  }
}
