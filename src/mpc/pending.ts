/** The 403 answer of a provider's pending outcome. */
import { forbidden } from '../errors.js'
import { missingApprovals } from './approvals.js'
import type { MpcPending } from './port.js'

/** The 403 a pending provider outcome means: the approvals missing, or the provider not done yet. */
export function pendingError(pending: MpcPending) {
  if (pending.reason === 'insufficient-approvals' && pending.missingApprovals !== undefined)
    return missingApprovals(pending.missingApprovals, pending.group ?? 'the vault', pending.requestId)
  if (pending.reason === 'insufficient-approvals')
    return forbidden(
      `MPC quorum not met: the provider needs more approvals${pending.requestId === undefined ? '' : ` (request ${pending.requestId})`}`,
    )
  return forbidden(
    `the MPC provider has not completed this request yet${pending.requestId === undefined ? '' : ` (request ${pending.requestId})`}`,
  )
}
