/**
 * Gathers the policy's facts about a caller (see `auth/facts.ts`): the keys controlling a DID by resolution (through
 * one resolver per request: did:web documents are read once per request, under its budget),
 * the DIDs it acts through, its effective roles and its vault keys by indexed queries — never a
 * collection loaded and filtered in JavaScript. Each part is gathered at most once per request,
 * and only when a decision needs it: the {@link Caller} object of a request is the memo key.
 */
import type { DIDDocument, Resolvable } from 'did-resolver'
import type { Caller } from '../auth/context.js'
import type { CallerFactSource } from '../auth/facts.js'
import { callerKeys, type ActingFacts, type HoldingFacts, type Permission, type VaultKeyFacts } from '../auth/policy-engine.js'
import { eip55Address, parseEthrDid, principalOf } from '../did/methods/ethr/index.js'
import { controllingKeysOfDocument, didMethodOf, type ControllingKey } from '../did/methods/index.js'
import { authenticationKeyIds } from '../proofs/method-key-ids.js'
import { collectionOf, tenantCollectionOf } from '../storage/declaration.js'
import type { StorageAdapter } from '../storage/port.js'
import { WALLETS } from '../wallets/records.js'
import { ROLE_ASSIGNMENTS, ROLES } from './records.js'

/** Wallets looked at for the caller's vault keys (a caller proves at most 10 keys; each key is one wallet's). */
const MAX_KEYS_CHECKED = 100

/**
 * For the DID methods that follow a document's `controller` (did:web, `DidWebMethodOptions.otherControllingKeys`): the
 * keys that control a DID of another method — a registered method's own `controllingKeys` (did:key, did:jwk), a did:ethr
 * DID's owner address as the facts resolve it — and none for any other.
 */
export function otherControllingKeys(callers: Pick<CallerFactSource, 'controllingKeys'>): (did: string) => Promise<ControllingKey[]> {
  return async (did) => {
    const method = didMethodOf(did)
    if (method !== undefined) return method.controllingKeys(did)
    if (parseEthrDid(did) === undefined) return []
    return (await callers.controllingKeys(did)).map((address) => ({ methodId: `${principalOf(did)}#controller`, address }))
  }
}

/** The parts of one request's caller facts, each gathered once, when first needed. */
interface Memo {
  /** The request's resolver of DIDs of other methods than did:ethr. */
  resolver?: Resolvable
  acting?: Promise<ActingFacts>
  holding?: Promise<HoldingFacts>
  vaultKeys?: Promise<VaultKeyFacts>
}

/** The caller facts of a service, over its resolvers and storage: wallets (acting DIDs, vault keys) and roles held. */
export class CallerFacts implements CallerFactSource {
  readonly #memo = new WeakMap<Caller, Memo>()

  /**
   * @param resolver - the service's registries (did:ethr)
   * @param storage - the service's storage
   * @param resolverForRequest - a resolver of the other methods for one request (the `default` resolver: did:key and
   *   did:jwk offline, the service's own did:web from storage, foreign did:web from `didWebOrigins` under one budget)
   */
  constructor(
    private readonly resolver: Resolvable,
    private readonly storage: StorageAdapter,
    private readonly resolverForRequest: () => Resolvable = () => resolver,
  ) {}

