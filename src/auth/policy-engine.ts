/**
 * The access policy: the one place that answers "may this caller do this to that" for vaults,
 * wallets, roles and stored credentials. Pure and table-driven: each decision is a row of
 * {@link RULES} — the grounds that allow it — evaluated over facts the operations gathered
 * beforehand (see `facts.ts`); nothing here reads storage or resolves a DID.
 *
 * Control (DESIGN §4 "Wallet control") always follows the key that signed a token:
 * - **DID control** of a DID: the caller holds the key of its document's current owner.
 *   A delegate's token authenticates its DID but confers no owner rights.
 * - **Vault control**: the caller holds the own key of one of the vault's wallets (the key
 *   the wallet was made with, its root wallet's included). Owning the DID of a wallet whose
 *   ownership moved to an outside key gives no right over the vault or its other wallets.
 *
 * A caller acts *through* a DID (as a role's creator, or as the holder of the roles assigned
 * to it) when one of its tokens names that DID as `iss` and the DID's owner key signed it, and
 * the DID is not a wallet of another tenant.
 */
import type { Permission } from '../roles/schemas.js'

/** What the policy knows of the caller; each part gathered at most once per request, when a decision needs it. */
export interface CallerFacts {
  /** EIP-55 addresses of the keys that signed the caller's tokens. */
  addresses: ReadonlySet<string>
  /** DIDs the caller acts through: named by one of its tokens and owned by a key that signed one; never a wallet of another tenant. */
  dids: ReadonlySet<string>
  /** The roles assigned to those DIDs, with their permissions: the caller's effective roles. */
  roles: ReadonlyMap<string, readonly Permission[]>
  /** Vaults holding a wallet whose own key signed one of the caller's tokens. */
  vaultKeys: ReadonlySet<string>
}

/** A vault, as far as control goes. */
export interface VaultFacts {
  id: string
  /** Address of the wallet the vault was created with: its key governs the vault even once that wallet is gone. */
  rootAddress?: string
}

/** A wallet, as far as control goes. */
export interface WalletFacts {
  did: string
  /** Address of the current owner of the wallet's DID document. */
  ownerAddress?: string
  vault?: VaultFacts
}

/** A role, as far as managing and seeing it go. */
export interface RoleFacts {
  did: string
  creator: string
  /** Address of the current owner of the role DID's document. */
  ownerAddress?: string
}

/**
 * A stored credential, as far as reading and changing it go. `roles` holds the role DIDs that
 * give access to it: those listed in its `roles` and those assigned to its DID.
 */
export interface CredentialFacts {
  /** The credential's DID; undefined when its `id` is absent or not a DID. */
  did?: string
  /** Address of the current owner of its DID's document. */
  ownerAddress?: string
  /** Its DID's document names the DID itself as owner. */
  selfOwned: boolean
  isPublicAccess: boolean
  storedBy: readonly string[]
  issuer?: string
  subject?: string
  roles: ReadonlySet<string>
}

/**
 * A credential DID, as far as granting roles over it goes: what every stored credential with
 * that DID shares. `roles` holds only the roles governing the DID (assigned to it by someone
 * with rights over it), never those one record lists: a record's own `roles` reach that
 * record alone.
 */
export type CredentialDidFacts = Pick<CredentialFacts, 'ownerAddress' | 'roles'> & { did: string }

/** The caller's keys and the DIDs it acts through: what managing a role reads. */
export type ActingFacts = Pick<CallerFacts, 'addresses' | 'dids'>
/** With the caller's effective roles: what seeing roles and deciding on credentials read. */
export type HoldingFacts = Pick<CallerFacts, 'addresses' | 'dids' | 'roles'>
/** The caller's keys and the vaults they are keys of: what vault and wallet control read. */
export type VaultKeyFacts = Pick<CallerFacts, 'addresses' | 'vaultKeys'>

/** One ground on which a decision allows: its name (for messages and docs) and when it holds, from the caller facts `C` it reads. */
export interface Rule<C, R> {
  ground: string
  holds: (caller: C, resource: R) => boolean
}

/** A decision: allowed, and on which ground. */
export type Decision = { allowed: true; ground: string } | { allowed: false }

/** Whether `permissions` grant `need` (`Write` implies `Read`). */
export function grants(permissions: readonly Permission[] | undefined, need: Permission): boolean {
  if (permissions === undefined) return false
  return permissions.includes('Write') || (need === 'Read' && permissions.includes('Read'))
}

