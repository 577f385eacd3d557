/**
 * The queries the service issues, in one place: each `find` an operation makes (with the shape of
 * its filter, its order and its page size), and the declared index it is designed to be served
 * by. The conformance suite asks every adapter's `explain` for each (contract: served by an
 * index); the SQLite tests also check that SQLite picks the index named here. A new query in an
 * operation belongs here, with its index.
 */
import { readableWhere } from '../credentials/read-rule.js'
import type { ExplainOptions, Where } from '../storage/port.js'

/** One query the service issues. Values are placeholders: plans depend on the shape, not on them. */
export interface ServiceQuery {
  /** What the service asks, and where (operation or module). */
  title: string
  collection: string
  where: Where
  /** The find's options; `count: true`: the query is a `count(where)` (Get Overview's counts). */
  options: ExplainOptions
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

/** The read-access filter of Fetch and Store, compiled from the read rule for a caller with something on every ground. */
const readable: Where = readableWhere({
  dids: new Set(['a', 'b']),
  readRoles: new Set(['r']),
  ownedDids: new Set(['o']),
  governedDids: new Set(['h']),
})

/** Every query the service issues. */
export const SERVICE_QUERIES: readonly ServiceQuery[] = [
  // API keys
  {
    title: 'API key by hash',
    collection: 'apiKeys',
    index: ['hash'],
    where: { field: 'hash', op: 'eq', value: 'h' },
    options: { limit: 1 },
  },
  {
    title: 'API keys of a tenant (keys list --tenant)',
    collection: 'apiKeys',
    index: ['tenantId', 'createdAt'],
    where: tenant,
    options: { limit: 500 },
  },
  {
    title: 'API key rows left to migrate',
    collection: 'apiKeys',
    index: ['scheme', 'createdAt'],
    where: { field: 'scheme', op: 'eq', value: null },
    options: { limit: 100 },
  },
  // Wallets and vaults
  {
    title: 'wallet by DID (global, Access Token)',
    collection: 'wallets',
    index: ['did'],
    where: { field: 'did', op: 'eq', value: 'd' },
    options: { limit: 1 },
  },
  {
    title: 'wallet by DID in a tenant',
    collection: 'wallets',
    index: ['did'],
    where: scoped({ field: 'did', op: 'eq', value: 'd' }),
    options: { limit: 1 },
  },
  {
    title: 'caller wallets by DID list',
    collection: 'wallets',
    index: ['did'],
    where: scoped({ field: 'did', op: 'in', value: ['a', 'b'] }),
    options: { limit: 2 },
  },
  {
    title: 'known key by address',
    collection: 'wallets',
    index: ['ethereumAddress'],
    where: { field: 'ethereumAddress', op: 'eq', value: '0x' },
    options: { limit: 1 },
  },
  {
    title: 'wallet by alias',
    collection: 'wallets',
    index: ['tenantId', 'alias'],
    where: scoped({ field: 'alias', op: 'eq', value: 'a' }),
    options: { limit: 1000 },
  },
  {
    title: 'wallets of a vault',
    collection: 'wallets',
    index: ['tenantId', 'vaultId', 'createdAt'],
    where: scoped({ field: 'vaultId', op: 'eq', value: 'v' }),
    options: { limit: 1000 },
  },
  {
    title: 'vaults by parent (ECS and HSM)',
    collection: 'vaults',
    index: ['tenantId', 'parentID', 'createdAt'],
    where: scoped({
      and: [
        { field: 'parentID', op: 'eq', value: 'p' },
        { field: 'keyManagement', op: 'in', value: ['ECS', 'HSM'] },
      ],
    }),
    options: { limit: 1000 },
  },
  {
    title: 'vaults by parent, MPC ones of an account too',
    collection: 'vaults',
    index: ['tenantId', 'parentID', 'createdAt'],
    where: scoped({
      and: [
        { field: 'parentID', op: 'eq', value: 'p' },
        { or: [{ field: 'keyManagement', op: 'in', value: ['ECS', 'HSM'] }, { and: [{ field: 'mpcAccountID', op: 'eq', value: 'a' }] }] },
      ],
    }),
    options: { limit: 1000 },
  },
  {
    title: 'vaults by MPC account',
    collection: 'vaults',
    index: ['tenantId', 'mpcAccountID', 'createdAt'],
    where: scoped({ field: 'mpcAccountID', op: 'eq', value: 'a' }),
    options: { limit: 1000 },
  },
  {
    title: 'child vault count',
    collection: 'vaults',
    index: ['tenantId', 'parentID', 'createdAt'],
    where: scoped({ field: 'parentID', op: 'eq', value: 'p' }),
    options: { limit: 1 },
  },
  {
    title: 'DID history up to its head',
    collection: 'didEvents',
    index: ['network', 'identity', 'seq'],
    where: {
      and: [
        { field: 'network', op: 'eq', value: 'dev' },
        { field: 'identity', op: 'eq', value: '0x' },
        { field: 'seq', op: 'lte', value: 5 },
      ],
    },
    options: { orderBy: { field: 'seq' }, limit: 1000 },
  },
  {
    title: 'a did:web document’s changes by version (its history, its head)',
    collection: 'didWebChanges',
    index: ['did', 'version'],
    where: { field: 'did', op: 'eq', value: 'did:web:example.com:dids:w' },
    options: { orderBy: { field: 'version' }, limit: 1001 },
  },
  {
    title: 'DIDs handed to the caller’s keys (embedded registry)',
    collection: 'didHeads',
    index: ['owner', 'network', 'identity'],
    where: {
      and: [
        { field: 'owner', op: 'in', value: ['0x1', '0x2'] },
        { field: 'network', op: 'eq', value: 'dev' },
      ],
    },
    options: { orderBy: { field: 'identity' }, limit: 1002 },
  },
  {
    title: 'delegate keys of a wallet',
    collection: 'delegateKeys',
    index: ['tenantId', 'walletId', 'createdAt'],
    where: scoped({ field: 'walletId', op: 'eq', value: 'w' }),
    options: { limit: 1000 },
  },
  {
    title: 'the caller’s wallets by signing address (vault control)',
    collection: 'wallets',
    // Ordered by the address: its own index gives the order, the tenant is checked per row.
    index: ['ethereumAddress'],
    where: scoped({ field: 'ethereumAddress', op: 'in', value: ['0x1', '0x2'] }),
    options: { orderBy: { field: 'ethereumAddress' }, limit: 100 },
  },
  {
    title: 'the caller’s wallets by the key id of their own key (vault control)',
    collection: 'wallets',
    index: ['tenantId', 'keyId'],
    where: scoped({ field: 'keyId', op: 'in', value: ['urn:ietf:params:oauth:jwk-thumbprint:sha-256:a', '0x1'] }),
    options: { orderBy: { field: 'keyId' }, limit: 100 },
  },
  {
    title: 'wallets of a page of vaults',
    collection: 'wallets',
    index: ['tenantId', 'vaultId', 'createdAt'],
    where: scoped({ field: 'vaultId', op: 'in', value: ['v1', 'v2', 'v3'] }),
    options: { orderBy: { field: 'vaultId' }, limit: 1000 },
  },
  {
    title: 'a page of wallets',
    collection: 'wallets',
    index: ['tenantId', 'createdAt'],
    where: scoped({ and: [] }),
    options: { limit: 1000 },
  },
  {
    title: 'a page of vaults',
    collection: 'vaults',
    index: ['tenantId', 'createdAt'],
    where: scoped({ and: [] }),
    options: { limit: 1000 },
  },
  {
    title: 'owner wallet by address in a tenant',
    collection: 'wallets',
    index: ['tenantId', 'ethereumAddress', 'createdAt'],
    where: scoped({ field: 'ethereumAddress', op: 'eq', value: '0x' }),
    options: { limit: 1 },
  },
  // Roles and role assignments
  {
    title: 'wallets of the DIDs a caller names, any tenant (acting DIDs)',
    collection: 'wallets',
    index: ['did'],
    where: { field: 'did', op: 'in', value: ['a', 'b'] },
    options: { orderBy: { field: 'did' }, limit: 2 },
  },
  {
    title: 'role by DID',
    collection: 'roles',
    index: ['tenantId', 'did'],
    where: scoped({ field: 'did', op: 'eq', value: 'r' }),
    options: { limit: 1 },
  },
  {
    title: 'roles with these DIDs (effective roles)',
    collection: 'roles',
    index: ['tenantId', 'did'],
    where: scoped({ field: 'did', op: 'in', value: many('r', 100) }),
    options: { orderBy: { field: 'did' }, limit: 1000 },
  },
  {
    title: 'roles a DID created (Get Roles, first parts)',
    collection: 'roles',
    index: ['tenantId', 'creator', 'createdAt'],
    where: scoped({ field: 'creator', op: 'eq', value: 'c' }),
    options: { limit: 1000 },
  },
  {
    title: 'roles a DID created, with permissions',
    collection: 'roles',
    index: ['tenantId', 'creator', 'createdAt'],
    where: scoped({
      and: [
        { field: 'creator', op: 'eq', value: 'c' },
        { field: 'access', op: 'in', value: ['Read', 'Write'] },
      ],
    }),
    options: { limit: 1000 },
  },
  {
    title: 'owned and held roles, with permissions',
    collection: 'roles',
    index: ['tenantId', 'did'],
    where: scoped({
      and: [
        { field: 'did', op: 'in', value: many('r', 100) },
        { field: 'access', op: 'in', value: ['Write'] },
      ],
    }),
    options: { orderBy: { field: 'did' }, limit: 1000 },
  },
  {
    title: 'owned and held roles not created by the caller (Get Roles, last part)',
    collection: 'roles',
    index: ['tenantId', 'did'],
    where: scoped({
      and: [
        { field: 'did', op: 'in', value: many('r', 100) },
        { field: 'creator', op: 'ne', value: 'c' },
      ],
    }),
    options: { orderBy: { field: 'did' }, limit: 1000 },
  },
  {
    title: 'roles assigned to the caller’s DIDs (effective roles)',
    collection: 'roleAssignments',
    // Ordered by the DID: its own index gives the order, the tenant is checked per row.
    index: ['did'],
    where: scoped({ field: 'did', op: 'in', value: ['a', 'b'] }),
    options: { orderBy: { field: 'did' }, limit: 1000 },
  },
  {
    title: 'the roles governing a credential DID (read / write / grant decisions)',
    collection: 'roleAssignments',
    index: ['tenantId', 'did', 'role'],
    where: scoped({
      and: [
        { field: 'did', op: 'eq', value: 'vc' },
        { field: 'governsCredentials', op: 'eq', value: true },
      ],
    }),
    options: { orderBy: { field: 'role' }, limit: 1000 },
  },
  {
    title: 'the DIDs the caller’s readable roles govern (Fetch)',
    collection: 'roleAssignments',
    index: ['tenantId', 'role', 'did'],
    where: scoped({
      and: [
        { field: 'role', op: 'in', value: many('r', 20) },
        { field: 'governsCredentials', op: 'eq', value: true },
      ],
    }),
    options: { orderBy: { field: 'role' }, limit: 1000 },
  },
  {
    title: 'one assignment (idempotent assign, unassign)',
    collection: 'roleAssignments',
    index: ['tenantId', 'role', 'did'],
    where: scoped({
      and: [
        { field: 'role', op: 'eq', value: 'r' },
        { field: 'did', op: 'eq', value: 'd' },
      ],
    }),
    options: { limit: 1 },
  },
  {
    title: 'credential DIDs a role governs (raising its permissions)',
    collection: 'roleAssignments',
    index: ['tenantId', 'role', 'did'],
    where: scoped({
      and: [
        { field: 'role', op: 'eq', value: 'r' },
        { field: 'governsCredentials', op: 'eq', value: true },
      ],
    }),
    options: { orderBy: { field: 'did' }, limit: 1000 },
  },
  {
    title: 'DIDs holding a role (listing by role)',
    collection: 'roleAssignments',
    index: ['tenantId', 'role', 'did'],
    where: scoped({ field: 'role', op: 'eq', value: 'r' }),
    options: { orderBy: { field: 'did' }, limit: 1000 },
  },
  {
    title: 'the caller’s DIDs holding a role (listing by role, not managing it)',
    collection: 'roleAssignments',
    index: ['tenantId', 'role', 'did'],
    where: scoped({
      and: [
        { field: 'role', op: 'eq', value: 'r' },
        { field: 'did', op: 'in', value: ['a', 'b'] },
      ],
    }),
    options: { orderBy: { field: 'did' }, limit: 1000 },
  },
  {
    title: 'roles of a DID the caller does not act through (listing by did)',
    collection: 'roleAssignments',
    index: ['tenantId', 'did', 'role'],
    where: scoped({
      and: [
        { field: 'did', op: 'eq', value: 'd' },
        {
          or: [
            { field: 'roleCreator', op: 'in', value: ['a'] },
            { field: 'role', op: 'in', value: ['a'] },
          ],
        },
      ],
    }),
    options: { orderBy: { field: 'role' }, limit: 1000 },
  },
  // Stored credentials
  {
    title: 'readable copies of a batch’s contents (Store)',
    collection: 'credentials',
    index: ['tenantId', 'hash', 'storerKey'],
    where: scoped({ and: [{ field: 'hash', op: 'in', value: many('h', 1000) }, readable] }),
    options: { orderBy: { field: 'hash' }, limit: 1000 },
  },
  {
    title: 'credentials listing a role (raising its permissions)',
    collection: 'credentials',
    index: ['tenantId', 'createdAt'],
    where: scoped({ field: 'roles', op: 'containsAny', value: ['r'] }),
    options: { limit: 1000 },
  },
  {
    title: 'credentials with a DID (assignment target, delete)',
    collection: 'credentials',
    index: ['tenantId', 'did', 'createdAt'],
    where: scoped({ field: 'did', op: 'eq', value: 'd' }),
    options: { limit: 1 },
  },
  {
    title: 'readable credentials (Fetch, no filter)',
    collection: 'credentials',
    index: ['tenantId', 'createdAt'],
    where: scoped(readable),
    options: { limit: 50 },
  },
  {
    title: 'readable credentials by ids (Fetch by ids)',
    collection: 'credentials',
    index: ['tenantId', 'createdAt'],
    where: scoped({ and: [{ field: 'vcId', op: 'in', value: ['a', 'b'] }, readable] }),
    options: { limit: 50 },
  },
  {
    title: 'readable credentials of an issuer (Fetch by issuer)',
    collection: 'credentials',
    index: ['tenantId', 'issuer', 'createdAt'],
    where: scoped({ and: [{ field: 'issuer', op: 'eq', value: 'i' }, readable] }),
    options: { limit: 50 },
  },
  {
    title: 'readable credentials of a subject (Fetch by subject)',
    collection: 'credentials',
    index: ['tenantId', 'subject', 'createdAt'],
    where: scoped({ and: [{ field: 'subject', op: 'eq', value: 's' }, readable] }),
    options: { limit: 50 },
  },
  {
    title: 'readable credentials of a format (Fetch by format)',
    collection: 'credentials',
    index: ['tenantId', 'format', 'createdAt'],
    where: scoped({ and: [{ field: 'format', op: 'eq', value: 'JWT' }, readable] }),
    options: { limit: 50 },
  },
  {
    title: 'readable credentials of a status (Fetch by status)',
    collection: 'credentials',
    index: ['tenantId', 'status', 'createdAt'],
    where: scoped({ and: [{ field: 'status', op: 'eq', value: 'revoked' }, readable] }),
    options: { limit: 50 },
  },
  {
    title: 'readable active credentials (Fetch by status active: no status)',
    collection: 'credentials',
    index: ['tenantId', 'status', 'createdAt'],
    where: scoped({ and: [{ field: 'status', op: 'eq', value: null }, readable] }),
    options: { limit: 50 },
  },
  {
    title: 'stored copies of credentials whose status changed (Change Credential Status)',
    collection: 'credentials',
    index: ['vcId'],
    where: scoped({ field: 'vcId', op: 'in', value: ['a', 'b'] }),
    options: { orderBy: { field: 'vcId' }, limit: 1000 },
  },
  {
    title: 'credentials of earlier releases, without format (Get Overview)',
    collection: 'credentials',
    index: ['tenantId', 'format', 'createdAt'],
    where: scoped({ field: 'format', op: 'eq', value: null }),
    options: { limit: 1000 },
  },
  // Get Overview's counts: the tenant's index of each collection (SQLite counts on the index it names).
  ...['vaults', 'wallets', 'credentials', 'status_lists', 'auditRecords'].map((collection): ServiceQuery => ({
    title: `the tenant’s ${collection}, counted (Get Overview)`,
    collection,
    index: ['tenantId'],
    where: tenant,
    options: { count: true },
  })),
  {
    title: 'the tenant’s credentials of a format, counted (Get Overview)',
    collection: 'credentials',
    index: ['tenantId', 'format', 'createdAt'],
    where: scoped({ field: 'format', op: 'eq', value: 'JSON-LD' }),
    options: { count: true },
  },
  // Status lists
  {
    title: 'the tenant’s status lists, oldest first (List Status Lists)',
    collection: 'status_lists',
    index: ['tenantId', 'createdAt'],
    where: tenant,
    options: { limit: 1000 },
  },
  {
    title: 'the open status list of an issuer (allocation)',
    collection: 'status_lists',
    index: ['tenantId', 'issuer', 'purpose', 'format', 'full', 'createdAt'],
    where: scoped({
      and: [
        { field: 'issuer', op: 'eq', value: 'i' },
        { field: 'purpose', op: 'eq', value: 'revocation' },
        { field: 'format', op: 'eq', value: 'JWT' },
        { field: 'full', op: 'eq', value: false },
      ],
    }),
    options: { limit: 1 },
  },
  {
    title: 'the entries of a status list (free indexes)',
    collection: 'status_entries',
    index: ['listId', 'index'],
    where: scoped({ field: 'listId', op: 'eq', value: 'l' }),
    options: { limit: 1000 },
  },
  {
    title: 'the set entries of a status list (signing)',
    collection: 'status_entries',
    index: ['listId', 'value', 'createdAt'],
    where: scoped({
      and: [
        { field: 'listId', op: 'eq', value: 'l' },
        { field: 'value', op: 'eq', value: true },
      ],
    }),
    options: { limit: 1000 },
  },
  {
    title: 'a status entry by list and index (change status)',
    collection: 'status_entries',
    index: ['listId', 'index'],
    where: scoped({
      and: [
        { field: 'listId', op: 'eq', value: 'l' },
        { field: 'index', op: 'eq', value: 7 },
      ],
    }),
    options: { limit: 1 },
  },
  {
    title: 'the status entries of a credential id (change status by id)',
    collection: 'status_entries',
    index: ['tenantId', 'credentialId', 'purpose', 'createdAt'],
    where: scoped({
      and: [
        { field: 'credentialId', op: 'eq', value: 'c' },
        { field: 'purpose', op: 'eq', value: 'revocation' },
      ],
    }),
    options: { limit: 1000 },
  },
  {
    title: 'a tenant’s audit chain from a seq on (GET /audit, didvault audit verify)',
    collection: 'auditRecords',
    index: ['tenantId', 'seq'],
    where: scoped({ field: 'seq', op: 'gt', value: 5 }),
    options: { orderBy: { field: 'seq' }, limit: 1000 },
  },
  {
    title: 'a chain in order (didvault audit verify)',
    collection: 'auditRecords',
    index: ['tenantId', 'seq'],
    where: tenant,
    options: { orderBy: { field: 'seq' }, limit: 1000 },
  },
  {
    title: 'a chain’s unchained records in append order (the audit sequencer, the lag of GET /audit and audit verify)',
    collection: 'auditAppends',
    index: ['tenantId', 'createdAt'],
    where: tenant,
    options: { orderBy: { field: 'createdAt' }, limit: 500 },
  },
  {
    title: 'unchained records appended before a time, of every chain (the audit sequencer’s sweep)',
    collection: 'auditAppends',
    index: ['state', 'createdAt'],
    where: {
      and: [
        { field: 'state', op: 'eq', value: 'appended' },
        { field: 'createdAt', op: 'lt', value: 1_700_000_000_000 },
      ],
    },
    options: { orderBy: { field: 'createdAt' }, limit: 100 },
  },
  {
    title: 'the unchained records of every chain (didvault audit verify, IdentityService.close)',
    collection: 'auditAppends',
    index: ['state', 'createdAt'],
    where: { field: 'state', op: 'eq', value: 'appended' },
    options: { orderBy: { field: 'createdAt' }, limit: 1000 },
  },
]
