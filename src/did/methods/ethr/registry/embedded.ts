/**
 * The embedded ERC-1056 registry: what an `EthereumDIDRegistry` contract would log, kept as
 * events in the `didEvents` collection of the service's `StorageAdapter`, and resolved to the
 * documents `ethr-did-resolver` would build from the same logs (see `../document.ts`).
 *
 * Writers append event `seq = head + 1` of the identity in one transaction with the owner
 * check and the head record (`didHeads`); the unique (network, identity, seq) index makes a
 * concurrent writer (another request, another process) collide, re-read the head and re-check,
 * so the change chain never forks and an owner change cannot be raced by the old owner.
 *
 * Resolution reads the identity's head (one primary-key read: other processes may have
 * written) and reuses the cached history and document while the head is unchanged and no
 * validity has passed since the document was built. Past versions (`?versionId=` = event
 * `seq`, `?versionTime=`) are built from the same history, cut where `./log-versions.ts` says.
 *
 * Event times never go backwards (an event is stamped no earlier than the one before it, as a
 * block is no earlier than its parent), so a time always selects a prefix of the log.
 */
import { randomUUID } from 'node:crypto'
import type { DIDResolutionResult, DIDResolver } from 'did-resolver'
import { getAddress, hexlify } from 'ethers'
import type { DigestSigner } from '../../../../keys/signer.js'
import type { DidEventRecord, DidHeadRecord } from '../records.js'
import { UniqueConstraintError, type Collection, type StorageAdapter } from '../../../../storage/port.js'
import { buildEthrDocument, type BuiltDocument, type Erc1056Event } from '../document.js'
import { parseEthrDid, type EthrNetwork } from '../ethr.js'
import { versionRequest, type DidVersion } from '../../../version.js'
import { selectVersion, versionMetadata } from './log-versions.js'
import { RegistryError, resolutionFailure, type AppliedChange, type DidRegistry, type RegistryChange } from './port.js'
import { DID_EVENTS, DID_HEADS } from '../records.js'
import { collectionOf } from '../../../../storage/declaration.js'

interface Chain {
  seq: number
  /** The identity's events, oldest first (`history[i]` has seq `i + 1`). */
  history: Erc1056Event[]
  /** `times[i]`: when `history[i]` happened, UNIX seconds. */
  times: number[]
  /** The document last built from `history`, and the `now` it was built at. */
  built?: { did: string; now: number; doc: BuiltDocument; result: DIDResolutionResult }
}

const MAX_CACHED = 10_000
const WRITE_ATTEMPTS = 32

export class EmbeddedRegistry implements DidRegistry {
  readonly endpoint = 'local'
  readonly resolver: DIDResolver
  readonly #events: Collection<DidEventRecord>
  readonly #heads: Collection<DidHeadRecord>
  readonly #chains = new Map<string, Chain>()

  /**
   * @param storage where the events live (the service's adapter).
   * @param network the network whose DIDs this registry records.
   * @param now the clock, ms (block time of the events and "now" of validity checks).
   */
  constructor(
    private readonly storage: StorageAdapter,
    readonly network: EthrNetwork,
    private readonly now: () => number = Date.now,
  ) {
    this.#events = collectionOf(storage, DID_EVENTS)
    this.#heads = collectionOf(storage, DID_HEADS)
    this.resolver = async (did, parsed) => {
      const request = versionRequest(parsed)
      return request.ok ? this.resolve(did, request.version) : request.failure
    }
  }

  async identityOwner(address: string): Promise<string> {
    return (await this.#head(address))?.owner ?? address
  }

  async identitiesHandedTo(owners: readonly string[], limit: number): Promise<string[]> {
    if (owners.length === 0 || limit <= 0) return []
    const heads = await this.#heads.find(
      {
        and: [
          { field: 'owner', op: 'in', value: [...owners] },
          { field: 'network', op: 'eq', value: this.network.name },
        ],
      },
      { orderBy: { field: 'identity' }, limit: limit + owners.length },
    )
    // An identity whose ownership came back to itself has its own key as owner: it is not handed over.
    return heads.items
      .filter((h) => h.owner !== h.identity)
      .slice(0, limit)
      .map((h) => h.identity)
  }

