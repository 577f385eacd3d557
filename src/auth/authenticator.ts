/** Turns request headers into a {@link Caller}, as each operation's {@link AuthRequirement} says. */
import { unauthenticated } from '../errors.js'
import type { StorageAdapter } from '../storage/port.js'
import type { WalletRecord } from '../storage/collections.js'
import type { AuthContext, AuthRequirement, Caller } from './context.js'
import { validDidAuthProofs, verifyDidAuthHeader, verifyDidAuthProof, type DidAuthOptions } from './did-auth.js'
import { bearerToken, type TenantResolver } from './tenants.js'

export class Authenticator {
  constructor(
    private readonly tenants: TenantResolver,
    private readonly didAuth: DidAuthOptions,
    private readonly storage: StorageAdapter,
  ) {}

  async authenticate(auth: AuthContext, need: AuthRequirement): Promise<Caller> {
    if (need === 'access') return this.#accessToken(auth.authorization)
    const tenantId = await this.#tenant(auth.authorization)
    // Where no DID-auth token is required, the valid ones sent still count (as MPC member approvals).
    const proofs = need === 'tenant+did' ? await verifyDidAuthHeader(auth.didAuth, this.didAuth) : await validDidAuthProofs(auth.didAuth, this.didAuth)
    return { tenantId, dids: unique(proofs.map((p) => p.did)), addresses: unique(proofs.map((p) => p.address)), owners: Object.fromEntries(proofs.filter((p) => p.byOwner).map((p) => [p.did, p.address])) }
  }

  async #tenant(header: string | undefined): Promise<string> {
    const token = bearerToken(header)
    if (!token) throw unauthenticated('missing Base Auth Token')
    const tenantId = await this.tenants.authenticate(token)
    if (!tenantId) throw unauthenticated('invalid Base Auth Token')
    return tenantId
  }

  /** The Access Token JWT: a DID-auth JWT whose issuer is a wallet the service holds; its tenant is the caller's. */
  async #accessToken(header: string | undefined): Promise<Caller> {
    const token = bearerToken(header)
    if (!token) throw unauthenticated('missing Access Token JWT')
    const { did, address, byOwner } = await verifyDidAuthProof(token, this.didAuth)
    const wallet = await this.storage.collection<WalletRecord>('wallets').findOne({ field: 'did', op: 'eq', value: did })
    if (!wallet) throw unauthenticated('the Access Token issuer is not a wallet of this service')
    return { tenantId: wallet.tenantId, dids: [did], addresses: [address], owners: byOwner ? { [did]: address } : {} }
  }
}

const unique = (values: string[]) => [...new Set(values)]
