/**
 * The status checks of `POST /claims/verify` (docs/credentials.md *Checking status when
 * verifying*): one named check (`status`) per `credentialStatus` entry of a credential whose
 * other checks passed. Each reads the entry's list ({@link StatusListSource}): one of the
 * service's own lists from its storage as it is now (the entry's bit, the list's issuer,
 * purpose and size; published or not), or one of an allowed origin, verified and decoded
 * ({@link readStatusList}); then checks its issuer and purpose against the entry, the index
 * against its length, and the bit: set for `revocation` or `suspension` fails the check. Every
 * failure is a failed check with a named `reason`, never a throw.
 *
 * A verified, decoded list of another origin is kept by version (content digest) in a
 * bounded cache: a credential whose list is held is checked without a request, a signature
 * check or a GZIP inflate.
 *
 * Each request has a budget ({@link StatusVerifier.forRequest}, a {@link RequestFetches}): within
 * it each list URL is read once (its result, a failure included, serves every other entry naming
 * it), at most `maxListsPerRequest` distinct lists are fetched from other origins, and all its
 * status checks share one deadline (`requestDeadlineMs`, from its first check); an entry past
 * either fails its check naming the option.
 */
import type { VerificationCheck } from '../credentials/schemas.js'
import type { CredentialStatusCheck, CredentialStatusChecks, CredentialVerifyOptions, StatusBearing } from '../credentials/formats/index.js'
import { Exceeded, RequestFetches } from '../net/request-fetches.js'
import { BoundedCache } from './status-list-cache.js'
import { ENTRY_TYPES, entriesOf, entryFields, parseEntry, type StatusEntry, type StatusProblem } from './status-list-entry.js'
import { readStatusList, type ReadList } from './status-list-read.js'
import { StatusListSource, type OwnStatusLists } from './status-list-source.js'
import {
  isTokenStatusReference,
  judgeTokenStatus,
  parseTokenReference,
  readTokenList,
  referenceFields,
  verifiedTokenList,
  type ReadTokenStatus,
  type TokenStatusReference,
  type VerifiedTokenList,
} from './token-status-check.js'

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
  /** Most distinct lists of other origins one request reads (default 16); more fail their checks. */
  maxListsPerRequest?: number
  /** One deadline for all the status checks of a request, ms from its first (default 10 s). */
  requestDeadlineMs?: number
  /** How long a list that could not be fetched is not asked for again, its failure the answer, ms (default 30 s; 0: never). */
  negativeCacheMs?: number
}

/** Most status entries checked in one credential; more is a failed check. */
export const MAX_STATUS_ENTRIES = 20
const FAILING_PURPOSES = new Map<string, 'revoked' | 'suspended'>([
  ['revocation', 'revoked'],
  ['suspension', 'suspended'],
])

export class StatusVerifier implements CredentialStatusChecks {
  readonly #source: StatusListSource
  readonly #lists: BoundedCache<string, ReadList>
  /** Verified Status List Tokens of other origins, by version (content digest). */
  readonly #tokens: BoundedCache<string, VerifiedTokenList>
  readonly #maxBytes: number
  readonly #maxLists: number
  readonly #deadlineMs: number

  /** @throws {TypeError} an origin that is not https (or http on loopback), or a bad bound */
  constructor(options: StatusVerifierOptions = {}) {
    if (options.publicUrl !== undefined && !/^https?:\/\/[^/?#]+(\/[^?#]*)?$/.test(options.publicUrl))
      throw new TypeError('publicUrl: must be an absolute http(s) URL without query or fragment')
    this.#maxBytes = options.maxBytes ?? 2 * 1024 * 1024
    const cacheSize = options.cacheSize ?? 32
    this.#maxLists = bound('maxListsPerRequest', options.maxListsPerRequest ?? 16, 1)
    this.#deadlineMs = bound('requestDeadlineMs', options.requestDeadlineMs ?? 10_000, 1)
    const negativeCacheMs = bound('negativeCacheMs', options.negativeCacheMs ?? 30_000, 0)
    this.#source = new StatusListSource({
      ...(options.publicUrl !== undefined && { publicUrl: new URL(options.publicUrl).href.replace(/\/+$/, '') }),
      ...(options.own !== undefined && { own: options.own }),
      origins: options.origins ?? [],
      timeoutMs: options.timeoutMs ?? 5_000,
      maxBytes: this.#maxBytes,
      cacheSize,
      negativeCacheMs,
    })
    this.#lists = new BoundedCache(cacheSize)
    this.#tokens = new BoundedCache(cacheSize)
  }

