/**
 * The caller's facts the read rule (`read-rule.ts`) matches credentials against, gathered two
 * ways: whole, for the storage filter over every credential of the tenant (indexed queries and
 * resolutions, no collection read), and as far as one credential DID goes, for a decision on
 * the credentials carrying it.
 */
import type { Caller } from '../auth/context.js'
import type { CallerFactSource } from '../auth/facts.js'
import { grants, holdsKey, type HoldingFacts } from '../auth/policy-engine.js'
import { ethrDid } from '../did/methods/ethr/index.js'
import type { Registries } from '../did/methods/ethr/index.js'
import { ROLE_ASSIGNMENTS } from '../roles/records.js'
import { tenantCollectionOf } from '../storage/declaration.js'
import type { StorageAdapter } from '../storage/port.js'
import type { CredentialsConfig } from './context.js'
import type { CredentialDidFacts } from './policy.js'
import type { ReaderFacts } from './read-rule.js'

/** What gathering the caller's read facts reads: its facts, DID owners, the registries' owner index, role assignments. */
export interface ReaderFactsContext {
  callers: CallerFactSource
  registries: Pick<Registries, 'handedTo'>
  storage: StorageAdapter
  config: Pick<CredentialsConfig, 'networks'>
}

/** DIDs handed to the caller's keys read per network for the "owner of its DID" ground. */
const MAX_HANDED_DIDS = 1_000

/** The readable roles of each caller's holding facts (gathered once per request): a decision per credential reuses them. */
const readRolesMemo = new WeakMap<HoldingFacts, ReadonlySet<string>>()

/** The roles the caller holds with `Read` (or `Write`, which implies it). */
function readRolesOf(caller: HoldingFacts): ReadonlySet<string> {
  let roles = readRolesMemo.get(caller)
  if (roles === undefined) {
    roles = new Set([...caller.roles].filter(([, permissions]) => grants(permissions, 'Read')).map(([role]) => role))
    readRolesMemo.set(caller, roles)
  }
  return roles
}

/**
 * The caller's read facts, whole: what the storage filter of Fetch and Store is compiled from.
 * Its DIDs and roles are its holding facts (gathered once per request); the DIDs it owns and
 * those its readable roles govern take the resolutions and the one indexed query below.
 */
export async function readerFacts(ctx: ReaderFactsContext, caller: Caller): Promise<ReaderFacts> {
  const holding = await ctx.callers.holding(caller)
  const readRoles = readRolesOf(holding)
  const [ownedDids, governedDids] = await Promise.all([
    ownedDidsOf(ctx, caller, holding),
    didsGovernedBy(ctx.storage, caller.tenantId, readRoles),
  ])
  return { dids: holding.dids, readRoles, ownedDids, governedDids }
}

/**
 * The caller's read facts as far as one credential DID goes (`did` undefined: a credential
 * without one): the DID is owned when the caller holds its owner key, and governed when one of
 * the roles governing it is readable by the caller. The read rule tests these two sets only at
 * the credential's own DID, so it decides on them as on the whole sets.
 */
export function readerFactsAbout(caller: HoldingFacts, did: CredentialDidFacts | undefined): ReaderFacts {
  const readRoles = readRolesOf(caller)
  const only = (holds: boolean) => new Set(did !== undefined && holds ? [did.did] : [])
  return {
    dids: caller.dids,
    readRoles,
    ownedDids: only(holdsKey(caller, did?.controllingKeys)),
    governedDids: only([...(did?.roles ?? [])].some((role) => readRoles.has(role))),
  }
}

/**
 * The DIDs the caller owns that a stored credential may have as its DID: the did:ethr DIDs of
 * the caller's keys on each network of the service and the DIDs its tokens name (resolved:
 * kept while its keys still own them), and the DIDs whose ownership was handed to its keys
 * (the embedded registry's owner index, up to 1,000 per network; on-chain registries cannot be
 * asked who owns what — credentials whose DID was handed over on chain are listed on the other
 * grounds, and Delete / add-proof decide on the resolved owner either way).
 */
async function ownedDidsOf(ctx: ReaderFactsContext, caller: Caller, facts: HoldingFacts): Promise<Set<string>> {
  const ofKeys = caller.addresses.flatMap((address) => ctx.config.networks.map((network) => ethrDid(network, address)))
  const candidates = [...new Set([...ofKeys, ...caller.dids])]
  const [owners, handed] = await Promise.all([
    Promise.all(candidates.map((did) => ctx.callers.controllingKeys(did, caller).catch(() => undefined))),
    ctx.registries.handedTo(caller.addresses, MAX_HANDED_DIDS),
  ])
  return new Set([...candidates.filter((_did, i) => holdsKey(facts, owners[i])), ...handed])
}

/**
 * The credential DIDs `roles` govern (assigned with `governsCredentials`): one query on the
 * index (tenantId, role, did), none without roles.
 */
async function didsGovernedBy(storage: StorageAdapter, tenantId: string, roles: ReadonlySet<string>): Promise<Set<string>> {
  if (roles.size === 0) return new Set()
  const assignments = tenantCollectionOf(storage, ROLE_ASSIGNMENTS, tenantId)
  const governing = await assignments.all(
    {
      and: [
        { field: 'role', op: 'in', value: [...roles] },
        { field: 'governsCredentials', op: 'eq', value: true },
      ],
    },
    { orderBy: { field: 'role' } },
  )
  return new Set(governing.map((a) => a.did))
}
