/**
 * What a role may be assigned to (DESIGN §4 "Role assignments"): a wallet DID of the tenant
 * (claim DIDs made by Sign are such wallets) — a *principal*, which then holds the role — or
 * the DID of credentials the tenant stores — a *resource*, which the role then governs. Both
 * are indexed lookups within the tenant (credentials by DID, wallets by DID).
 */
import { notFound } from '../errors.js'
import type { StorageAdapter } from '../storage/port.js'
import { tenantCollections } from '../storage/declaration.js'
import { WALLETS } from '../wallets/records.js'
import type { RoleResources } from './context.js'

/** `credential`: stored credentials carry the DID (the grant reaches them); `wallet`: only a wallet of the tenant has it. */
export type AssignmentTarget = 'credential' | 'wallet'

/**
 * What `did` is in the tenant for an assignment; 422 NOT_FOUND when it is neither a stored
 * credential's DID nor a wallet's (another tenant's DIDs included). `storage` is the
 * transaction the assignment is written in.
 */
export async function assignmentTarget(
  resources: Pick<RoleResources, 'carriedBy'>,
  storage: StorageAdapter,
  tenantId: string,
  did: string,
): Promise<AssignmentTarget> {
  // A stored credential's DID: checked first, a claim DID is also a wallet.
  if (await resources.carriedBy(storage, tenantId, did)) return 'credential'
  const { wallets } = tenantCollections(storage, tenantId, { wallets: WALLETS })
  if (await wallets.findOne({ field: 'did', op: 'eq', value: did })) return 'wallet'
  throw notFound(`no wallet or stored credential with DID ${did}`)
}