  /**
   * The status check of one request (a {@link CredentialStatusCheck}): give every credential of
   * the request to it. `fetches`: the request's budget, when other reads of the request share it.
   */
  forRequest(fetches = new RequestFetches({ maxKeys: this.#maxLists, deadlineMs: this.#deadlineMs })): CredentialStatusCheck {
    return async (credential, options) => {
      const entries = entriesOf(credential.credentialStatus)
      if (entries.length > MAX_STATUS_ENTRIES) {
        const error = `more than ${MAX_STATUS_ENTRIES} status entries`
        return [{ check: 'status', verified: false, reason: 'malformedEntry', error }]
      }
      const checks: VerificationCheck[] = []
      for (const [index, entry] of entries.entries()) {
        if (isTokenStatusReference(entry)) {
          const parsed = parseTokenReference(entry)
          const found = 'reason' in parsed ? parsed : await this.#checkReference(parsed, credential, options, fetches)
          checks.push({ check: 'status', entry: index, ...referenceFields(entry), verified: false, ...found })
          continue
        }
        const fields: VerificationCheck = { check: 'status', entry: index, ...entryFields(entry), verified: false }
        const parsed = parseEntry(entry)
        const found = 'reason' in parsed ? parsed : await this.#checkEntry(parsed, credential, options, fetches)
        checks.push({ ...fields, ...found })
      }
      return checks
    }
  }

  async #checkEntry(
    entry: StatusEntry,
    credential: StatusBearing,
    options: CredentialVerifyOptions,
    fetches: RequestFetches,
  ): Promise<StatusProblem | { verified: boolean; value: boolean; reason?: 'revoked' | 'suspended'; error?: string }> {
    const ownId = this.#source.ownListId(entry.url)
    const list =
      ownId !== undefined
        ? await fetches.get(`own ${ownId} ${entry.index}`, () => this.#readOwn(ownId, entry.index), false)
        : await fetches.get(entry.url.href.split('#')[0], () => this.#read(entry.url, options), this.#source.isFetched(entry.url))
    if (list instanceof Exceeded) return list.limit === 'deadline' ? this.#pastDeadline() : this.#tooManyLists()
    if ('reason' in list) return list
    if (list.entryType !== entry.type)
      return { reason: 'malformedList', error: `status list: a ${entry.type} needs a ${ENTRY_TYPES[entry.type].list}` }
    if (list.issuer !== credential.issuer)
      return { reason: 'issuerMismatch', error: `the status list’s issuer ${list.issuer} is not the credential’s ${credential.issuer}` }
    if (!list.purposes.includes(entry.purpose))
      return { reason: 'purposeMismatch', error: `the status list is for ${list.purposes.join(', ')}, not ${entry.purpose}` }
    if (entry.index >= list.length)
      return { reason: 'indexOutOfRange', error: `statusListIndex ${entry.index} is beyond the list’s ${list.length} entries` }
    const value = list.get(entry.index)
    const failure = value ? FAILING_PURPOSES.get(entry.purpose) : undefined
    if (failure === undefined) return { verified: true, value }
    return { verified: false, value, reason: failure, error: `${failure}: entry ${entry.index} of its status list is set` }
  }

  /** The status a Token Status List reference names: of an own list from storage, else of a verified token of an allowed origin. */
  async #checkReference(
    reference: TokenStatusReference,
    credential: StatusBearing,
    options: CredentialVerifyOptions,
    fetches: RequestFetches,
  ) {
    const ownId = this.#source.ownListId(reference.url)
    let read: ReadTokenStatus | StatusProblem | Exceeded
    if (ownId !== undefined) {
      const own = await fetches.get(`own ${ownId} ${reference.index}`, () => this.#source.ownEntry(ownId, reference.index), false)
      read =
        own instanceof Exceeded || 'reason' in own
          ? own
          : { issuer: own.issuer, length: own.size, status: own.status ?? (own.value ? 1 : 0) }
    } else {
      const href = reference.url.href.split('#')[0]
      const list = await fetches.get(href, () => this.#readToken(reference, options), this.#source.isFetched(reference.url))
      read = list instanceof Exceeded || 'reason' in list ? list : readTokenList(list, reference.index)
    }
    if (read instanceof Exceeded) return read.limit === 'deadline' ? this.#pastDeadline() : this.#tooManyLists()
    if ('reason' in read) return read
    return judgeTokenStatus(read, reference, credential.issuer)
  }

  /** The Status List Token at the reference's URI, fetched and verified (or held), or why not. */
  async #readToken(reference: TokenStatusReference, options: CredentialVerifyOptions): Promise<VerifiedTokenList | StatusProblem> {
    const held = await this.#source.get(reference.url, options.now)
    if ('reason' in held) return held
    const kept = this.#tokens.get(held.version)
    if (kept !== undefined) return kept
    const verifying = { resolver: options.resolver, now: options.now, maxBytes: this.#maxBytes }
    const verified = await verifiedTokenList(held.credential, reference.uri, verifying)
    if (!('reason' in verified)) this.#tokens.set(held.version, verified)
    return verified
  }

  /** Entry `index` of the service's own list `listId`, from its storage as it is now (no signature read), or why not. */
  async #readOwn(listId: string, index: number): Promise<ListView | StatusProblem> {
    const own = await this.#source.ownEntry(listId, index)
    if ('reason' in own) return own
    const { issuer, purpose, size, value } = own
    return { entryType: 'BitstringStatusListEntry', issuer, purposes: [purpose], length: size, get: (i) => i === index && value }
  }

  /** The list at `url`, read and verified (or held), or why not. */
  async #read(url: URL, options: CredentialVerifyOptions): Promise<ListView | StatusProblem> {
    const held = await this.#source.get(url, options.now)
    if ('reason' in held) return held
    const kept = this.#lists.get(held.version)
    if (kept !== undefined) return viewOf(kept)
    const read = await readStatusList(held.credential, options, this.#maxBytes)
    if ('reason' in read) return read
    this.#lists.set(held.version, read)
    return viewOf(read)
  }

  #tooManyLists(): StatusProblem {
    const error = `status list: this request already reads ${this.#maxLists} lists of other origins (statusLists.maxListsPerRequest)`
    return { reason: 'tooManyLists', error }
  }

  #pastDeadline(): StatusProblem {
    const error = `status list: the request’s status checks took longer than ${this.#deadlineMs} ms (statusLists.requestDeadlineMs)`
    return { reason: 'requestDeadline', error }
  }
}

/** What a check reads of a list: who issued it, what for, the entry type it serves, its length and bits. */
interface ListView extends Omit<ReadList, 'bits'> {
  length: number
  get(index: number): boolean
}

const viewOf = (list: ReadList): ListView => ({ ...list, length: list.bits.length, get: (index) => list.bits.get(index) })

/** `value` when it is an integer of at least `min`. @throws {TypeError} naming the option otherwise */
function bound(name: string, value: number, min: number): number {
  if (!Number.isSafeInteger(value) || value < min) throw new TypeError(`statusLists.${name}: must be an integer of at least ${min}`)
  return value
}
