/**
 * The queries the service issues, in one place: each `find` an operation makes (with the shape of
 * its filter, its order and its page size), and the declared index it is designed to be served
 * by. The conformance suite asks every adapter's `explain` for each (contract: served by an
 * index); the SQLite tests also check that SQLite picks the index named here. A new query in an
 * operation belongs here, with its index.
 */
import type { FindOptions, Where } from '../storage/port.js'

/** One query the service issues. Values are placeholders: plans depend on the shape, not on them. */
export interface ServiceQuery {
  /** What the service asks, and where (operation or module). */
  title: string
  collection: string
  where: Where
  options: FindOptions
  /**
   * The fields of the index that serves it: a declared index with exactly these fields, or one
   * declared field (every declared field has an index of its own). Other planners may pick
   * another index; the suite only requires that one serves it.
   */
  index: string[]
}

const tenant: Where = { field: 'tenantId', op: 'eq', value: 't' }
const scoped = (where: Where): Where => ({ and: [tenant, where] })
/** `n` distinct values: long lists are bound differently by some adapters (SQLite: one JSON parameter). */
const many = (prefix: string, n: number): string[] => Array.from({ length: n }, (_, i) => `${prefix}${i}`)

/** The read-access filter of Fetch (credentials/store.ts `readableWhere`): an `or` of indexed grounds. */
const readable: Where = {
  or: [
    { field: 'isPublicAccess', op: 'eq', value: true },
    { field: 'storedBy', op: 'containsAny', value: ['a', 'b'] },
    { field: 'issuer', op: 'in', value: ['a', 'b'] },
    { field: 'subject', op: 'in', value: ['a', 'b'] },
    { field: 'roles', op: 'containsAny', value: ['r'] },
    { field: 'did', op: 'in', value: ['o', 'h'] },
  ],
}

const query = (title: string, collection: string, where: Where, options: FindOptions, index: string[]): ServiceQuery => ({
  title,
  collection,
  where,
  options,
  index,
})

