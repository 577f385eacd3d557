/**
 * Gathers the facts the access policy (`policy.ts`) decides on: DID owners (resolution) and the
 * caller's effective roles and vault keys (indexed queries — never a collection loaded and
 * filtered in JavaScript). Each part of a caller's facts is gathered at most once per request,
 * and only when a decision needs it: the {@link Caller} object of a request is the memo key.
 */
import type { Resolvable } from 'did-resolver'
import { eip55Address, parseEthrDid, principalOf } from '../did/ethr.js'
import type { Permission } from './schemas.js'
import type { StorageAdapter } from '../storage/port.js'
import type { CredentialRecord, RoleAssignmentRecord, RoleRecord, WalletRecord } from '../storage/collections.js'
import { tenantCollection } from '../storage/tenant-scope.js'
import type { Caller } from '../auth/context.js'
import type { ActingFacts, CredentialDidFacts, CredentialFacts, HoldingFacts, RoleFacts, VaultFacts, VaultKeyFacts, WalletFacts } from '../auth/policy-engine.js'

/** Wallets looked at for the caller's vault keys (a caller proves at most 10 keys; each key is one wallet's). */
const MAX_KEYS_CHECKED = 100

/** The parts of one request's caller facts, each gathered once, when first needed. */
interface Memo {
  acting?: Promise<ActingFacts>
  holding?: Promise<HoldingFacts>
  vaultKeys?: Promise<VaultKeyFacts>
}

/** The fact gatherer of a service: its resolver and its storage. */
export class AccessFacts {
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
    return (memo.holding ??= this.acting(caller).then(async (acting) => ({ ...acting, roles: await this.#roles(caller.tenantId, acting.dids) })))
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

  /** A wallet's facts: the owner of its DID document (resolved, unless the caller's tokens proved it), its vault. */
  async wallet(wallet: Pick<WalletRecord, 'did' | 'vaultId'>, caller?: Caller): Promise<WalletFacts> {
    const facts: WalletFacts = { did: wallet.did, ownerAddress: await this.ownerAddress(wallet.did, caller) }
    if (wallet.vaultId !== undefined) facts.vault = { id: wallet.vaultId }
    return facts
  }

  /** A vault's facts: the address of its root wallet's key. */
  vault(vault: { id: string; rootDid?: string }): VaultFacts {
    const facts: VaultFacts = { id: vault.id }
    const root = vault.rootDid === undefined ? undefined : parseEthrDid(vault.rootDid)?.address
    if (root !== undefined) facts.rootAddress = root
    return facts
  }

  /** A role's facts: its creator and the owner of the role DID's document (resolved, unless the caller's tokens proved it). */
  async role(role: Pick<RoleRecord, 'did' | 'creator'>, caller?: Caller): Promise<RoleFacts> {
    return { did: role.did, creator: role.creator, ownerAddress: await this.ownerAddress(role.did, caller) }
  }

  /**
   * A stored credential's facts: the owner of its DID (resolved; `selfOwned` when a did:ethr
   * DID's owner is its own address), the roles listed in it and those governing its DID.
   */
  async credential(record: Pick<CredentialRecord, 'tenantId' | 'did' | 'isPublicAccess' | 'storedBy' | 'issuer' | 'subject' | 'roles'>): Promise<CredentialFacts> {
    const facts: CredentialFacts = { selfOwned: false, isPublicAccess: record.isPublicAccess, storedBy: record.storedBy, roles: new Set(record.roles) }
    if (record.issuer !== undefined) facts.issuer = record.issuer
    if (record.subject !== undefined) facts.subject = record.subject
    if (record.did !== undefined) {
      const did = await this.credentialDid(record.tenantId, record.did)
      facts.did = did.did
      if (did.ownerAddress !== undefined) facts.ownerAddress = did.ownerAddress
      facts.selfOwned = did.ownerAddress !== undefined && parseEthrDid(record.did)?.address === did.ownerAddress
      facts.roles = new Set([...record.roles, ...did.roles])
    }
    return facts
  }

  /**
   * A credential DID's facts, shared by every stored credential with that DID: the owner of
   * its document (resolved, unless the caller's tokens proved it) and the roles governing it.
   */
  async credentialDid(tenantId: string, did: string, caller?: Caller): Promise<CredentialDidFacts> {
    const [owner, roles] = await Promise.all([this.ownerAddress(did, caller), this.rolesGoverning(tenantId, did)])
    return { did, ...(owner !== undefined && { ownerAddress: owner }), roles }
  }

  /**
   * The roles governing the stored credentials whose DID is `did`: assigned to that DID by
   * someone with rights over it (`governsCredentials`). One query on the index (tenantId, did,
   * role), reading that DID's assignments only. A role merely assigned to a wallet DID (which
   * makes the wallet a holder of the role) does not reach credentials that carry that DID.
   */
  async rolesGoverning(tenantId: string, did: string): Promise<Set<string>> {
    const assignments = tenantCollection<RoleAssignmentRecord>(this.storage, 'roleAssignments', tenantId)
    const found = await assignments.all({ and: [{ field: 'did', op: 'eq', value: did }, { field: 'governsCredentials', op: 'eq', value: true }] }, { orderBy: { field: 'role' } })
    return new Set(found.map((a) => a.role))
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
   * The DIDs the caller named whose current owner key signed one of its tokens — except
   * wallets of another tenant: a request never acts through another tenant's identities (one
   * query on the global unique index of wallet DIDs). DIDs outside the service are kept.
   */
  async #actingDids(caller: Caller, addresses: ReadonlySet<string>): Promise<Set<string>> {
    if (addresses.size === 0) return new Set()
    const owners = await Promise.all(caller.dids.map((did) => this.ownerAddress(did, caller)))
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
