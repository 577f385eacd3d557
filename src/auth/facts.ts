/**
 * Gathers the facts the access policy (`policy.ts`) decides on: DID owners (resolution) and the
 * caller's effective roles and vault keys (indexed queries — never a collection loaded and
 * filtered in JavaScript). A caller's facts are gathered once per request: the {@link Caller}
 * object of a request is the memo key.
 */
import type { Resolvable } from 'did-resolver'
import { parseEthrDid } from '../did/ethr.js'
import type { Permission } from '../schemas/roles.js'
import type { StorageAdapter } from '../storage/port.js'
import type { RoleAssignmentRecord, RoleRecord, WalletRecord } from '../storage/collections.js'
import { tenantCollection } from '../storage/tenant-scope.js'
import type { Caller } from './context.js'
import type { CallerFacts, RoleFacts, VaultFacts, WalletFacts } from './policy.js'

/** Wallets looked at for the caller's vault keys (a caller proves at most 10 keys; each key is one wallet's). */
const MAX_KEYS_CHECKED = 100

export class AccessFacts {
  readonly #callers = new WeakMap<Caller, Promise<CallerFacts>>()

  constructor(
    private readonly resolver: Resolvable,
    private readonly storage: StorageAdapter,
  ) {}

  /** The caller's facts; gathered on the first call for a request's caller, the same promise after. */
  caller(caller: Caller): Promise<CallerFacts> {
    let facts = this.#callers.get(caller)
    if (facts === undefined) {
      facts = this.#gather(caller)
      this.#callers.set(caller, facts)
    }
    return facts
  }

  /** The address of the current owner of a did:ethr document (its `#controller`); undefined when it does not resolve. */
  async ownerAddress(did: string): Promise<string | undefined> {
    const { didDocument } = await this.resolver.resolve(did)
    const controller = didDocument?.verificationMethod?.find((vm) => vm.id === `${did}#controller`)
    const account = controller?.blockchainAccountId?.split(':').pop()
    return account ? parseEthrDid(`did:ethr:${account}`)?.address : undefined
  }

  async wallet(wallet: Pick<WalletRecord, 'did' | 'vaultId'>): Promise<WalletFacts> {
    const facts: WalletFacts = { did: wallet.did, ownerAddress: await this.ownerAddress(wallet.did) }
    if (wallet.vaultId !== undefined) facts.vault = { id: wallet.vaultId }
    return facts
  }

  vault(vault: { id: string; rootDid?: string }): VaultFacts {
    const facts: VaultFacts = { id: vault.id }
    const root = vault.rootDid === undefined ? undefined : parseEthrDid(vault.rootDid)?.address
    if (root !== undefined) facts.rootAddress = root
    return facts
  }

  async role(role: Pick<RoleRecord, 'did' | 'creator'>): Promise<RoleFacts> {
    return { did: role.did, creator: role.creator, ownerAddress: await this.ownerAddress(role.did) }
  }

  /**
   * Of `among` (role DIDs, typically the caller's), those assigned to `did` in the tenant: one
   * indexed query, bounded by `among`. With the roles a credential lists, these are the roles
   * that give the caller access to it (`CredentialFacts.roles`).
   */
  async rolesAssignedTo(tenantId: string, did: string, among: Iterable<string>): Promise<Set<string>> {
    const roles = [...among]
    if (roles.length === 0) return new Set()
    const assignments = tenantCollection<RoleAssignmentRecord>(this.storage, 'roleAssignments', tenantId)
    const found = await assignments.all({ and: [{ field: 'did', op: 'eq', value: did }, { field: 'role', op: 'in', value: roles }] }, { orderBy: { field: 'role' } })
    return new Set(found.map((a) => a.role))
  }

  async #gather(caller: Caller): Promise<CallerFacts> {
    const addresses = new Set(caller.addresses)
    const [dids, vaultKeys] = await Promise.all([this.#actingDids(caller, addresses), this.#vaultKeys(caller)])
    return { addresses, dids, roles: await this.#roles(caller.tenantId, dids), vaultKeys }
  }

  /**
   * The DIDs the caller named whose current owner key signed one of its tokens — except
   * wallets of another tenant: a request never acts through another tenant's identities (one
   * query on the global unique index of wallet DIDs). DIDs outside the service are kept.
   */
  async #actingDids(caller: Caller, addresses: ReadonlySet<string>): Promise<Set<string>> {
    if (addresses.size === 0) return new Set()
    const owners = await Promise.all(caller.dids.map((did) => this.ownerAddress(did)))
    const owned = caller.dids.filter((_did, i) => owners[i] !== undefined && addresses.has(owners[i]))
    if (owned.length === 0) return new Set()
    const wallets = await this.storage.collection<WalletRecord>('wallets').find({ field: 'did', op: 'in', value: owned }, { orderBy: { field: 'did' }, limit: owned.length })
    const foreign = new Set(wallets.items.filter((w) => w.tenantId !== caller.tenantId).map((w) => w.did))
    return new Set(owned.filter((did) => !foreign.has(did)))
  }

  /** The roles assigned to `dids`, with their permissions: two indexed queries. */
  async #roles(tenantId: string, dids: ReadonlySet<string>): Promise<Map<string, readonly Permission[]>> {
    if (dids.size === 0) return new Map()
    const assignments = tenantCollection<RoleAssignmentRecord>(this.storage, 'roleAssignments', tenantId)
    const held = await assignments.all({ field: 'did', op: 'in', value: [...dids] }, { orderBy: { field: 'did' } })
    if (held.length === 0) return new Map()
    const roles = tenantCollection<RoleRecord>(this.storage, 'roles', tenantId)
    const records = await roles.all({ field: 'did', op: 'in', value: [...new Set(held.map((a) => a.role))] }, { orderBy: { field: 'did' } })
    return new Map(records.map((r) => [r.did, r.permissions]))
  }

  /** Vaults with a wallet whose own key signed one of the caller's tokens (keys are unique: a handful). */
  async #vaultKeys(caller: Caller): Promise<Set<string>> {
    if (caller.addresses.length === 0) return new Set()
    const wallets = tenantCollection<WalletRecord>(this.storage, 'wallets', caller.tenantId)
    const held = await wallets.find({ field: 'ethereumAddress', op: 'in', value: caller.addresses }, { orderBy: { field: 'ethereumAddress' }, limit: MAX_KEYS_CHECKED })
    return new Set(held.items.flatMap((w) => (w.vaultId === undefined ? [] : [w.vaultId])))
  }
}
