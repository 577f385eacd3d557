/** Counting approvals against a quorum policy. Pure: no storage, no keys. */
import type { QuorumGroup, QuorumPolicy } from './port.js'

/** How a set of approvals stands against a policy. */
export type QuorumStanding =
  { met: true; group: QuorumGroup; approvers: string[] } | { met: false; group: QuorumGroup; approvers: string[]; missing: number }

/**
 * The first group whose quorum `approvals` meet, with the approving members (each once); when
 * none is met, the group closest to its quorum and how many approvals it still misses.
 * Approvals from non-members are not counted.
 */
export function standingOf(policy: QuorumPolicy, approvals: Iterable<string>): QuorumStanding {
  const given = new Set(approvals)
  let closest: { group: QuorumGroup; approvers: string[]; missing: number } | undefined
  for (const group of policy.groups) {
    const approvers = group.members.filter((m) => given.has(m))
    const missing = group.requiredApprovals - approvers.length
    if (missing <= 0) return { met: true, group, approvers: approvers.slice(0, group.requiredApprovals) }
    if (!closest || missing < closest.missing) closest = { group, approvers, missing }
  }
  if (!closest) throw new Error('a quorum policy has at least one group')
  return { met: false, ...closest }
}

/** Every member of every group, once. */
export function membersOf(policy: QuorumPolicy): Set<string> {
  return new Set(policy.groups.flatMap((g) => g.members))
}
