/** Turns request headers into a {@link Caller}, as each operation's {@link AuthRequirement} says. */
import { IdentityError, unauthenticated } from '../errors.js'
import type { AuthContext, AuthenticateFunction, AuthRequirement, Caller, RegisteredAuthRequirement } from './context.js'
import { validDidAuthProofs, verifyDidAuthHeader, verifyDidAuthProof, type DidAuthOptions, type DidAuthProof } from './did-auth.js'
import { SYSTEM_TENANT, bearerToken, type TenantResolver } from './tenants.js'

/**
 * The tenant of a wallet the service holds, by DID (the wallets domain answers, across tenants):
 * an Access Token JWT's issuer must be one, and its tenant is the caller's.
 */
export type WalletTenantLookup = (did: string) => Promise<string | undefined>

export class Authenticator {
  /** The authentication functions protocol modules registered, by requirement. */
  readonly #registered: Map<RegisteredAuthRequirement, AuthenticateFunction>

  constructor(
    private readonly tenants: TenantResolver,
    private readonly didAuth: DidAuthOptions,
    private readonly walletTenant: WalletTenantLookup,
    registered: Iterable<[RegisteredAuthRequirement, AuthenticateFunction]> = [],
  ) {
    this.#registered = new Map(registered)
  }

  /**
   * Makes `authenticate` check `requirement` (a protocol module's: its access tokens) with `fn`. Once per
   * requirement: a second registration throws a `TypeError`.
   */
  register(requirement: RegisteredAuthRequirement, fn: AuthenticateFunction): void {
    if (this.#registered.has(requirement)) throw new TypeError(`an authenticator of ${requirement} is registered already`)
    this.#registered.set(requirement, fn)
  }

  /** @internal A copy with these authentication functions too (tests of the router over their own operations). */
  with(registered: Partial<Record<RegisteredAuthRequirement, AuthenticateFunction>>): Authenticator {
    const entries = Object.entries(registered) as Array<[RegisteredAuthRequirement, AuthenticateFunction]>
    return new Authenticator(this.tenants, this.didAuth, this.walletTenant, [...this.#registered, ...entries])
  }

  async authenticate(auth: AuthContext, need: AuthRequirement): Promise<Caller> {
    // A public operation reads no header: its caller is nobody, of no tenant.
    if (need === 'public') return { tenantId: '', dids: [], addresses: [] }
    if (need === 'access') return this.#accessToken(auth.authorization)
    if (need !== 'tenant' && need !== 'tenant+did') {
      const registered = this.#registered.get(need)
      // The module that would serve the operation is not enabled: for the caller, there is no such endpoint.
      if (!registered) throw new IdentityError('NOT_FOUND', `not served here: no module authenticates ${need}`, 404)
      return registered(auth)
    }
    const { tenantId, keyId } = await this.#tenant(auth.authorization)
    // Where no DID-auth token is required, the valid ones sent still count (as MPC member approvals).
    const proofs =
      need === 'tenant+did' ? await verifyDidAuthHeader(auth.didAuth, this.didAuth) : await validDidAuthProofs(auth.didAuth, this.didAuth)
    return {
      tenantId,
      dids: unique(proofs.map((p) => p.did)),
      addresses: unique(proofs.flatMap((p) => (p.address === undefined ? [] : [p.address]))),
      owners: Object.fromEntries(proofs.flatMap((p) => (p.byOwner && p.address !== undefined ? [[p.did, p.address]] : []))),
      ...keysOf(proofs),
      ...(keyId !== undefined && { apiKeyId: keyId }),
    }
  }

  async #tenant(header: string | undefined): Promise<{ tenantId: string; keyId?: string }> {
    const token = bearerToken(header)
    if (!token) throw unauthenticated('missing Base Auth Token')
    const found = this.tenants.identify ? await this.tenants.identify(token) : { tenantId: await this.tenants.authenticate(token) }
    if (!found?.tenantId) throw unauthenticated('invalid Base Auth Token')
    // The audit trail's system chain is no tenant's: a resolver naming it is misconfigured.
    if (found.tenantId === SYSTEM_TENANT) throw new Error(`the tenant resolver returned the reserved tenant id ${SYSTEM_TENANT}`)
    return found as { tenantId: string; keyId?: string }
  }

  /** The Access Token JWT: a DID-auth JWT whose issuer is a wallet the service holds; its tenant is the caller's. */
  async #accessToken(header: string | undefined): Promise<Caller> {
    const token = bearerToken(header)
    if (!token) throw unauthenticated('missing Access Token JWT')
    const proof = await verifyDidAuthProof(token, this.didAuth)
    const { did, address, byOwner } = proof
    const tenantId = await this.walletTenant(did)
    if (tenantId === undefined) throw unauthenticated('the Access Token issuer is not a wallet of this service')
    const addresses = address === undefined ? [] : [address]
    return {
      tenantId,
      dids: [did],
      addresses,
      owners: byOwner && address !== undefined ? { [did]: address } : {},
      ...keysOf([proof]),
    }
  }
}

const unique = (values: string[]) => [...new Set(values)]

/**
 * `keys` and `keyControlled` of a caller, when there are any: the thumbprint URIs of the P-256 / Ed25519 keys that
 * signed its tokens, and the DIDs (not did:ethr) whose current `authentication` key signed one.
 */
function keysOf(proofs: DidAuthProof[]): Pick<Caller, 'keys' | 'keyControlled'> {
  const keys = unique(proofs.flatMap((p) => (p.key === undefined ? [] : [p.key])))
  const dids = unique(proofs.filter((p) => p.byKey === true).map((p) => p.did))
  return { ...(keys.length > 0 && { keys }), ...(dids.length > 0 && { keyControlled: dids }) }
}
