/**
 * What the roles' operations may be given (each handler takes only the parts it uses), and the
 * port through which a grant reaches stored credentials without the roles importing them.
 */
import type { Caller } from '../auth/context.js'
import type { StorageAdapter } from '../storage/port.js'
import type { WalletsContext } from '../wallets/context.js'
import type { RoleRecord } from './records.js'

/**
 * The resources a role may govern besides principals: stored credentials (implemented by the
 * credentials domain, whose policy decides). DESIGN §5: a grant reaches only what its grantor
 * may already write.
 */
export interface RoleResources {
  /** Whether stored credentials of the tenant carry `did` (an assignment to it is a grant over them); `storage` may be a transaction. */
  carriedBy(storage: StorageAdapter, tenantId: string, did: string): Promise<boolean>
  /** Whether the caller has rights over the credentials carrying `did` as they stand: its owner key, or a Write role governing it. */
  mayGovern(caller: Caller, did: string): Promise<boolean>
  /** Resolves when the caller may raise `role`'s permissions over everything the role reaches; 403 naming what it may not. */
  assertMayRaise(caller: Caller, role: RoleRecord): Promise<void>
}

export interface RolesContext extends WalletsContext {
  roleResources: RoleResources
}
