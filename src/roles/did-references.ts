/** The roles' side of {@link DidReferences}: a DID that goes away loses its role assignments. */
import { tenantCollectionOf } from '../storage/declaration.js'
import type { StorageAdapter } from '../storage/port.js'
import type { DidReferences } from '../wallets/context.js'
import { ROLE_ASSIGNMENTS } from './records.js'

export const roleAssignmentsOfDids: DidReferences = {
  async forget(tx: StorageAdapter, tenantId: string, dids: readonly string[]): Promise<void> {
    if (dids.length === 0) return
    await tenantCollectionOf(tx, ROLE_ASSIGNMENTS, tenantId).deleteMany({ field: 'did', op: 'in', value: [...dids] })
  },
}
