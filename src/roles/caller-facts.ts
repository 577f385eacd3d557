/**
 * Gathers the policy's facts about a caller (see `auth/facts.ts`): DID owners by resolution,
 * the DIDs it acts through, its effective roles and its vault keys by indexed queries — never a
 * collection loaded and filtered in JavaScript. Each part is gathered at most once per request,
 * and only when a decision needs it: the {@link Caller} object of a request is the memo key.
 */
import type { Resolvable } from 'did-resolver'
import type { Caller } from '../auth/context.js'
import type { CallerFactSource } from '../auth/facts.js'
import type { ActingFacts, HoldingFacts, Permission, VaultKeyFacts } from '../auth/policy-engine.js'
import { eip55Address, principalOf } from '../did/methods/ethr/index.js'
import { collectionOf, tenantCollectionOf } from '../storage/declaration.js'
import type { StorageAdapter } from '../storage/port.js'
import { WALLETS } from '../wallets/records.js'
import { ROLE_ASSIGNMENTS, ROLES } from './records.js'

/** Wallets looked at for the caller's vault keys (a caller proves at most 10 keys; each key is one wallet's). */
const MAX_KEYS_CHECKED = 100

/** The parts of one request's caller facts, each gathered once, when first needed. */
interface Memo {
  acting?: Promise<ActingFacts>
  holding?: Promise<HoldingFacts>
  vaultKeys?: Promise<VaultKeyFacts>
}

/** The caller facts of a service, over its resolver and storage: wallets (acting DIDs, vault keys) and roles held. */
export class CallerFacts implements CallerFactSource {
  readonly #memo = new WeakMap<Caller, Memo>()

  constructor(
    private readonly resolver: Resolvable,
    private readonly storage: StorageAdapter,
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
    return (memo.vaultKeys ??= this.#vaultKeys(caller).then((vaultKeys) => ({ addresses: new Set(caller.addresses), vaultKeys })))
  }

  /**
   * The address of the current owner of a did:ethr document (its `#controller`) — the same for
   * both spellings of a principal: the address form is resolved; undefined when it does not
   * resolve. An owner the caller's tokens proved in this request (`caller.owners`) is taken as is.
   */
  async ownerAddress(did: string, caller?: Caller): Promise<string | undefined> {
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
    const addresses = new Set(caller.addresses)
    return { addresses, dids: await this.#actingDids(caller, addresses) }
  }

  /**
   * The DIDs the caller named whose current owner key signed one of its tokens, and the did:key / did:jwk DIDs whose
   * authentication key signed one (`Caller.keyControlled`) — except
   * wallets of another tenant: a request never acts through another tenant's identities (one
   * query on the global unique index of wallet DIDs). DIDs outside the service are kept.
   */
  async #actingDids(caller: Caller, addresses: ReadonlySet<string>): Promise<Set<string>> {
    const byKey = caller.keyControlled ?? []
    if (addresses.size === 0 && byKey.length === 0) return new Set()
    const owners = addresses.size === 0 ? [] : await Promise.all(caller.dids.map((did) => this.ownerAddress(did, caller)))
    const byOwner = caller.dids.filter((_did, i) => owners[i] !== undefined && addresses.has(owners[i]))
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

  /** Vaults with a wallet whose own key signed one of the caller's tokens (keys are unique: a handful). */
  async #vaultKeys(caller: Caller): Promise<Set<string>> {
    if (caller.addresses.length === 0) return new Set()
    const wallets = tenantCollectionOf(this.storage, WALLETS, caller.tenantId)
    const held = await wallets.find(
      { field: 'ethereumAddress', op: 'in', value: caller.addresses },
      { orderBy: { field: 'ethereumAddress' }, limit: MAX_KEYS_CHECKED },
    )
    return new Set(held.items.flatMap((w) => (w.vaultId === undefined ? [] : [w.vaultId])))
  }
}
