/**
 * What a role may be assigned to (DESIGN §4 "Role assignments"): a wallet DID of the tenant
 * (claim DIDs made by Sign are such wallets) or the DID of a credential the tenant stores.
 * Stored credentials arrive with the credential operations: their lookup (an indexed query on
 * the stored VC's `id` within the tenant) joins the wallet lookup here, and nothing else of the
 * assignment operations changes.
 */
import { notFound } from '../errors.js'
import type { StorageAdapter } from '../storage/port.js'
import { collectionsOf } from './context.js'

/**
 * Resolves when `did` may be assigned a role in the tenant; 422 NOT_FOUND otherwise (another
 * tenant's DIDs included). `storage` is the transaction the assignment is written in.
 */
export async function assertAssignable(storage: StorageAdapter, tenantId: string, did: string): Promise<void> {
  const wallet = await collectionsOf(storage, tenantId).wallets.findOne({ field: 'did', op: 'eq', value: did })
  if (!wallet) throw notFound(`no wallet or stored credential with DID ${did}`)
}
