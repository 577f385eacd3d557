/** Enforcing the roles' slice of the policy: managing a role, or 403. */
import type { Caller } from '../auth/context.js'
import type { CallerFactSource } from '../auth/facts.js'
import { forbidden } from '../errors.js'
import { canManageRole, type RoleFacts } from './policy.js'
import type { RoleRecord } from './records.js'

/** A role's facts: its creator and the keys that control the role DID (resolved, unless the caller's tokens proved its owner). */
export async function roleFacts(callers: CallerFactSource, role: Pick<RoleRecord, 'did' | 'creator'>, caller?: Caller): Promise<RoleFacts> {
  return { did: role.did, creator: role.creator, controllingKeys: await callers.controllingKeys(role.did, caller) }
}

/** The role's creator, or the holder of the role DID's owner key; 403 FORBIDDEN otherwise. */
export async function assertManagesRole(
  ctx: { callers: CallerFactSource },
  caller: Caller,
  role: Pick<RoleRecord, 'did' | 'creator'>,
): Promise<void> {
  const [facts, target] = await Promise.all([ctx.callers.acting(caller), roleFacts(ctx.callers, role, caller)])
  if (!canManageRole(facts, target)) {
    throw forbidden(`only the creator of role ${role.did} or the holder of its owner key may change it or its assignments`)
  }
}
