/**
 * The credentials' slice of the access policy: reading, writing and deleting a stored
 * credential (DESIGN §4 *Stored VC read access*, *VC write access*), and granting roles over
 * the credentials with a DID. Pure: see `auth/policy-engine.ts`. The read rule is declared in
 * `read-rule.ts`, which compiles it to this decision and to the storage filter of Fetch.
 */
import { decide, grants, holdsKey, type HoldingFacts, type Permission, type Rule } from '../auth/policy-engine.js'
import { READ_RULES, type ReadableCredential, type ReaderFacts } from './read-rule.js'

/**
 * A stored credential, as far as changing it goes. `roles` holds the role DIDs that give
 * access to it: those listed in its `roles` and those assigned to its DID.
 */
export interface CredentialFacts {
  /** The credential's DID; undefined when its `id` is absent or not a DID. */
  did?: string
  /** Key ids of the keys that control its DID now (`CallerFactSource.controllingKeys`). */
  controllingKeys?: readonly string[]
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
export type CredentialDidFacts = Pick<CredentialFacts, 'controllingKeys' | 'roles'> & { did: string }

/** A role granting `need` is assigned both to the credential and to a DID the caller acts through. */
const roleGrant = (need: Permission): Rule<HoldingFacts, Pick<CredentialFacts, 'roles'>> => ({
  ground: `holds a role with ${need} assigned to the credential`,
  holds: (c, v) => [...v.roles].some((role) => grants(c.roles.get(role), need)),
})
const didOwner: Rule<HoldingFacts, Pick<CredentialFacts, 'did' | 'controllingKeys'>> = {
  ground: 'holds the owner key of the credential’s DID',
  holds: (c, v) => v.did !== undefined && holdsKey(c, v.controllingKeys),
}
const storedIt: Rule<HoldingFacts, CredentialFacts> = { ground: 'stored it', holds: (c, v) => v.storedBy.some((d) => c.dids.has(d)) }

export const CREDENTIAL_RULES = {
  readCredential: READ_RULES,
  writeCredential: [didOwner, roleGrant('Write')],
  // Grant a role over the credentials with a DID (all of them, now and later): rights over the DID itself.
  governCredentialDid: [didOwner, roleGrant('Write')] satisfies Rule<HoldingFacts, CredentialDidFacts>[],
  deleteCredential: [
    didOwner,
    roleGrant('Write'),
    {
      ground: 'stored it, and it has no DID or its DID owns itself',
      holds: (c, v) => (v.did === undefined || v.selfOwned) && storedIt.holds(c, v),
    },
  ] satisfies Rule<HoldingFacts, CredentialFacts>[],
}

/**
 * Read a stored credential (DESIGN §4 "Stored VC read access"), given the caller's read facts
 * (`readerFacts`, or `readerFactsAbout` the credential's DID). Public access is read-only.
 */
export const canReadCredential = (caller: ReaderFacts, credential: ReadableCredential) =>
  decide(CREDENTIAL_RULES.readCredential, caller, credential).allowed
/** Add or remove a stored credential's proofs (spec rule 5). */
export const canWriteCredential = (caller: HoldingFacts, credential: CredentialFacts) =>
  decide(CREDENTIAL_RULES.writeCredential, caller, credential).allowed
/**
 * Grant a role over the stored credentials with a DID (DESIGN §4 *Role assignments*): the
 * caller holds the DID's owner key, or a role with `Write` that already governs the DID. That
 * is write access to every credential with the DID as it stands before the grant.
 */
export const canGovernCredentialDid = (caller: HoldingFacts, did: CredentialDidFacts) =>
  decide(CREDENTIAL_RULES.governCredentialDid, caller, did).allowed
/** Delete a stored credential (spec rule 5 and its deletion rule). */
export const canDeleteCredential = (caller: HoldingFacts, credential: CredentialFacts) =>
  decide(CREDENTIAL_RULES.deleteCredential, caller, credential).allowed
