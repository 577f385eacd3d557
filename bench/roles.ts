/**
 * Roles on one storage adapter: role creation (a new wallet + the role record, through the
 * service), and the access decision "may this caller read this credential" for a caller whose
 * DID holds 100 roles, against a store of 10k and then 100k role assignments.
 *
 * A decision is measured the way an operation makes it: gather the facts (`CallerFacts`: the
 * caller's acting DIDs — one DID resolution and one wallet lookup — and its effective roles —
 * two indexed queries returning 100 rows each; the credential's DID owner — one resolution —
 * and the roles assigned to it — one indexed query), then ask the pure policy. `perRequest`
 * gathers everything each time (a new request); `perCredential` reuses the caller's facts,
 * computed once per request (the next credential of the same request, as a listing checks
 * them). Both must not grow with the store: indexes, not scans.
 */
import { randomUUID } from 'node:crypto'
import { CallerFacts } from '../src/roles/caller-facts.js'
import { rolesGoverning } from '../src/credentials/facts.js'
import { canReadCredential, type CredentialDidFacts } from '../src/credentials/policy.js'
import { readerFactsAbout } from '../src/credentials/reader-facts.js'
import type { Caller } from '../src/auth/context.js'
import { IdentityService, randomMasterKey, staticTenants, type StorageAdapter } from '../src/index.js'
import type { RoleAssignmentRecord } from '../src/roles/records.js'
import { measure, measurePair, type MeasureOptions, type Measurement } from './measure.js'

const API_KEY = 'bench-roles-api-key-0123456789'
const TENANT = 'bench-roles'
/** Roles the caller holds. */
const HELD = 100
/** Roles assigned to the credential; one of them is held by the caller (the decision allows). */
const ON_CREDENTIAL = 5
const FILLER_ROLES = 1_000
const BATCH = 1_000

export interface DecisionFigures {
  assignments: number
  perRequest: Measurement
  perCredential: Measurement
}

export interface RoleResults {
  roleCreation: Measurement
  /** Role creation ÷ ECS wallet generation, measured interleaved: what a role costs over its wallet (a DID-auth token check, one more record, a transaction). */
  roleCreationVsWalletGeneration: number
  readCredentialDecision: {
    at10k: DecisionFigures
    at100k: DecisionFigures
    perRequestLatencyRatio100kVs10k: number
    perCredentialLatencyRatio100kVs10k: number
  }
}

const round = (n: number, digits: number) => Number(n.toFixed(digits))

export async function benchRoles(label: string, storage: StorageAdapter, options: MeasureOptions): Promise<RoleResults> {
  const service = await IdentityService.create({ storage, masterKey: randomMasterKey(), tenants: staticTenants({ [API_KEY]: TENANT }) })
  try {
    const authorization = `Bearer ${API_KEY}`
    const api = service.as({ authorization })
    const caller = (await api.generateWallet({ wallet: { alias: 'caller' } })).wallet
    const credential = (await api.generateWallet({ wallet: { alias: 'credential' } })).wallet
    const asCaller = service.as({ authorization, didAuth: (await api.generateToken({ iss: caller.did })).jwt })

    // Interleaved with ECS wallet generation, so the ratio between the two holds whatever the machine's load.
    const [roleCreation, walletGeneration] = await measurePair(
      { label: `${label}: role creation (wallet + role record)`, fn: () => asCaller.createRole({ permissions: ['Read'] }) },
      { label: `${label}: ECS wallet generation (interleaved)`, fn: () => api.generateWallet({}) },
      options,
    )

    // The caller's 100 roles (made through the service), one of them also assigned to the credential.
    const held: string[] = []
    for (let i = 0; i < HELD; i++) held.push((await asCaller.createRole({ permissions: [i % 2 === 0 ? 'Read' : 'Write'] })).role.did)
    const assigned = await asCaller.createRoleAssignments({ assignments: held.map((role) => ({ role, did: caller.did })) })
    // Granted over the credential's DID by a caller who also holds that DID's owner key: the role governs it.
    const asOwner = service.as({
      authorization,
      didAuth: `${(await api.generateToken({ iss: caller.did })).jwt},${(await api.generateToken({ iss: credential.did })).jwt}`,
    })
    const governing = await asOwner.createRoleAssignments({ assignments: [{ role: held[HELD - 1], did: credential.did }] })
    if (assigned.errors.length > 0 || governing.errors.length > 0 || !governing.assignments[0].governsCredentials)
      throw new Error('bench: assignments failed')

    const facts = new CallerFacts(service.resolver, storage)
    const callerOf = (): Caller => ({ tenantId: TENANT, dids: [caller.did], addresses: [caller.ethereumAddress!] })
    const credentialDidFacts = async (): Promise<CredentialDidFacts> => {
      const [ownerAddress, roles] = await Promise.all([facts.ownerAddress(credential.did), rolesGoverning(storage, TENANT, credential.did)])
      return { did: credential.did, ownerAddress, roles }
    }
    const stored = { did: credential.did, isPublicAccess: false, storedBy: [], roles: [] }
    const decide = async (of: Caller) => {
      const reader = readerFactsAbout(await facts.holding(of), await credentialDidFacts())
      if (!canReadCredential(reader, stored)) throw new Error('bench: the decision should allow')
    }
    const sameRequest = callerOf()
    const figures = async (): Promise<DecisionFigures> => {
      const assignments = await storage.collection('roleAssignments').count({ field: 'tenantId', op: 'eq', value: TENANT })
      const perRequest = await measure(
        { label: `${label}: read decision per request, ${assignments} assignments`, fn: () => decide(callerOf()) },
        options,
      )
      const perCredential = await measure(
        { label: `${label}: read decision per credential, ${assignments} assignments`, fn: () => decide(sameRequest) },
        options,
      )
      return { assignments, perRequest, perCredential }
    }

    let filled = await storage.collection('roleAssignments').count({ field: 'tenantId', op: 'eq', value: TENANT })
    // Filler: other roles on the credential (not held), and assignments of filler roles to other DIDs.
    const filler = (n: number): RoleAssignmentRecord => {
      const role = `did:ethr:dev:0x${(n % FILLER_ROLES).toString(16).padStart(40, 'f')}`
      const did = n < ON_CREDENTIAL - 1 ? credential.did : `did:ethr:dev:0x${n.toString(16).padStart(40, '0')}`
      return { id: randomUUID(), tenantId: TENANT, role, did, roleCreator: caller.did, createdAt: 1_700_000_000_000 + n }
    }
    let serial = 0
    const fillTo = async (total: number) => {
      while (filled < total) {
        const batch = Array.from({ length: Math.min(BATCH, total - filled) }, () => filler(serial++))
        await storage.transaction((tx) => tx.collection<RoleAssignmentRecord>('roleAssignments').insertMany(batch))
        filled += batch.length
      }
    }
    await fillTo(10_000)
    const at10k = await figures()
    await fillTo(100_000)
    const at100k = await figures()
    return {
      roleCreation,
      roleCreationVsWalletGeneration: round(roleCreation.opsPerSec / walletGeneration.opsPerSec, 3),
      readCredentialDecision: {
        at10k,
        at100k,
        perRequestLatencyRatio100kVs10k: round(at100k.perRequest.p50Ms / at10k.perRequest.p50Ms, 3),
        perCredentialLatencyRatio100kVs10k: round(at100k.perCredential.p50Ms / at10k.perCredential.p50Ms, 3),
      },
    }
  } finally {
    await service.close()
  }
}
