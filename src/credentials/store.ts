/**
 * Store, Fetch and Delete Verifiable Credentials (`POST /claims`, `GET /claims`, `DELETE
 * /claims`; DESIGN §4 *Store VCs*, *Stored VC read access*, *VC write access*).
 *
 * Read access is computed by the database query: the read rule compiled to a storage filter
 * (`readableWhere` of `read-rule.ts`, the same declaration as the decision
 * `RULES.readCredential`). Delete decides per record with the pure rule `canDeleteCredential`
 * over the record's facts.
 */
import { randomUUID } from 'node:crypto'
import type { z } from 'zod'
import type { Caller } from '../auth/context.js'
import { canDeleteCredential, canGovernCredentialDid } from './policy.js'
import { sha256 } from './content-hash.js'
import { carriedBy, type CredentialFormat, type FormatName } from './formats/index.js'
import { normalizeDid, principalOf } from '../did/methods/ethr/index.js'
import { forbidden, invalid, notFound } from '../errors.js'
import { MAX_PAGE } from '../operations/schemas.js'
import type * as schemas from './schemas.js'
import type { StoreClaimsInput, StoredCredential } from './schemas.js'
import type { CredentialRecord } from './records.js'
import type { RoleAssignmentRecord } from '../roles/records.js'
import { UniqueConstraintError, type Where } from '../storage/port.js'
import { forEachItem } from '../operations/batch.js'
import { findRole } from '../roles/views.js'
import { jsonLdHasher } from './jsonld-work.js'
import { assertManagesRole } from '../roles/access.js'
import { credentialFacts, credentialDidFacts } from './facts.js'
import { readableWhere } from './read-rule.js'
import { readerFacts } from './reader-facts.js'
import { ROLES, ROLE_ASSIGNMENTS } from '../roles/records.js'
import { CREDENTIALS } from './records.js'
import { tenantCollections } from '../storage/declaration.js'
import type { TenantCollection } from '../storage/tenant-scope.js'
import type { CredentialsContext } from './context.js'
import type { AuditAct } from '../audit/trail.js'
import type { KeyCustody } from '../custody/key-custody.js'
import { sealDisclosures, storedCredential } from './stored.js'

/**
 * A stored credential as responses show it (DESIGN §4 *`vcs` elements elsewhere*): its id, issuer
 * and subject as the credential spells them; its `format`; `storedBy` as principals; the credential in its member,
 * an SD-JWT VC with its disclosures unsealed (only for a record the caller may read).
 */
export function presentCredential(custody: KeyCustody, r: CredentialRecord): StoredCredential {
  // One object literal per shape (no spreads): a page presents up to 1,000 of them.
  const createdAt = new Date(r.createdAt).toISOString()
  const id = r.spelled?.vcId ?? r.vcId ?? null
  const issuer = r.spelled?.issuer ?? r.issuer ?? null
  const subject = r.spelled?.subject ?? r.subject ?? null
  const [roles, type, storedBy] = [r.roles.slice(), r.types.slice(), r.storedBy.slice()]
  const { format, encoded } = storedCredential(custody, r)
  const shown = {
    _id: r.id,
    id,
    format: format.name,
    isPublicAccess: r.isPublicAccess,
    roles,
    issuer,
    subject,
    type,
    storedBy,
    createdAt,
    [format.member]: encoded,
  }
  return shown as StoredCredential
}

const unique = <T>(values: Iterable<T>): T[] => [...new Set(values)]

/** What {@link credentialRecord} builds a new stored credential's record of. */
export interface NewCredentialRecord {
  tenantId: string
  /** The credential as its format parsed it (`CredentialFormat.parse`), its SD-JWT disclosures included. */
  parsed: Awaited<ReturnType<CredentialFormat['parse']>>
  /** The DIDs the storer acts through, sorted. */
  storedBy: string[]
  isPublicAccess: boolean
  roles: string[]
  createdAt: number
}

/**
 * The record Store writes for a new credential (a fresh id, its disclosures sealed, the storer's key), before its
 * status is looked up: one builder for the service and for whatever seeds a database with what the service writes.
 */
export function credentialRecord(custody: KeyCustody, input: NewCredentialRecord): CredentialRecord {
  const { disclosures, ...parsed } = input.parsed
  const id = randomUUID()
  return {
    id,
    tenantId: input.tenantId,
    ...parsed,
    ...sealDisclosures(custody, { tenantId: input.tenantId, id }, disclosures),
    storedBy: input.storedBy,
    storerKey: sha256(JSON.stringify(input.storedBy)),
    isPublicAccess: input.isPublicAccess,
    roles: input.roles,
    createdAt: input.createdAt,
  }
}

