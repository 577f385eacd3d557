/** Enforcing the status lists' slice of the policy: gather the issuer's facts, decide, refuse with 403. */
import type { Caller } from '../auth/context.js'
import type { CallerFactSource } from '../auth/facts.js'
import { principalOf } from '../did/ethr.js'
import { forbidden } from '../errors.js'
import { tenantCollections } from '../storage/declaration.js'
import type { StorageAdapter } from '../storage/port.js'
import { walletFacts } from '../wallets/access.js'
import { WALLETS } from '../wallets/records.js'
import { changesStatus } from './policy.js'
import type { StatusListRecord } from './records.js'

/** 403 FORBIDDEN unless the caller controls the issuer wallet of `list` (DID control, or vault control). */
export async function assertChangesStatus(
  ctx: { callers: CallerFactSource; storage: StorageAdapter },
  caller: Caller,
  list: Pick<StatusListRecord, 'id' | 'issuer'>,
): Promise<void> {
  const { wallets } = tenantCollections(ctx.storage, caller.tenantId, { wallets: WALLETS })
  const wallet = await wallets.findOne({ field: 'did', op: 'eq', value: principalOf(list.issuer) })
  const refused = forbidden(
    `status list ${list.id}: only whoever controls its issuer ${list.issuer} (its owner key) or the vault holding it changes its entries`,
  )
  if (!wallet) throw refused
  const target = await walletFacts(ctx.callers, wallet, caller)
  if (changesStatus({ addresses: new Set(caller.addresses), vaultKeys: new Set() }, target).allowed) return
  if (!changesStatus(await ctx.callers.vaultKeys(caller), target).allowed) throw refused
}