/** Every query the service issues. */
export const SERVICE_QUERIES: readonly ServiceQuery[] = [
  // API keys
  query('API key by hash', 'apiKeys', { field: 'hash', op: 'eq', value: 'h' }, { limit: 1 }, ['hash']),
  query('API keys of a tenant (keys list --tenant)', 'apiKeys', tenant, { limit: 500 }, ['tenantId', 'createdAt']),
  query('API key rows left to migrate', 'apiKeys', { field: 'scheme', op: 'eq', value: null }, { limit: 100 }, ['scheme', 'createdAt']),
  // Wallets and vaults
  query('wallet by DID (global, Access Token)', 'wallets', { field: 'did', op: 'eq', value: 'd' }, { limit: 1 }, ['did']),
  query('wallet by DID in a tenant', 'wallets', scoped({ field: 'did', op: 'eq', value: 'd' }), { limit: 1 }, ['did']),
  query('caller wallets by DID list', 'wallets', scoped({ field: 'did', op: 'in', value: ['a', 'b'] }), { limit: 2 }, ['did']),
  query('known key by address', 'wallets', { field: 'ethereumAddress', op: 'eq', value: '0x' }, { limit: 1 }, ['ethereumAddress']),
  query('wallet by alias', 'wallets', scoped({ field: 'alias', op: 'eq', value: 'a' }), { limit: 1000 }, ['tenantId', 'alias']),
  query(
    'wallets of a vault',
    'wallets',
    scoped({ field: 'vaultId', op: 'eq', value: 'v' }),
    { limit: 1000 },
    ['tenantId', 'vaultId', 'createdAt'],
  ),
  query(
    'vaults by parent (ECS)',
    'vaults',
    scoped({ and: [{ field: 'parentID', op: 'eq', value: 'p' }, { field: 'keyManagement', op: 'eq', value: 'ECS' }] }),
    { limit: 1000 },
    ['tenantId', 'parentID', 'createdAt'],
  ),
  query(
    'vaults by parent, MPC ones of an account too',
    'vaults',
    scoped({
      and: [
        { field: 'parentID', op: 'eq', value: 'p' },
        { or: [{ field: 'keyManagement', op: 'eq', value: 'ECS' }, { and: [{ field: 'mpcAccountID', op: 'eq', value: 'a' }] }] },
      ],
    }),
    { limit: 1000 },
    ['tenantId', 'parentID', 'createdAt'],
  ),
  query(
    'vaults by MPC account',
    'vaults',
    scoped({ field: 'mpcAccountID', op: 'eq', value: 'a' }),
    { limit: 1000 },
    ['tenantId', 'mpcAccountID', 'createdAt'],
  ),
  query(
    'child vault count',
    'vaults',
    scoped({ field: 'parentID', op: 'eq', value: 'p' }),
    { limit: 1 },
    ['tenantId', 'parentID', 'createdAt'],
  ),
  query(
    'DID history up to its head',
    'didEvents',
    {
      and: [
        { field: 'network', op: 'eq', value: 'dev' },
        { field: 'identity', op: 'eq', value: '0x' },
        { field: 'seq', op: 'lte', value: 5 },
      ],
    },
    { orderBy: { field: 'seq' }, limit: 1000 },
    ['network', 'identity', 'seq'],
  ),
  query(
    'DIDs handed to the caller’s keys (embedded registry)',
    'didHeads',
    { and: [{ field: 'owner', op: 'in', value: ['0x1', '0x2'] }, { field: 'network', op: 'eq', value: 'dev' }] },
    { orderBy: { field: 'identity' }, limit: 1002 },
    ['owner', 'network', 'identity'],
  ),
  query(
    'delegate keys of a wallet',
    'delegateKeys',
    scoped({ field: 'walletId', op: 'eq', value: 'w' }),
    { limit: 1000 },
    ['tenantId', 'walletId', 'createdAt'],
  ),
  query(
    'the caller’s wallets by signing address (vault control)',
    'wallets',
    scoped({ field: 'ethereumAddress', op: 'in', value: ['0x1', '0x2'] }),
    { orderBy: { field: 'ethereumAddress' }, limit: 100 },
    // Ordered by the address: its own index gives the order, the tenant is checked per row.
    ['ethereumAddress'],
  ),
  query(
    'wallets of a page of vaults',
    'wallets',
    scoped({ field: 'vaultId', op: 'in', value: ['v1', 'v2', 'v3'] }),
    { orderBy: { field: 'vaultId' }, limit: 1000 },
    ['tenantId', 'vaultId', 'createdAt'],
  ),
  query('a page of wallets', 'wallets', scoped({ and: [] }), { limit: 1000 }, ['tenantId', 'createdAt']),
  query('a page of vaults', 'vaults', scoped({ and: [] }), { limit: 1000 }, ['tenantId', 'createdAt']),
  query(
    'owner wallet by address in a tenant',
    'wallets',
    scoped({ field: 'ethereumAddress', op: 'eq', value: '0x' }),
    { limit: 1 },
    ['tenantId', 'ethereumAddress', 'createdAt'],
  ),
  // Roles and role assignments
  query(
    'wallets of the DIDs a caller names, any tenant (acting DIDs)',
    'wallets',
    { field: 'did', op: 'in', value: ['a', 'b'] },
    { orderBy: { field: 'did' }, limit: 2 },
    ['did'],
  ),
  query('role by DID', 'roles', scoped({ field: 'did', op: 'eq', value: 'r' }), { limit: 1 }, ['tenantId', 'did']),
  query(
    'roles with these DIDs (effective roles)',
    'roles',
    scoped({ field: 'did', op: 'in', value: many('r', 100) }),
    { orderBy: { field: 'did' }, limit: 1000 },
    ['tenantId', 'did'],
  ),
  query(
    'roles a DID created (Get Roles, first parts)',
    'roles',
    scoped({ field: 'creator', op: 'eq', value: 'c' }),
    { limit: 1000 },
    ['tenantId', 'creator', 'createdAt'],
  ),
  query(
    'roles a DID created, with permissions',
    'roles',
    scoped({ and: [{ field: 'creator', op: 'eq', value: 'c' }, { field: 'access', op: 'in', value: ['Read', 'Write'] }] }),
    { limit: 1000 },
    ['tenantId', 'creator', 'createdAt'],
  ),
  query(
    'owned and held roles, with permissions',
    'roles',
    scoped({ and: [{ field: 'did', op: 'in', value: many('r', 100) }, { field: 'access', op: 'in', value: ['Write'] }] }),
    { orderBy: { field: 'did' }, limit: 1000 },
    ['tenantId', 'did'],
  ),
  query(
    'owned and held roles not created by the caller (Get Roles, last part)',
    'roles',
    scoped({ and: [{ field: 'did', op: 'in', value: many('r', 100) }, { field: 'creator', op: 'ne', value: 'c' }] }),
    { orderBy: { field: 'did' }, limit: 1000 },
    ['tenantId', 'did'],
  ),
  query(
    'roles assigned to the caller’s DIDs (effective roles)',
    'roleAssignments',
    scoped({ field: 'did', op: 'in', value: ['a', 'b'] }),
    { orderBy: { field: 'did' }, limit: 1000 },
    // Ordered by the DID: its own index gives the order, the tenant is checked per row.
    ['did'],
  ),
  query(
    'the roles governing a credential DID (read / write / grant decisions)',
    'roleAssignments',
    scoped({ and: [{ field: 'did', op: 'eq', value: 'vc' }, { field: 'governsCredentials', op: 'eq', value: true }] }),
    { orderBy: { field: 'role' }, limit: 1000 },
    ['tenantId', 'did', 'role'],
  ),
  query(
    'the DIDs the caller’s readable roles govern (Fetch)',
    'roleAssignments',
    scoped({ and: [{ field: 'role', op: 'in', value: many('r', 20) }, { field: 'governsCredentials', op: 'eq', value: true }] }),
    { orderBy: { field: 'role' }, limit: 1000 },
    ['tenantId', 'role', 'did'],
  ),
  query(
    'one assignment (idempotent assign, unassign)',
    'roleAssignments',
    scoped({ and: [{ field: 'role', op: 'eq', value: 'r' }, { field: 'did', op: 'eq', value: 'd' }] }),
    { limit: 1 },
    ['tenantId', 'role', 'did'],
  ),
  query(
    'credential DIDs a role governs (raising its permissions)',
    'roleAssignments',
    scoped({ and: [{ field: 'role', op: 'eq', value: 'r' }, { field: 'governsCredentials', op: 'eq', value: true }] }),
    { orderBy: { field: 'did' }, limit: 1000 },
    ['tenantId', 'role', 'did'],
  ),
  query(
    'DIDs holding a role (listing by role)',
    'roleAssignments',
    scoped({ field: 'role', op: 'eq', value: 'r' }),
    { orderBy: { field: 'did' }, limit: 1000 },
    ['tenantId', 'role', 'did'],
  ),
  query(
    'the caller’s DIDs holding a role (listing by role, not managing it)',
    'roleAssignments',
    scoped({ and: [{ field: 'role', op: 'eq', value: 'r' }, { field: 'did', op: 'in', value: ['a', 'b'] }] }),
    { orderBy: { field: 'did' }, limit: 1000 },
    ['tenantId', 'role', 'did'],
  ),
  query(
    'roles of a DID the caller does not act through (listing by did)',
    'roleAssignments',
    scoped({
      and: [
        { field: 'did', op: 'eq', value: 'd' },
        { or: [{ field: 'roleCreator', op: 'in', value: ['a'] }, { field: 'role', op: 'in', value: ['a'] }] },
      ],
    }),
    { orderBy: { field: 'role' }, limit: 1000 },
    ['tenantId', 'did', 'role'],
  ),
  // Stored credentials
  query(
    'readable copies of a batch’s contents (Store)',
    'credentials',
    scoped({ and: [{ field: 'hash', op: 'in', value: many('h', 1000) }, readable] }),
    { orderBy: { field: 'hash' }, limit: 1000 },
    ['tenantId', 'hash', 'storerKey'],
  ),
  query(
    'credentials listing a role (raising its permissions)',
    'credentials',
    scoped({ field: 'roles', op: 'containsAny', value: ['r'] }),
    { limit: 1000 },
    ['tenantId', 'createdAt'],
  ),
  query(
    'credentials with a DID (assignment target, delete)',
    'credentials',
    scoped({ field: 'did', op: 'eq', value: 'd' }),
    { limit: 1 },
    ['tenantId', 'did', 'createdAt'],
  ),
  query('readable credentials (Fetch, no filter)', 'credentials', scoped(readable), { limit: 50 }, ['tenantId', 'createdAt']),
  query(
    'readable credentials by ids (Fetch by ids)',
    'credentials',
    scoped({ and: [{ field: 'vcId', op: 'in', value: ['a', 'b'] }, readable] }),
    { limit: 50 },
    ['tenantId', 'createdAt'],
  ),
  query(
    'readable credentials of an issuer (Fetch by issuer)',
    'credentials',
    scoped({ and: [{ field: 'issuer', op: 'eq', value: 'i' }, readable] }),
    { limit: 50 },
    ['tenantId', 'issuer', 'createdAt'],
  ),
  query(
    'readable credentials of a subject (Fetch by subject)',
    'credentials',
    scoped({ and: [{ field: 'subject', op: 'eq', value: 's' }, readable] }),
    { limit: 50 },
    ['tenantId', 'subject', 'createdAt'],
  ),
]
