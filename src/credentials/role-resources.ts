/**
 * Stored credentials as resources roles may govern (the roles domain's {@link RoleResources}
 * port): the credentials' slice of the policy decides every grant that reaches them (DESIGN
 * §5: a grant reaches only what its grantor may already write).
 */
import type { Caller } from '../auth/context.js'
import { forbidden } from '../errors.js'
import type { RoleResources } from '../roles/context.js'
import { ROLE_ASSIGNMENTS, type RoleRecord } from '../roles/records.js'
import { tenantCollections } from '../storage/declaration.js'
import type { StorageAdapter } from '../storage/port.js'
import { credentialDidFacts, credentialFacts, type CredentialFactsContext } from './facts.js'
import { canGovernCredentialDid, canWriteCredential } from './policy.js'
import { CREDENTIALS } from './records.js'

/** Stored credentials looked at when a role's permissions are raised; a role reaching more is refused (grant a new role instead). */
const MAX_REACHED = 1_000

export class CredentialRoleResources implements RoleResources {
  constructor(private readonly ctx: CredentialFactsContext) {}

  async carriedBy(storage: StorageAdapter, tenantId: string, did: string): Promise<boolean> {
    // Index (tenantId, did, createdAt).
    const { credentials } = tenantCollections(storage, tenantId, { credentials: CREDENTIALS })
    return (await credentials.findOne({ field: 'did', op: 'eq', value: did })) !== undefined
  }

  async mayGovern(caller: Caller, did: string): Promise<boolean> {
    const holding = await this.ctx.callers.holding(caller)
    return canGovernCredentialDid(holding, await credentialDidFacts(this.ctx, caller.tenantId, did, caller))
  }

  /**
   * Raising a role's permissions grants the new ones wherever the role reaches, so it needs the
   * rights a new grant there would: over every credential DID the role governs, rights over
   * that DID; over every stored credential that lists the role, write access to it or having
   * stored it (a record's `roles` are its storer's to choose). 403 naming the first refused.
   */
  async assertMayRaise(caller: Caller, role: RoleRecord): Promise<void> {
    const c = tenantCollections(this.ctx.storage, caller.tenantId, { credentials: CREDENTIALS, roleAssignments: ROLE_ASSIGNMENTS })
    const holding = await this.ctx.callers.holding(caller)
    const [governed, listing] = await Promise.all([
      c.roleAssignments.find(
        {
          and: [
            { field: 'role', op: 'eq', value: role.did },
            { field: 'governsCredentials', op: 'eq', value: true },
          ],
        },
        { orderBy: { field: 'did' }, limit: MAX_REACHED },
      ),
      c.credentials.find({ field: 'roles', op: 'containsAny', value: [role.did] }, { limit: MAX_REACHED }),
    ])
    if (governed.nextCursor !== undefined || listing.nextCursor !== undefined) {
      throw forbidden(
        `${role.did} reaches more than ${MAX_REACHED} credentials: its permissions are not raised (create a new role with them instead)`,
      )
    }
    for (const { did } of governed.items) {
      if (!canGovernCredentialDid(holding, await credentialDidFacts(this.ctx, caller.tenantId, did, caller))) {
        throw forbidden(
          `${role.did} governs the credentials of ${did}: raising its permissions needs rights over that DID (its ` +
            `owner key, or a Write role governing it)`,
        )
      }
    }
    for (const record of listing.items) {
      if (!record.storedBy.some((did) => holding.dids.has(did)) && !canWriteCredential(holding, await credentialFacts(this.ctx, record))) {
        throw forbidden(
          `${role.did} is listed by the stored credential ${record.id}: raising its permissions needs write access to ` +
            `it, or to have stored it`,
        )
      }
    }
  }
}