  async apply(address: string, input: RegistryChange, owner: DigestSigner): Promise<AppliedChange> {
    const change = normalized(input)
    const headId = `${this.network.name}/${address}`
    for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
      let record: DidEventRecord | undefined
      try {
        // The owner check, the event and the head commit together; a concurrent writer of the same
        // identity collides on (network, identity, seq).
        return await this.storage.transaction(async (tx) => {
          const heads = collectionOf(tx, DID_HEADS)
          const head = await heads.get(headId)
          const currentOwner = head?.owner ?? address
          if (owner.address !== currentOwner) throw new RegistryError(`bad_actor: ${owner.address} is not the owner of ${address}`)
          const seq = (head?.seq ?? 0) + 1
          const at = Math.max(head?.at ?? 0, Math.floor(this.now() / 1000))
          record = eventRecord(this.network.name, address, seq, at, currentOwner, change, this.now())
          await collectionOf(tx, DID_EVENTS).insert(record)
          const next = { seq, owner: record.owner, at }
          if (head) await heads.update(headId, next)
          else await heads.insert({ id: headId, network: this.network.name, identity: address, ...next, createdAt: record.createdAt })
          return appliedOf(change, record)
        })
      } catch (err) {
        if (err instanceof RegistryError) throw err
        // A failure whose outcome is unknown (e.g. a lost commit acknowledgement) may have landed:
        // the stored event carries this attempt's nonce only if it did; then it is applied, once.
        const stored = record && (await this.#events.get(record.id))
        if (stored && record && stored.nonce === record.nonce) return appliedOf(change, record)
        if (err instanceof UniqueConstraintError || stored) continue
        throw err
      }
    }
    throw new RegistryError(`too many concurrent changes of ${address}; try again`)
  }

  /**
   * Resolves a did:ethr DID of this network: its current document, or the version `version`
   * asks for (`notFound` when `versionId` is beyond the latest change).
   */
  async resolve(did: string, version?: DidVersion): Promise<DIDResolutionResult> {
    const parsed = parseEthrDid(did)
    if (!parsed || parsed.network !== this.network.name)
      return resolutionFailure('invalidDid', `Not a did:ethr of network ${this.network.name}: ${did}`)
    const chain = await this.#chain(parsed.address)
    const now = Math.floor(this.now() / 1000)
    if (version) {
      const selected = selectVersion(chain.times, version, now)
      if (!selected) return resolutionFailure('notFound', `no such version of ${did}: its latest version is ${chain.seq}`)
      const doc = buildEthrDocument({ ...parsed, did }, this.network.chainId, chain.history.slice(0, selected.count), selected.at)
      return resultOf(doc, versionMetadata(chain.times, selected.count))
    }
    const built = chain.built
    if (built && built.did === did && now >= built.now && now <= built.doc.stableUntil) return built.result
    const doc = buildEthrDocument({ ...parsed, did }, this.network.chainId, chain.history, now)
    const result = deepFreeze(resultOf(doc, versionMetadata(chain.times, chain.history.length)))
    chain.built = { did, now, doc, result }
    return result
  }

  /** The identity's history, from the cache while its head is unchanged. */
  async #chain(address: string): Promise<Chain> {
    const key = address
    const head = await this.#head(address)
    const cached = this.#chains.get(key)
    if (cached && cached.seq === (head?.seq ?? 0)) return cached
    const history: Erc1056Event[] = []
    const times: number[] = []
    let seq = 0
    if (head) {
      let cursor: string | undefined
      do {
        const page = await this.#events.find(this.#of(address, { field: 'seq', op: 'lte', value: head.seq }), {
          orderBy: { field: 'seq' },
          limit: 1_000,
          cursor,
        })
        for (const r of page.items) {
          history.push(eventOf(r))
          times.push(r.at)
        }
        cursor = page.nextCursor
      } while (cursor)
      seq = head.seq
    }
    const chain: Chain = { seq, history, times }
    if (this.#chains.size >= MAX_CACHED && !this.#chains.has(key)) this.#chains.delete(this.#chains.keys().next().value!)
    this.#chains.set(key, chain)
    return chain
  }

  /** The identity's head: one primary-key read. */
  #head(address: string): Promise<DidHeadRecord | undefined> {
    return this.#heads.get(`${this.network.name}/${address}`)
  }

  #of(address: string, extra?: { field: string; op: 'lte'; value: number }) {
    const and = [
      { field: 'network', op: 'eq' as const, value: this.network.name },
      { field: 'identity', op: 'eq' as const, value: address },
    ]
    return { and: extra ? [...and, extra] : and }
  }
}