  /** The caller's keys and the DIDs it acts through. */
  acting(caller: Caller): Promise<ActingFacts> {
    const memo = this.#memoOf(caller)
    return (memo.acting ??= this.#acting(caller))
  }

  /** With the caller's effective roles: the roles assigned to the DIDs it acts through. */
  holding(caller: Caller): Promise<HoldingFacts> {
    const memo = this.#memoOf(caller)
    return (memo.holding ??= this.acting(caller).then(async (acting) => ({
      ...acting,
      roles: await this.#roles(caller.tenantId, acting.dids),
    })))
  }

  /** The caller's keys and the vaults they are the own keys of wallets of. */
  vaultKeys(caller: Caller): Promise<VaultKeyFacts> {
    const memo = this.#memoOf(caller)
    return (memo.vaultKeys ??= this.#vaultKeys(caller).then((vaultKeys) => ({ keys: callerKeys(caller), vaultKeys })))
  }

  /**
   * The key ids of the keys that control `did` now: for did:ethr its owner's address (its `#controller`; delegates
   * never control), for any other method the keys its current document lists under `authentication`, and the keys that
   * control the DIDs its document names as `controller` (one level).
   */
  async controllingKeys(did: string, caller?: Caller, depth = 0): Promise<readonly string[]> {
    if (parseEthrDid(did) !== undefined) {
      const owner = await this.#ownerAddress(did, caller)
      return owner === undefined ? [] : [owner]
    }
    const resolver = caller === undefined ? this.resolverForRequest() : (this.#memoOf(caller).resolver ??= this.resolverForRequest())
    const { didDocument } = await resolver.resolve(did)
    if (!didDocument) return []
    const own = (document: DIDDocument) => authenticationKeyIds(document).map((m) => m.keyId)
    // A document's `controller` (a did:web handed over with `newOwner`): the keys that control that DID control this one —
    // one level only (`did/methods/controllers.ts`, the rule the DID methods' `controllingKeys` follow too).
    if (depth > 0) return own(didDocument)
    return [...new Set(await controllingKeysOfDocument(didDocument, own, (c) => this.controllingKeys(c, caller, depth + 1)))]
  }

  /**
   * The address of the current owner of a did:ethr document (its `#controller`) — the same for
   * both spellings of a principal: the address form is resolved; undefined when it does not
   * resolve. An owner the caller's tokens proved in this request (`caller.owners`) is taken as is.
   */
  async #ownerAddress(did: string, caller?: Caller): Promise<string | undefined> {
    const principal = principalOf(did)
    if (caller?.owners !== undefined && Object.hasOwn(caller.owners, principal)) return caller.owners[principal]
    const { didDocument } = await this.resolver.resolve(principal)
    const controller = didDocument?.verificationMethod?.find((vm) => vm.id === `${principal}#controller`)
    const account = controller?.blockchainAccountId?.split(':').pop()
    return account ? eip55Address(account) : undefined
  }

  /** The facts of a request's caller: the {@link Caller} object is the memo key, so they are gathered once per request. */
  #memoOf(caller: Caller): Memo {
    let memo = this.#memo.get(caller)
    if (memo === undefined) {
      memo = {}
      this.#memo.set(caller, memo)
    }
    return memo
  }

  async #acting(caller: Caller): Promise<ActingFacts> {
    return { keys: callerKeys(caller), dids: await this.#actingDids(caller, new Set(caller.addresses)) }
  }

  /**
   * The did:ethr DIDs the caller named whose current owner key signed one of its tokens, and the DIDs of other methods
   * whose current authentication key signed one (`Caller.keyControlled`, checked when the token was verified) — except
   * wallets of another tenant: a request never acts through another tenant's identities (one
   * query on the global unique index of wallet DIDs). DIDs outside the service are kept.
   */
  async #actingDids(caller: Caller, addresses: ReadonlySet<string>): Promise<Set<string>> {
    const byKey = caller.keyControlled ?? []
    if (addresses.size === 0 && byKey.length === 0) return new Set()
    const ethr = caller.dids.filter((did) => parseEthrDid(did) !== undefined)
    const owners = addresses.size === 0 ? [] : await Promise.all(ethr.map((did) => this.#ownerAddress(did, caller)))
    const byOwner = ethr.filter((_did, i) => owners[i] !== undefined && addresses.has(owners[i]))
    const owned = [...new Set([...byOwner, ...byKey])]
    if (owned.length === 0) return new Set()
    const wallets = await collectionOf(this.storage, WALLETS).find(
      { field: 'did', op: 'in', value: owned },
      { orderBy: { field: 'did' }, limit: owned.length },
    )
    const foreign = new Set(wallets.items.filter((w) => w.tenantId !== caller.tenantId).map((w) => w.did))
    return new Set(owned.filter((did) => !foreign.has(did)))
  }

  /** The roles assigned to `dids`, with their permissions: two indexed queries. */
  async #roles(tenantId: string, dids: ReadonlySet<string>): Promise<Map<string, readonly Permission[]>> {
    if (dids.size === 0) return new Map()
    const assignments = tenantCollectionOf(this.storage, ROLE_ASSIGNMENTS, tenantId)
    const held = await assignments.all({ field: 'did', op: 'in', value: [...dids] }, { orderBy: { field: 'did' } })
    if (held.length === 0) return new Map()
    const roles = tenantCollectionOf(this.storage, ROLES, tenantId)
    const records = await roles.all({ field: 'did', op: 'in', value: [...new Set(held.map((a) => a.role))] }, { orderBy: { field: 'did' } })
    return new Map(records.map((r) => [r.did, r.permissions]))
  }

  /**
   * Vaults with a wallet whose own key signed one of the caller's tokens (keys are unique: a handful): wallets by the key
   * id of their own key (every key type), and wallets made before key ids by their secp256k1 key's address.
   */
  async #vaultKeys(caller: Caller): Promise<Set<string>> {
    const keys = [...callerKeys(caller)]
    if (keys.length === 0) return new Set()
    const wallets = tenantCollectionOf(this.storage, WALLETS, caller.tenantId)
    const [byKeyId, byAddress] = await Promise.all([
      wallets.find({ field: 'keyId', op: 'in', value: keys }, { orderBy: { field: 'keyId' }, limit: MAX_KEYS_CHECKED }),
      caller.addresses.length === 0
        ? { items: [] }
        : wallets.find(
            { field: 'ethereumAddress', op: 'in', value: caller.addresses },
            { orderBy: { field: 'ethereumAddress' }, limit: MAX_KEYS_CHECKED },
          ),
    ])
    return new Set([...byKeyId.items, ...byAddress.items].flatMap((w) => (w.vaultId === undefined ? [] : [w.vaultId])))
  }
}
