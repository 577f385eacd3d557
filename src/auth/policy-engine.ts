/**
 * The access-policy engine: decisions as rows of grounds (`Rule`), evaluated over facts the
 * operations gathered beforehand; nothing here reads storage or resolves a DID. Each domain
 * declares its slice of the policy — its decisions and their grounds — beside its operations
 * (`wallets/policy.ts`, `vaults/policy.ts`, `roles/policy.ts`, `credentials/policy.ts`); the
 * table in docs/access-control.md is their union (`service/access-rules.ts`).
 *
 * Control (DESIGN §4 "Wallet control") always follows the key that signed a token:
 * - **DID control** of a DID: the caller holds a key that controls its current document — for
 *   did:ethr its owner (`#controller`), for did:key, did:jwk and did:web a key its `authentication`
 *   lists. A did:ethr delegate's token authenticates its DID but confers no owner rights.
 * - **Vault control**: the caller holds the own key of one of the vault's wallets (the key
 *   the wallet was made with, its root wallet's included). Owning the DID of a wallet whose
 *   ownership moved to an outside key gives no right over the vault or its other wallets.
 *
 * A caller acts *through* a DID (as a role's creator, or as the holder of the roles assigned
 * to it) when one of its tokens names that DID as `iss` and the DID's owner key signed it, and
 * the DID is not a wallet of another tenant.
 */

/** The permission types of roles, in canonical spelling and order. `Write` implies `Read`. */
export const PERMISSIONS = ['Read', 'Write'] as const
export type Permission = (typeof PERMISSIONS)[number]

/** What the policy knows of the caller; each part gathered at most once per request, when a decision needs it. */
export interface CallerFacts {
  /**
   * Key ids (`keys/key-ids.ts`) of the keys that signed the caller's tokens: EIP-55 addresses of secp256k1 keys, RFC 9278
   * JWK thumbprint URIs of P-256 and Ed25519 keys.
   */
  keys: ReadonlySet<string>
  /** DIDs the caller acts through: named by one of its tokens and owned by a key that signed one; never a wallet of another tenant. */
  dids: ReadonlySet<string>
  /** The roles assigned to those DIDs, with their permissions: the caller's effective roles. */
  roles: ReadonlyMap<string, readonly Permission[]>
  /** Vaults holding a wallet whose own key signed one of the caller's tokens. */
  vaultKeys: ReadonlySet<string>
}

/** The caller's keys and the DIDs it acts through: what managing a role reads. */
export type ActingFacts = Pick<CallerFacts, 'keys' | 'dids'>
/** With the caller's effective roles: what seeing roles and deciding on credentials read. */
export type HoldingFacts = Pick<CallerFacts, 'keys' | 'dids' | 'roles'>
/** The caller's keys and the vaults they are keys of: what vault and wallet control read. */
export type VaultKeyFacts = Pick<CallerFacts, 'keys' | 'vaultKeys'>

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

/** Whether the caller holds one of `keys` (key ids: one of its tokens was signed by it). */
export const holdsKey = (caller: Pick<CallerFacts, 'keys'>, keys: readonly string[] | undefined) =>
  keys !== undefined && keys.some((key) => caller.keys.has(key))

/** The key ids of a caller's keys (`Caller.addresses` and `Caller.keys`): what {@link CallerFacts.keys} holds. */
export const callerKeys = (caller: { addresses: readonly string[]; keys?: readonly string[] }): Set<string> =>
  new Set([...caller.addresses, ...(caller.keys ?? [])])

/** Evaluates one decision (a row of a domain's rules): the first ground that holds allows. */
export function decide<C, R>(rules: readonly Rule<C, R>[], caller: C, resource: R): Decision {
  const rule = rules.find((r) => r.holds(caller, resource))
  return rule ? { allowed: true, ground: rule.ground } : { allowed: false }
}

/** A domain's decisions, each with the grounds that allow it (what docs/access-control.md lists). */
export type RuleBook = Record<string, readonly Rule<never, never>[]>