/**
 * Store Verifiable Credentials. Roles are checked first (each a role of the tenant the caller
 * may assign: 422 NOT_FOUND / 403, nothing stored); then each claim is parsed (and verified,
 * with `verify: true`) and stored, or reported in `errors`.
 *
 * Content already stored is deduplicated within what the caller may read: storing a copy of a
 * credential the caller may read returns that record; a caller who may not read any copy gets
 * a record of its own and learns nothing of the others.
 *
 * `roles` attach to the stored record (its `roles`: they reach that record only). They also
 * govern the credential's DID — and with it every record sharing that DID — only when the
 * caller has rights over the DID (`canGovernCredentialDid`), as an assignment would need.
 */
export async function storeClaims(
  ctx: Pick<
    CredentialsContext,
    | 'audit'
    | 'callers'
    | 'config'
    | 'custody'
    | 'jsonld'
    | 'keys'
    | 'now'
    | 'onError'
    | 'onItemFailure'
    | 'registries'
    | 'resolvers'
    | 'statuses'
    | 'storage'
  >,
  caller: Caller,
  input: StoreClaimsInput,
): Promise<z.output<typeof schemas.storeClaimsResponse>> {
  const { name: resolverName, resolver } = ctx.resolvers.get(input.resolver)
  // Stored and returned as given, verified or not: within the bounds, no forbidden key.
  for (const [i, claim] of input.claims.entries()) {
    const { format, encoded } = carriedBy(claim)
    format.checkInput(encoded, `claims.${i}.${format.member}`, ctx.config.limits)
  }
  const c = tenantCollections(ctx.storage, caller.tenantId, { roles: ROLES })
  const roleDids = unique([...(input.roles ?? []), ...input.claims.flatMap((claim) => claim.roles ?? [])].map(principalOf))
  const roles = new Map<string, { did: string; creator: string }>()
  for (const did of roleDids) {
    const role = await findRole(c.roles, did)
    await assertManagesRole(ctx, caller, role)
    roles.set(did, { did: role.did, creator: role.creator })
  }
  const holding = await ctx.callers.holding(caller)
  const storedBy = [...holding.dids].sort()
  const storerKey = sha256(JSON.stringify(storedBy))
  const now = ctx.now()
  const verifying = { resolver, now, keys: ctx.keys, hasher: jsonLdHasher(ctx, caller) }
  // 1. Each claim parsed (and verified): a refused claim is an element of `errors`.
  const { results: planned, errors } = await forEachItem(
    ctx,
    caller,
    'store credential',
    input.claims.map((claim, index) => ({ claim, index })),
    async ({ claim, index }) => {
      const { format, encoded } = carriedBy(claim)
      const parsed = await format.parse(encoded, ctx.config.limits)
      if (input.verify === true) {
        const outcome = await format.verify(encoded, verifying)
        if (!outcome.verified) throw invalid(`the credential does not verify: ${outcome.error ?? 'a check failed'}`)
      }
      const claimRoles = unique([...(input.roles ?? []), ...(claim.roles ?? [])].map(principalOf))
      const record = credentialRecord(ctx.custody, {
        tenantId: caller.tenantId,
        parsed,
        storedBy,
        isPublicAccess: claim.isPublicAccess ?? input.isPublicAccess ?? false,
        roles: claimRoles,
        createdAt: now,
      })
      // Its status in this service's lists, for Fetch's `status` filter (kept in step by status changes).
      const status = await ctx.statuses.statusOf(caller.tenantId, record)
      return { index, record: status === undefined ? record : { ...record, status } }
    },
    ({ index }, error) => ({ claim: index, error }),
  )
  // The DIDs whose stored credentials the given roles may govern: those the caller has rights over.
  const governed = new Set<string>()
  for (const did of unique(planned.flatMap(({ record }) => (record.did !== undefined && record.roles.length > 0 ? [record.did] : [])))) {
    if (canGovernCredentialDid(holding, await credentialDidFacts(ctx, caller.tenantId, did, caller))) governed.add(did)
  }
  const readable = planned.length === 0 ? undefined : readableWhere(await readerFacts(ctx, caller))
  // 2. The new ones inserted together (one transaction, one indexed lookup of the copies the
  // caller may read); the same content twice in a batch, or already readable, is one record.
  const put = async (items: typeof planned): Promise<Map<string, CredentialRecord>> =>
    ctx.storage.transaction(async (tx) => {
      const t = tenantCollections(tx, caller.tenantId, { credentials: CREDENTIALS, roleAssignments: ROLE_ASSIGNMENTS })
      const hashes = unique(items.map((p) => p.record.hash))
      const byHash = new Map<string, CredentialRecord>()
      if (hashes.length === 0 || readable === undefined) return byHash
      const existing = await t.credentials.all(
        { and: [{ field: 'hash', op: 'in', value: hashes }, readable] },
        { orderBy: { field: 'hash' } },
      )
      // Of several readable copies: the caller's own, else the oldest.
      for (const record of existing) {
        const chosen = byHash.get(record.hash)
        if (
          chosen === undefined ||
          (chosen.storerKey !== storerKey && (record.storerKey === storerKey || record.createdAt < chosen.createdAt))
        )
          byHash.set(record.hash, record)
      }
      const fresh: CredentialRecord[] = []
      for (const { record } of items) {
        if (byHash.has(record.hash)) continue
        byHash.set(record.hash, record)
        fresh.push(record)
      }
      await t.credentials.insertMany(fresh)
      const acts: AuditAct[] = fresh.map((r) => ({ action: 'credential.store', target: { type: 'credential', id: r.id } }))
      for (const record of fresh) {
        if (record.did !== undefined && governed.has(record.did)) {
          const granted = await governDid(
            t.roleAssignments,
            caller.tenantId,
            record.did,
            record.roles.map((r) => roles.get(r)!),
            now,
          )
          for (const role of granted) acts.push({ action: 'assignment.grant', target: { type: 'assignment', id: record.did, role } })
        }
      }
      await ctx.audit.append(tx, caller, acts)
      return byHash
    })
  let stored: Map<string, CredentialRecord>
  try {
    stored = await put(planned)
  } catch (err) {
    // Some content stored by a concurrent request of the same storer in the meantime: the same outcome, once more.
    if (!(err instanceof UniqueConstraintError)) throw err
    stored = await put(planned)
  }
  const vcs = planned.map(({ record }) => presentCredential(ctx.custody, stored.get(record.hash)!))
  errors.sort((a, b) => a.claim - b.claim)
  return { resolver: resolverName, vcs, errors }
}