const holdsKey = (caller: Pick<CallerFacts, 'addresses'>, address: string | undefined) => address !== undefined && caller.addresses.has(address)
const vaultRule: Rule<VaultKeyFacts, VaultFacts> = {
  ground: 'holds the own key of one of its wallets (vault control)',
  holds: (c, v) => c.vaultKeys.has(v.id) || holdsKey(c, v.rootAddress),
}
/** A role granting `need` is assigned both to the credential and to a DID the caller acts through. */
const roleGrant = (need: Permission): Rule<HoldingFacts, Pick<CredentialFacts, 'roles'>> => ({
  ground: `holds a role with ${need} assigned to the credential`,
  holds: (c, v) => [...v.roles].some((role) => grants(c.roles.get(role), need)),
})
const didOwner: Rule<HoldingFacts, Pick<CredentialFacts, 'did' | 'ownerAddress'>> = {
  ground: 'holds the owner key of the credential’s DID',
  holds: (c, v) => v.did !== undefined && holdsKey(c, v.ownerAddress),
}
const storedIt: Rule<HoldingFacts, CredentialFacts> = { ground: 'stored it', holds: (c, v) => v.storedBy.some((d) => c.dids.has(d)) }
const roleCreator: Rule<ActingFacts, RoleFacts> = { ground: 'created the role', holds: (c, r) => c.dids.has(r.creator) }
const roleOwner: Rule<ActingFacts, RoleFacts> = { ground: 'holds the owner key of the role DID', holds: (c, r) => holdsKey(c, r.ownerAddress) }

/**
 * Every decision and the grounds that allow it; anything no ground allows is refused. The
 * table in docs/access-control.md is this one.
 */
export const RULES = {
  controlVault: [vaultRule],
  controlWallet: [
    { ground: 'holds the owner key of its DID (DID control)', holds: (c, w) => holdsKey(c, w.ownerAddress) },
    { ground: 'controls its vault', holds: (c, w) => w.vault !== undefined && vaultRule.holds(c, w.vault) },
  ] satisfies Rule<VaultKeyFacts, WalletFacts>[],
  manageRole: [roleCreator, roleOwner],
  // What Get Roles lists: grounds it can look up by index (no DID resolution per role).
  seeRole: [
    roleCreator,
    { ground: 'acts through the role DID', holds: (c, r) => c.dids.has(r.did) },
    { ground: 'holds the role', holds: (c, r) => c.roles.has(r.did) },
  ] satisfies Rule<HoldingFacts, Pick<RoleFacts, 'did' | 'creator'>>[],
  readCredential: [
    { ground: 'it is public', holds: (_c, v) => v.isPublicAccess },
    storedIt,
    { ground: 'issued it', holds: (c, v) => v.issuer !== undefined && c.dids.has(v.issuer) },
    { ground: 'is its subject', holds: (c, v) => v.subject !== undefined && c.dids.has(v.subject) },
    didOwner,
    roleGrant('Read'),
  ] satisfies Rule<HoldingFacts, CredentialFacts>[],
  writeCredential: [didOwner, roleGrant('Write')],
  // Grant a role over the credentials with a DID (all of them, now and later): rights over the DID itself.
  governCredentialDid: [didOwner, roleGrant('Write')] satisfies Rule<HoldingFacts, CredentialDidFacts>[],
  deleteCredential: [
    didOwner,
    roleGrant('Write'),
    { ground: 'stored it, and it has no DID or its DID owns itself', holds: (c, v) => (v.did === undefined || v.selfOwned) && storedIt.holds(c, v) },
  ] satisfies Rule<HoldingFacts, CredentialFacts>[],
}

/** Evaluates one row of {@link RULES}: the first ground that holds allows. */
export function decide<C, R>(rules: readonly Rule<C, R>[], caller: C, resource: R): Decision {
  const rule = rules.find((r) => r.holds(caller, resource))
  return rule ? { allowed: true, ground: rule.ground } : { allowed: false }
}

/** Vault control: create wallets in it, delete it, govern its wallets. */
export const controlsVault = (caller: VaultKeyFacts, vault: VaultFacts) => decide(RULES.controlVault, caller, vault).allowed
/** Control of a wallet: DID control of its DID, or vault control of its vault. */
export const controlsWallet = (caller: VaultKeyFacts, wallet: WalletFacts) => decide(RULES.controlWallet, caller, wallet).allowed
/** Update, delete, assign and unassign a role: its creator or the owner of the role DID. */
export const canManageRole = (caller: ActingFacts, role: RoleFacts) => decide(RULES.manageRole, caller, role).allowed
/** See a role in Get Roles: its creator, who acts through its DID, who holds it. */
export const canSeeRole = (caller: HoldingFacts, role: Pick<RoleFacts, 'did' | 'creator'>) => decide(RULES.seeRole, caller, role).allowed
/** Read a stored credential (DESIGN §4 "Stored VC read access"). Public access is read-only. */
export const canReadCredential = (caller: HoldingFacts, credential: CredentialFacts) => decide(RULES.readCredential, caller, credential).allowed
/** Add or remove a stored credential's proofs (spec rule 5). */
export const canWriteCredential = (caller: HoldingFacts, credential: CredentialFacts) => decide(RULES.writeCredential, caller, credential).allowed
/**
 * Grant a role over the stored credentials with a DID (DESIGN §4 *Role assignments*): the
 * caller holds the DID's owner key, or a role with `Write` that already governs the DID. That
 * is write access to every credential with the DID as it stands before the grant.
 */
export const canGovernCredentialDid = (caller: HoldingFacts, did: CredentialDidFacts) => decide(RULES.governCredentialDid, caller, did).allowed
/** Delete a stored credential (spec rule 5 and its deletion rule). */
export const canDeleteCredential = (caller: HoldingFacts, credential: CredentialFacts) => decide(RULES.deleteCredential, caller, credential).allowed
