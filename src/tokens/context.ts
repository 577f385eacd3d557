/** What the tokens' operation may be given (it takes only the parts it uses). */
import type { AuditTrail } from '../audit/trail.js'
import type { ClaimResolvers } from '../did/named-resolvers.js'
import type { KnownKeys } from '../proofs/known-keys.js'
import type { Runtime } from '../operations/runtime.js'
import type { StorageAdapter } from '../storage/port.js'
import type { WalletSigners } from '../wallets/signers.js'

export interface TokensConfig {
  /** `aud` of DID-auth tokens this service issues and accepts. */
  audience: string
  limits: {
    /** Default DID-auth token lifetime, ms. */
    tokenDefaultLifetimeMs: number
    /** Longest DID-auth token lifetime, ms. */
    tokenMaxLifetimeMs: number
  }
}

export interface TokensContext extends Runtime {
  storage: StorageAdapter
  signers: WalletSigners
  /** The named resolvers: DID-auth tokens are verified against the `default` one (the service's DIDs; did:key, did:jwk offline). */
  resolvers: ClaimResolvers
  keys: KnownKeys
  audit: AuditTrail
  config: TokensConfig
}
