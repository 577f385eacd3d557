/** The roles' slice of the access policy: managing and seeing a role. Pure: see `auth/policy-engine.ts`. */
import { decide, holdsKey, type ActingFacts, type HoldingFacts, type Rule } from '../auth/policy-engine.js'

/** A role, as far as managing and seeing it go. */
export interface RoleFacts {
  did: string
  creator: string
  /** Key ids of the keys that control the role DID now (`CallerFactSource.controllingKeys`). */
  controllingKeys?: readonly string[]
}

const roleCreator: Rule<ActingFacts, RoleFacts> = { ground: 'created the role', holds: (c, r) => c.dids.has(r.creator) }
const roleOwner: Rule<ActingFacts, RoleFacts> = {
  ground: 'holds the owner key of the role DID',
  holds: (c, r) => holdsKey(c, r.controllingKeys),
}

export const ROLE_RULES = {
  manageRole: [roleCreator, roleOwner],
  // What Get Roles lists: grounds it can look up by index (no DID resolution per role).
  seeRole: [
    roleCreator,
    { ground: 'acts through the role DID', holds: (c, r) => c.dids.has(r.did) },
    { ground: 'holds the role', holds: (c, r) => c.roles.has(r.did) },
  ] satisfies Rule<HoldingFacts, Pick<RoleFacts, 'did' | 'creator'>>[],
}

/** Update, delete, assign and unassign a role: its creator or the owner of the role DID. */
export const canManageRole = (caller: ActingFacts, role: RoleFacts) => decide(ROLE_RULES.manageRole, caller, role).allowed
/** See a role in Get Roles: its creator, who acts through its DID, who holds it. */
export const canSeeRole = (caller: HoldingFacts, role: Pick<RoleFacts, 'did' | 'creator'>) =>
  decide(ROLE_RULES.seeRole, caller, role).allowed