/** Addresses in EIP-55 and bytes in lowercase hex, as a contract's logs decode. */
function normalized(change: RegistryChange): RegistryChange {
  switch (change.op) {
    case 'changeOwner':
      return { ...change, newOwner: getAddress(change.newOwner) }
    case 'addDelegate':
    case 'revokeDelegate':
      return { ...change, delegateType: bytes32(change.delegateType, 'delegateType'), delegate: getAddress(change.delegate) }
    default:
      return { ...change, name: bytes32(change.name, 'name'), value: hexlify(change.value) }
  }
}

/** ERC-1056 stores names and delegate types as bytes32: the same limit as on chain, so both registries refuse alike. */
function bytes32(text: string, what: string): string {
  if (Buffer.byteLength(text, 'utf8') > 31) throw new RegistryError(`${what} is longer than a bytes32 string (31 bytes)`)
  return text
}

function appliedOf(change: RegistryChange, record: DidEventRecord): AppliedChange {
  const applied: AppliedChange = { op: change.op, versionId: String(record.seq) }
  if (change.op === 'addDelegate' || change.op === 'setAttribute') applied.validTo = record.validTo
  return applied
}

function eventRecord(
  network: string,
  identity: string,
  seq: number,
  at: number,
  owner: string,
  change: RegistryChange,
  createdAt: number,
): DidEventRecord {
  const base = { id: `${network}/${identity}/${seq}`, nonce: randomUUID(), network, identity, seq, at, owner, createdAt }
  switch (change.op) {
    case 'changeOwner':
      return { ...base, event: 'DIDOwnerChanged', owner: change.newOwner }
    case 'addDelegate':
      return {
        ...base,
        event: 'DIDDelegateChanged',
        delegateType: change.delegateType,
        delegate: change.delegate,
        validTo: at + change.validity,
      }
    case 'revokeDelegate':
      // As ERC-1056: a revoked delegate is valid until the current block time.
      return { ...base, event: 'DIDDelegateChanged', delegateType: change.delegateType, delegate: change.delegate, validTo: at }
    case 'setAttribute':
      return { ...base, event: 'DIDAttributeChanged', name: change.name, value: change.value, validTo: at + change.validity }
    case 'revokeAttribute':
      return { ...base, event: 'DIDAttributeChanged', name: change.name, value: change.value, validTo: 0 }
  }
}

function eventOf(r: DidEventRecord): Erc1056Event {
  if (r.event === 'DIDOwnerChanged') return { event: r.event, owner: r.owner }
  if (r.event === 'DIDDelegateChanged') return { event: r.event, delegateType: r.delegateType!, delegate: r.delegate!, validTo: r.validTo! }
  return { event: r.event, name: r.name!, value: r.value!, validTo: r.validTo! }
}

/** A resolution result of `doc`: its document, and `meta` (with `deactivated` when it is). */
function resultOf(doc: BuiltDocument, meta: DIDResolutionResult['didDocumentMetadata']): DIDResolutionResult {
  return {
    didResolutionMetadata: { contentType: 'application/did+ld+json' },
    didDocument: doc.didDocument,
    didDocumentMetadata: doc.deactivated ? { deactivated: true, ...meta } : meta,
  }
}

/** Cached results are shared between callers: frozen, so no caller can change another's. */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const v of Object.values(value)) deepFreeze(v)
  }
  return value
}
