/** Enforcing the status lists' slice of the policy: gather the issuer's facts, decide, refuse with 403. */
import type { Caller } from '../auth/context.js'
import type { CallerFactSource } from '../auth/facts.js'
import { callerKeys } from '../auth/policy-engine.js'
import { forbidden } from '../errors.js'
import { walletFacts } from '../wallets/access.js'
import { isQuorumSigner, listSigners, type ListSigners, type SigningContext } from './sign-list.js'
import { changesStatus } from './policy.js'
import type { StatusListRecord } from './records.js'

/**
 * 403 FORBIDDEN unless the caller controls the issuer wallet of `list` (DID control, or vault
 * control) — for a quorum list (its issuer DID owned by an MPC wallet), unless the request brings
 * that vault's quorum: the members who approve its signatures are who change its lists. Resolves
 * to the list's signers it checked.
 */
export async function assertChangesStatus(
  ctx: Pick<SigningContext, 'registries' | 'signers' | 'storage'> & { callers: CallerFactSource },
  caller: Caller,
  list: Pick<StatusListRecord, 'id' | 'issuer' | 'tenantId'>,
): Promise<ListSigners> {
  const refused = forbidden(
    `status list ${list.id}: only whoever controls its issuer ${list.issuer} (its owner key) or the vault holding it changes its entries`,
  )
  const signers = await listSigners(ctx, list)
  if (isQuorumSigner(signers.owner)) {
    await ctx.signers.authorize(signers.owner, 'sign', caller)
    return signers
  }
  const target = await walletFacts(ctx.callers, signers.issuer, caller)
  if (changesStatus({ keys: callerKeys(caller), vaultKeys: new Set() }, target).allowed) return signers
  if (!changesStatus(await ctx.callers.vaultKeys(caller), target).allowed) throw refused
  return signers
}
