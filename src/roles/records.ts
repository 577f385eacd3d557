/**
 * Roles and their assignments: the records and their collection declarations (fields and indexes
 * checked against the record types by the compiler).
 */
import type { Permission } from '../auth/policy-engine.js'
import { declareCollection } from '../storage/declaration.js'
import type { StoredRecord } from '../storage/port.js'
import type { RoleAccess } from './schemas.js'

/** A role (DESIGN §4 "Role records"): backed by a wallet of the tenant whose DID is the role DID. */
export interface RoleRecord extends StoredRecord {
  tenantId: string
  /** The role DID: the DID of the wallet `walletId`. */
  did: string
  walletId: string
  /** The DID that created the role (one the caller controlled then). */
  creator: string
  /** Distinct, in canonical spelling and order (`Read` before `Write`). */
  permissions: Permission[]
  /** The strongest of `permissions` (`Write` implies `Read`), kept with them: what the `permissions` filter of Get Roles compares. */
  access: RoleAccess
  description: string
  createdAt: number
  updatedAt: number
}

export const ROLES = declareCollection<RoleRecord>({
  name: 'roles',
  // `access` is filtered within what the indexes select, never searched on its own.
  fields: ['tenantId', 'createdAt', 'did', 'creator', 'access'],
  indexes: [
    // One role per DID per tenant; also "the roles with these DIDs" (the caller's own, the roles it holds).
    { fields: ['tenantId', 'did'], unique: true },
    // The roles a caller created, oldest first.
    { fields: ['tenantId', 'creator', 'createdAt'] },
  ],
})

/** A role assigned to a DID (a wallet of the tenant, or a stored credential's DID). */
export interface RoleAssignmentRecord extends StoredRecord {
  tenantId: string
  /** The role DID. */
  role: string
  /** The DID the role is assigned to. */
  did: string
  /** The role's creator (it never changes): lets an assignment listing keep to the roles a caller created with one indexed query. */
  roleCreator: string
  /**
   * The role also governs the stored credentials whose DID is `did`: granted by someone with
   * rights over that DID (its owner key, or a `Write` role governing it). Without it (and on
   * rows of earlier releases) the assignment only makes `did` a holder of the role.
   */
  governsCredentials?: boolean
  createdAt: number
}

export const ROLE_ASSIGNMENTS = declareCollection<RoleAssignmentRecord>({
  name: 'roleAssignments',
  // `governsCredentials` is filtered within what the (did, role) index selects, never searched on its own.
  fields: ['tenantId', 'createdAt', 'role', 'did', 'roleCreator', 'governsCredentials'],
  indexes: [
    // One assignment per (role, DID); also "the DIDs holding this role", in DID order.
    { fields: ['tenantId', 'role', 'did'], unique: true },
    // "The roles assigned to these DIDs", in role order.
    { fields: ['tenantId', 'did', 'role'] },
  ],
})
