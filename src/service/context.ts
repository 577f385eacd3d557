/**
 * What the service hands its operations: the union of every domain's context. The table passes
 * it whole; each handler's signature names the parts it reaches (a `Pick` of its domain's context).
 */
import type { CredentialsConfig, CredentialsContext } from '../credentials/context.js'
import type { RolesContext } from '../roles/context.js'
import type { TokensConfig, TokensContext } from '../tokens/context.js'
import type { VaultsContext } from '../vaults/context.js'
import type { Resolver } from 'did-resolver'
import type { DidMethod } from '../did/methods/index.js'
import type { JsonLdLimits } from '../proofs/jsonld/bounds.js'
import type { StatusConfig, StatusContext } from '../status/context.js'
import type { Oid4vciContext } from '../oid4vci/module.js'
import type { Oid4vpContext } from '../oid4vp/module.js'
import type { OneTimeStore } from '../one-time/index.js'
import type { HsmModule } from '../keys/hsm.js'

/** Bounds of the service's work. */
export interface ServiceLimits {
  /**
   * Deepest nesting of objects and arrays in any request, the body being level 1: over HTTP
   * checked on the body's text before it is parsed, in the embedded API on the input objects;
   * past it a 422 names `limits.depth`. At least `jsonld.maxDepth` + 16.
   */
  depth: number
  /** Most items of one batch request. */
  batch: number
  /** Default DID-auth token lifetime, ms. */
  tokenDefaultLifetimeMs: number
  /** Longest DID-auth token lifetime, ms. */
  tokenMaxLifetimeMs: number
  /** Bounds of every JSON-LD input, checked before any JSON-LD processing (docs/credentials.md *Work bounds*). */
  jsonld: JsonLdLimits
}

/** The service's configuration, as every domain reads it. */
export type ServiceConfig = CredentialsConfig & TokensConfig & StatusConfig & { limits: ServiceLimits }

export type ServiceContext = VaultsContext &
  RolesContext &
  CredentialsContext &
  StatusContext &
  TokensContext &
  Oid4vciContext &
  Oid4vpContext & {
    /** The service's own resolver: its registries, and did:key. */
    resolver: Resolver
    /** did:web behind the DID-method port: the service's own documents (storage) and foreign ones (`didWebOrigins`). */
    didWeb: DidMethod
    config: ServiceConfig
    /** Single-use, expiring values (codes, nonces, DPoP `jti`s) shared by every process on the storage, as keyed hashes. */
    oneTime: OneTimeStore
    /** The HSM module (option `hsm`), for readiness and closing; its key backend is the key manager's `hsm`. */
    hsm?: HsmModule
  }
