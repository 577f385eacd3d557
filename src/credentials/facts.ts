/**
 * The facts the credentials' slice of the policy decides on: a stored credential's (its DID's
 * owner, the roles listed in it and those governing its DID) and a credential DID's (shared by
 * every record carrying it).
 */
import type { Caller } from '../auth/context.js'
import type { CallerFactSource } from '../auth/facts.js'
import { parseEthrDid } from '../did/methods/ethr/index.js'
import { ROLE_ASSIGNMENTS } from '../roles/records.js'
import { tenantCollectionOf } from '../storage/declaration.js'
import type { StorageAdapter } from '../storage/port.js'
import type { CredentialDidFacts, CredentialFacts } from './policy.js'
import type { CredentialRecord } from './records.js'

/** What gathering credential facts reads: DID owners (through the caller facts) and role assignments. */
export interface CredentialFactsContext {
  callers: CallerFactSource
  storage: StorageAdapter
}

/**
 * A stored credential's facts: the owner of its DID (resolved; `selfOwned` when a did:ethr
 * DID's owner is its own address), the roles listed in it and those governing its DID.
 */
export async function credentialFacts(
  ctx: CredentialFactsContext,
  record: Pick<CredentialRecord, 'tenantId' | 'did' | 'isPublicAccess' | 'storedBy' | 'issuer' | 'subject' | 'roles'>,
): Promise<CredentialFacts> {
  const facts: CredentialFacts = {
    selfOwned: false,
    isPublicAccess: record.isPublicAccess,
    storedBy: record.storedBy,
    roles: new Set(record.roles),
  }
  if (record.issuer !== undefined) facts.issuer = record.issuer
  if (record.subject !== undefined) facts.subject = record.subject
  if (record.did !== undefined) {
    const did = await credentialDidFacts(ctx, record.tenantId, record.did)
    facts.did = did.did
    if (did.controllingKeys !== undefined) facts.controllingKeys = did.controllingKeys
    const own = parseEthrDid(record.did)?.address
    facts.selfOwned = own !== undefined && did.controllingKeys?.length === 1 && did.controllingKeys[0] === own
    facts.roles = new Set([...record.roles, ...did.roles])
  }
  return facts
}

/**
 * A credential DID's facts, shared by every stored credential with that DID: the owner of its
 * document (resolved, unless the caller's tokens proved it) and the roles governing it.
 */
export async function credentialDidFacts(
  ctx: CredentialFactsContext,
  tenantId: string,
  did: string,
  caller?: Caller,
): Promise<CredentialDidFacts> {
  const [controllingKeys, roles] = await Promise.all([ctx.callers.controllingKeys(did, caller), rolesGoverning(ctx.storage, tenantId, did)])
  return { did, controllingKeys, roles }
}

/**
 * The roles governing the stored credentials whose DID is `did`: assigned to that DID by
 * someone with rights over it (`governsCredentials`). One query on the index (tenantId, did,
 * role), reading that DID's assignments only. A role merely assigned to a wallet DID (which
 * makes the wallet a holder of the role) does not reach credentials that carry that DID.
 */
export async function rolesGoverning(storage: StorageAdapter, tenantId: string, did: string): Promise<Set<string>> {
  const assignments = tenantCollectionOf(storage, ROLE_ASSIGNMENTS, tenantId)
  const found = await assignments.all(
    {
      and: [
        { field: 'did', op: 'eq', value: did },
        { field: 'governsCredentials', op: 'eq', value: true },
      ],
    },
    { orderBy: { field: 'role' } },
  )
  return new Set(found.map((a) => a.role))
}