/** Assigns each role over the credential DID (governing its credentials), unless it already governs it; the roles granted. */
async function governDid(
  assignments: TenantCollection<RoleAssignmentRecord>,
  tenantId: string,
  did: string,
  roles: Array<{ did: string; creator: string }>,
  now: number,
): Promise<string[]> {
  const granted: string[] = []
  for (const role of roles) {
    const pair: Where = {
      and: [
        { field: 'role', op: 'eq', value: role.did },
        { field: 'did', op: 'eq', value: did },
      ],
    }
    const existing = await assignments.findOne(pair)
    if (existing?.governsCredentials === true) continue
    granted.push(role.did)
    if (existing) {
      await assignments.update(existing.id, { governsCredentials: true })
      continue
    }
    const record: RoleAssignmentRecord = {
      id: randomUUID(),
      tenantId,
      role: role.did,
      did,
      roleCreator: role.creator,
      governsCredentials: true,
      createdAt: now,
    }
    await assignments.insert(record)
  }
  return granted
}

/**
 * The values a credential naming `did` is indexed under: its principal — and, for a public-key
 * did:ethr, that spelling too, under which earlier releases indexed it.
 */
function indexedAs(did: string): string[] {
  return unique([principalOf(did), normalizeDid(did)])
}

/** The credentials whose `field` names `did` (an equality on its index, unless it has two spellings). */
/**
 * The credentials of `format`. Records of releases before 0.3.0 hold no `format` (docs/architecture.md *Stored
 * credentials*): they match no format filter until they are written again.
 */
function formatIs(format: FormatName): Where {
  return { field: 'format', op: 'eq', value: format }
}

function naming(field: 'issuer' | 'subject', did: string): Where {
  const values = indexedAs(did)
  return values.length === 1 ? { field, op: 'eq', value: values[0] } : { field, op: 'in', value: values }
}

