/**
 * What a role may be assigned to (DESIGN §4 "Role assignments"): a wallet DID of the tenant
 * (claim DIDs made by Sign are such wallets) or the DID of a credential the tenant stores.
 * Both are indexed lookups within the tenant (wallets by DID, credentials by DID).
 */
import { notFound } from '../errors.js'
import type { StorageAdapter } from '../storage/port.js'
import { collectionsOf } from './context.js'

/**
 * Resolves when `did` may be assigned a role in the tenant; 422 NOT_FOUND otherwise (another
 * tenant's DIDs included). `storage` is the transaction the assignment is written in.
 */
export async function assertAssignable(storage: StorageAdapter, tenantId: string, did: string): Promise<void> {
  const c = collectionsOf(storage, tenantId)
  if (await c.wallets.findOne({ field: 'did', op: 'eq', value: did })) return
  // A stored credential's DID (index tenantId, did, createdAt).
  const credential = await c.credentials.findOne({ field: 'did', op: 'eq', value: did })
  if (!credential) throw notFound(`no wallet or stored credential with DID ${did}`)
}
