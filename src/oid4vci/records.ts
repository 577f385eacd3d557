/**
 * The OID4VCI issuer's records: each issuing tenant's Credential Issuer (its slug, unique across tenants, one per
 * tenant) and its credential configurations. Declarations are checked against the record types by the compiler.
 */
import { declareCollection, tenantCollectionOf } from '../storage/declaration.js'
import type { StorageAdapter, StoredRecord } from '../storage/port.js'
import type { OfferGrant } from './offer-schemas.js'
import type { Oid4vciFormat } from './schemas.js'

/** A tenant's Credential Issuer. `id` is the tenant's id (one issuer per tenant); `slug` is unique across tenants. */
export interface IssuerRecord extends StoredRecord {
  tenantId: string
  slug: string
  createdAt: number
}

export const OID4VCI_ISSUERS = declareCollection<IssuerRecord>({
  name: 'oid4vci_issuers',
  fields: ['tenantId', 'slug', 'createdAt'],
  indexes: [{ fields: ['slug'], unique: true }, { fields: ['tenantId', 'createdAt'] }],
})

/** A `credential_metadata.display` entry, as given. */
export type DisplayEntry = Record<string, unknown> & { name: string }
/** A claims description, as given. */
export type ClaimEntry = Record<string, unknown> & { path: Array<string | number | null> }

/**
 * A credential configuration of a tenant's issuer. `id` is a random storage id; `configurationId` is the tenant-unique
 * id wallets see (the key of `credential_configurations_supported`).
 */
export interface ConfigurationRecord extends StoredRecord {
  tenantId: string
  configurationId: string
  /** The issuer slug. */
  issuer: string
  format: Oid4vciFormat
  vct?: string
  types?: string[]
  context?: string[]
  /** The signing DID, as given (its principal is what control was proved of). */
  issuingDid: string
  /** The key type of the issuing DID's owner key when the configuration was written. */
  keyType: string
  /** Key-proof algorithms accepted. */
  proofAlgs: string[]
  /** The algorithm (JOSE) or Data Integrity suite the credentials are signed with. */
  signingAlg: string
  /** Whether `signingAlg` was given (or chosen from the key type). */
  signingAlgGiven: boolean
  proofTypesGiven: boolean
  display?: DisplayEntry[]
  claims?: ClaimEntry[]
  batchSize?: number
  deferred?: boolean
  dpopRequired?: boolean
  status?: boolean
  /** Accept untyped did:jwk key proofs (see the schema's `acceptUntypedProofs`). */
  acceptUntypedProofs?: boolean
  expiresInSeconds?: number
  createdAt: number
  updatedAt: number
}

export const OID4VCI_CONFIGURATIONS = declareCollection<ConfigurationRecord>({
  name: 'oid4vci_configurations',
  fields: ['tenantId', 'configurationId', 'issuer', 'format', 'issuingDid', 'createdAt', 'updatedAt'],
  indexes: [{ fields: ['tenantId', 'configurationId'], unique: true }, { fields: ['tenantId', 'createdAt'] }],
  // Read by every issuance, written rarely: kept in memory where the adapter can (docs/storage.md *Read cache*).
  cached: true,
})

/** The storage id of a tenant's issuer record: the tenant's id, so a tenant has one. */
export const issuerIdOf = (tenantId: string): string => tenantId

/** Issuers found, per storage adapter: a bounded cache (cleared whole when full). */
const FOUND_ISSUERS = new WeakMap<StorageAdapter, Map<string, IssuerRecord>>()
const FOUND_ISSUERS_MAX = 1_000

/**
 * The issuer a slug names (of any tenant), if any: how the wallet-facing endpoints find their tenant. An issuer record
 * is never updated or deleted (a tenant's slug is claimed once and kept, see `configurations.ts`), so one found is
 * remembered for this storage: every wallet request after the first skips the lookup. A slug not found is read again
 * each time (another process may claim it).
 */
export async function issuerBySlug(storage: StorageAdapter, slug: string): Promise<IssuerRecord | undefined> {
  let found = FOUND_ISSUERS.get(storage)
  const known = found?.get(slug)
  if (known) return known
  const issuer = await storage.collection<IssuerRecord>(OID4VCI_ISSUERS.name).findOne({ field: 'slug', op: 'eq', value: slug })
  if (issuer) {
    if (!found) FOUND_ISSUERS.set(storage, (found = new Map<string, IssuerRecord>()))
    if (found.size >= FOUND_ISSUERS_MAX) found.clear()
    found.set(slug, Object.freeze({ ...issuer }))
  }
  return issuer
}

/** The tenant's issuer, if it claimed a slug. */
export function issuerOfTenant(storage: StorageAdapter, tenantId: string): Promise<IssuerRecord | undefined> {
  return tenantCollectionOf(storage, OID4VCI_ISSUERS, tenantId).get(issuerIdOf(tenantId))
}