/** Fetch Verifiable Credentials: the readable credentials matching the filters, oldest first, one page. */
export async function getClaims(
  ctx: Pick<CredentialsContext, 'callers' | 'config' | 'custody' | 'registries' | 'resolvers' | 'storage'>,
  caller: Caller,
  q: z.output<typeof schemas.getClaimsQuery>,
): Promise<z.output<typeof schemas.claimsPage>> {
  const { name } = ctx.resolvers.get(q.resolver)
  const filters: Where[] = []
  // Either spelling of a principal finds its credentials (indexed as principals).
  const subject = q.subject === undefined ? undefined : principalOf(q.subject)
  const issuer = q.issuer === undefined ? undefined : principalOf(q.issuer)
  if (q.subject !== undefined) filters.push(naming('subject', q.subject))
  if (q.issuer !== undefined) filters.push(naming('issuer', q.issuer))
  if (q.ids !== undefined) filters.push({ field: 'vcId', op: 'in', value: unique(q.ids.flatMap(indexedAs)) })
  if (q.type !== undefined) filters.push({ field: 'types', op: 'containsAny', value: [q.type] })
  if (q.format !== undefined) filters.push(formatIs(q.format))
  // `active` is a record without `status` (eq null matches absent fields).
  if (q.status !== undefined) filters.push({ field: 'status', op: 'eq', value: q.status === 'active' ? null : q.status })
  // Asked for the credentials issued by (or to) a DID the caller acts through: each one matching
  // is readable on that ground of the `or`, so the `or` — and the facts only it needs (roles,
  // owned DIDs) — would change nothing.
  const { dids } = await ctx.callers.acting(caller)
  const ownGround = (issuer !== undefined && dids.has(issuer)) || (subject !== undefined && dids.has(subject))
  if (!ownGround) filters.push(readableWhere(await readerFacts(ctx, caller)))
  const page = await tenantCollections(ctx.storage, caller.tenantId, { credentials: CREDENTIALS }).credentials.find(
    { and: filters },
    { limit: q.limit ?? MAX_PAGE, cursor: q.cursor },
  )
  return {
    resolver: name,
    vcs: page.items.map((r) => presentCredential(ctx.custody, r)),
    ...(page.nextCursor !== undefined && { nextCursor: page.nextCursor }),
  }
}

/**
 * Delete Verifiable Credentials (Access Token JWT): each `_id` removed with the role
 * assignments of its DID (when no other stored copy has that DID), or reported in `errors`.
 */
export async function deleteClaims(
  ctx: Pick<CredentialsContext, 'audit' | 'callers' | 'custody' | 'onError' | 'onItemFailure' | 'resolvers' | 'storage'>,
  caller: Caller,
  input: z.output<typeof schemas.deleteClaims>,
): Promise<z.output<typeof schemas.deleteClaimsResponse>> {
  const { name } = ctx.resolvers.get(input.resolver)
  const { credentials } = tenantCollections(ctx.storage, caller.tenantId, { credentials: CREDENTIALS })
  const holding = await ctx.callers.holding(caller)
  const { results, errors } = await forEachItem(
    ctx,
    caller,
    'delete credential',
    unique(input.ids),
    async (id) => {
      const record = await credentials.get(id)
      if (!record) throw notFound(`no stored credential ${id}`)
      if (!canDeleteCredential(holding, await credentialFacts(ctx, record))) {
        throw forbidden(
          `only the owner of the credential’s DID, a holder of a Write role assigned to it, or — when it has no DID or ` +
            `its DID owns itself — whoever stored it may delete ${id}`,
        )
      }
      const deleted = await ctx.storage.transaction(async (tx) => {
        const t = tenantCollections(tx, caller.tenantId, { credentials: CREDENTIALS, roleAssignments: ROLE_ASSIGNMENTS })
        if (!(await t.credentials.delete(id))) return false
        if (record.did !== undefined && (await t.credentials.count({ field: 'did', op: 'eq', value: record.did })) === 0) {
          await t.roleAssignments.deleteMany({ field: 'did', op: 'eq', value: record.did })
        }
        await ctx.audit.append(tx, caller, [{ action: 'credential.delete', target: { type: 'credential', id } }])
        return true
      })
      if (!deleted) throw notFound(`no stored credential ${id}`)
      return presentCredential(ctx.custody, record)
    },
    (_id, error) => ({ _id, error }),
  )
  return { resolver: name, vcs: results, errors }
}