/** A configuration of the tenant by the id wallets see, if any. */
export function configurationOf(
  storage: StorageAdapter,
  tenantId: string,
  configurationId: string,
): Promise<ConfigurationRecord | undefined> {
  return tenantCollectionOf(storage, OID4VCI_CONFIGURATIONS, tenantId).findOne({
    field: 'configurationId',
    op: 'eq',
    value: configurationId,
  })
}

/** Every configuration of the tenant, oldest first (at most `MAX_CONFIGURATIONS` exist). */
export async function configurationsOf(storage: StorageAdapter, tenantId: string, limit = 1_000): Promise<ConfigurationRecord[]> {
  const page = await tenantCollectionOf(storage, OID4VCI_CONFIGURATIONS, tenantId).find(undefined, { limit })
  return page.items
}

/**
 * A Credential Offer (helper "offer-token"). `id` is the keyed hash of the offer id wallets fetch it by
 * (`OneTimeStore.keyed('offer', tenantId, offerId)`): the database holds neither the offer id nor the pre-authorized
 * code (derived from the offer id under the same key) nor the PIN (a keyed hash).
 */
export interface OfferRecord extends StoredRecord {
  tenantId: string
  /** The issuer slug. */
  issuer: string
  /** The configurations offered, as wallets see their ids. */
  configurationIds: string[]
  /** The claims of each configuration's credential. */
  claims: Record<string, Record<string, unknown>>
  /** The PIN asked for: its keyed hash and how the wallet asks for it. */
  txCode?: { hash: string; length: number; inputMode: 'numeric' | 'text'; description?: string }
  /** UNIX ms. */
  expiresAt: number
  /** Who made it: the DIDs proved and the API key (never the key). */
  createdBy: { dids: string[]; apiKeyId?: string }
  /** The grants offered; absent (older records): the pre-authorized code only. */
  grants?: OfferGrant[]
  /** Redemptions claimed (either grant, or the burn): counted atomically, so the first one alone redeems the offer. */
  redemptions?: number
  /** Wrong PINs given, counted atomically: at the module's `txCodeAttempts` the offer is burned. */
  txCodeFailures?: number
  /** `offered`; `redeemed` once a wallet got its token (or bound an authorization request to it); `burned` after too many wrong PINs. */
  state: 'offered' | 'redeemed' | 'burned'
  createdAt: number
  updatedAt: number
}

export const OID4VCI_OFFERS = declareCollection<OfferRecord>({
  name: 'oid4vci_offers',
  fields: ['tenantId', 'issuer', 'state', 'expiresAt', 'createdAt', 'updatedAt'],
  indexes: [{ fields: ['tenantId', 'createdAt'] }, { fields: ['expiresAt'] }],
})

// ---- helper "deferred"
/**
 * A deferred issuance (OID4VCI 1.0 §9). `id` is the keyed hash of the wallet's `transaction_id`
 * (`OneTimeStore.keyed('oid4vci-deferred', tenantId, transactionId)`): the database never holds the transaction id.
 * `reference` is the issuing backend's handle (`getDeferredCredentials`, `completeDeferredCredential`), useless at
 * the wallet-facing endpoint. Holder keys are public keys; `binding` is a keyed hash of the grant the access token
 * carried (issuer, offer, subject, DPoP key): a later token must carry the same grant.
 */
export interface DeferredRecord extends StoredRecord {
  tenantId: string
  /** The issuer slug. */
  issuer: string
  reference: string
  configurationId: string
  /** The public keys the key proofs proved, one credential each. */
  holderKeys: Array<{ jwk: Record<string, unknown>; jkt: string; did?: string; kid?: string }>
  /** The claims of the grant. */
  claims: Record<string, unknown>
  offerId?: string
  subject?: string
  binding: string
  state: 'pending' | 'ready' | 'issued' | 'refused'
  /** The credential records issued on completion. */
  credentialIds?: string[]
  /** Why the backend refused (not told to the wallet). */
  reason?: string
  /** Claims of the completion (1) and fetches of the credentials (1): counted atomically, so each happens once. */
  completions?: number
  fetches?: number
  expiresAt: number
  createdAt: number
  updatedAt: number
}

export const OID4VCI_DEFERRED = declareCollection<DeferredRecord>({
  name: 'oid4vci_deferred',
  fields: ['tenantId', 'issuer', 'reference', 'configurationId', 'state', 'expiresAt', 'createdAt', 'updatedAt'],
  indexes: [{ fields: ['tenantId', 'reference'], unique: true }, { fields: ['tenantId', 'state', 'createdAt'] }, { fields: ['expiresAt'] }],
})
