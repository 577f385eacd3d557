/**
 * Issuing the credentials of one OID4VCI credential request: one per holder key the key proofs proved, signed by the
 * configuration's issuing DID through the credential-format registry (the signing code `signClaims` uses), each with
 * its status entry when the configuration asks, stored as a credential record of the tenant (`storedBy` the issuing
 * DID) and audited `credential.issue` — the issuing DID's act, naming the offer and the holder key's thumbprint — in
 * one transaction. Nothing is written before every credential is signed; status entries allocated for a request that
 * fails after all are given back.
 */
import { randomUUID } from 'node:crypto'
import type { Caller } from '../auth/context.js'
import type { AuditAct } from '../audit/trail.js'
import { sha256 } from '../credentials/content-hash.js'
import type { CredentialsContext, StatusAllocation } from '../credentials/context.js'
import { credentialFormatNamed, type CredentialContent, type CredentialFormat, type IssueOptions } from '../credentials/formats/index.js'
import { jsonLdHasher } from '../credentials/jsonld-work.js'
import { CREDENTIALS, type CredentialRecord } from '../credentials/records.js'
import { sealDisclosures } from '../credentials/stored.js'
import { IdentityError } from '../errors.js'
import { normalizeDid, principalOf } from '../did/methods/ethr/index.js'
import { didJwk } from '../did/methods/jwk/index.js'
import type { PublicJwk } from '../keys/key-types.js'
import { tenantCollections } from '../storage/declaration.js'
import type { CollectionWrite, StorageAdapter } from '../storage/port.js'
import { whileWriting } from '../storage/while-writing.js'
import { signingWallet } from '../wallets/config.js'
import { WALLETS } from '../wallets/records.js'
import { FORMAT_OF } from './configurations.js'
import { OAuthError } from './oauth-error.js'
import type { HolderKey } from './protocol/index.js'
import type { ClaimEntry, ConfigurationRecord } from './records.js'
import { SD_JWT_FORMATS } from './schemas.js'

/** What issuing uses of the service. */
export type IssuanceContext = Pick<
  CredentialsContext,
  'audit' | 'config' | 'custody' | 'jsonld' | 'now' | 'registries' | 'resolvers' | 'signers' | 'statuses' | 'storage'
>

/** What one credential request issues. */
export interface IssuanceRequest {
  configuration: ConfigurationRecord
  /** The claims of the credential (the access token's grant). */
  claims: Record<string, unknown>
  /** One credential per key, in order. */
  keys: readonly HolderKey[]
  /** The offer the access token came from (audit). */
  offerId?: string
  /**
   * Records of the caller's inserted with the credentials, all or none (the used c_nonces: a unique conflict is thrown
   * as the storage's UniqueConstraintError and nothing is written). Called once every credential is signed, just before
   * the write; it may throw to refuse (nothing written).
   */
  alsoInsert?: () => CollectionWrite[]
  /**
   * Writes of the caller's, in a transaction with the credentials (a deferred issuance marked ready): with it the
   * issuance runs in a transaction (BEGIN … COMMIT) instead of one `insertAll` statement.
   */
  within?: (tx: StorageAdapter, recordIds: string[]) => Promise<void>
  /**
   * Work for the answer, done while the write is on its way to the storage rather than after it (the credential
   * response): called with what is being stored once the `insertAll` statement was sent, before it is confirmed. Its
   * result stands only when the write succeeds, which `issueCredentials` resolving says. Not with `within`.
   */
  meanwhile?: (issued: readonly IssuedRecord[]) => void
}

/** An issued credential: its encoded form (what the wallet receives) and its credential record's id. */
export interface IssuedRecord {
  credential: string | Record<string, unknown>
  recordId: string
}

/** The W3C credential id of an OID4VCI credential: a fresh URN (no claim DID is made for a wallet's credential). */
const credentialIdOf = () => `urn:uuid:${randomUUID()}`

/**
 * Signs, stores and audits the credentials of `request`.
 * @throws {OAuthError} `invalid_credential_request` when the configuration's issuing DID is no longer a wallet the
 * service signs with, or the claims do not fit the format (nothing written)
 */
export async function issueCredentials(ctx: IssuanceContext, caller: Caller, request: IssuanceRequest): Promise<IssuedRecord[]> {
  const { configuration, keys } = request
  const { wallets } = tenantCollections(ctx.storage, caller.tenantId, { wallets: WALLETS })
  const wallet = await wallets.findOne({ field: 'did', op: 'eq', value: principalOf(configuration.issuingDid) })
  if (!wallet) throw unavailable('its issuing DID is no longer a wallet of the issuer')
  const owner = await signingWallet(ctx, wallet)
  if (owner.keyManagement === 'MPC') throw unavailable('its issuing DID is owned by an MPC key')
  const signer = ctx.signers.signerFor(owner)
  const format = credentialFormatNamed(FORMAT_OF[configuration.format])
  const issuer = normalizeDid(configuration.issuingDid)
  const now = ctx.now()
  const options = issueOptionsOf(ctx, caller, configuration)

  const allocations: StatusAllocation[] = []
  try {
    const signed: Array<{ encoded: string | Record<string, unknown>; key: HolderKey }> = []
    for (const key of keys) {
      const content = await contentOf(format, configuration, request.claims, key, issuer, now, ctx.config.limits)
      if (configuration.status === true) {
        const allocation = await ctx.statuses.allocate(caller.tenantId, {
          issuer,
          format: format.name,
          purposes: ['revocation'],
          credentialId: content.id,
        })
        allocations.push(allocation)
        content.status = allocation.entries
      }
      signed.push({ encoded: await format.issue(content, signer, options), key })
    }
    return await store(ctx, caller, { ...request, format, wallet: wallet.did, now }, signed)
  } catch (err) {
    for (const allocation of allocations) await allocation.release()
    throw err instanceof OAuthError || !isRefusal(err) ? err : new OAuthError('invalid_credential_request', refusalText(err))
  }
}

/** The content of the credential bound to `key`, checked against the format's bounds. */
async function contentOf(
  format: CredentialFormat,
  configuration: ConfigurationRecord,
  claims: Record<string, unknown>,
  key: HolderKey,
  issuer: string,
  now: number,
  limits: IssuanceContext['config']['limits'],
): Promise<CredentialContent> {
  const expiresAt = configuration.expiresInSeconds === undefined ? undefined : now + configuration.expiresInSeconds * 1000
  const withStatus = configuration.status === true
  const field = 'credential'
  if (SD_JWT_FORMATS.includes(configuration.format)) {
    const content: CredentialContent = {
      id: '',
      issuer,
      claims,
      contexts: format.contextsOf({ claims, named: [], withStatus }, field),
      types: [],
      issuedAt: now,
      ...(expiresAt !== undefined && { expiresAt }),
      sdJwt: {
        vct: configuration.vct!,
        holderJwk: key.jwk as unknown as PublicJwk,
        ...(configuration.claims !== undefined && { disclose: disclosedPointers(configuration.claims, claims) }),
      },
    }
    format.checkContent(content, field, limits)
    return content
  }
  const content: CredentialContent = {
    id: credentialIdOf(),
    issuer,
    subject: await holderDidOf(key),
    claims,
    contexts: format.contextsOf({ claims, named: configuration.context ?? [], withStatus }, field),
    types: (configuration.types ?? []).filter((type) => type !== 'VerifiableCredential'),
    issuedAt: now,
    ...(expiresAt !== undefined && { expiresAt }),
  }
  format.checkContent(content, field, limits)
  return content
}

/** The holder DID of a W3C credential: the key proof's DID (`kid`), else the did:jwk of its key. */
async function holderDidOf(key: HolderKey): Promise<string> {
  if (key.did !== undefined) return key.did
  return (await didJwk.create({ publicJwk: key.jwk as unknown as PublicJwk })).did
}

/**
 * The JSON pointers of the claims the configuration's claims metadata names that the credential has (a path stops at
 * its first `null`, "every element": that array is disclosed whole).
 */
function disclosedPointers(described: readonly ClaimEntry[], claims: Record<string, unknown>): string[] {
  const pointers = new Set<string>()
  for (const { path } of described) {
    const segments: Array<string | number> = []
    let value: unknown = claims
    for (const segment of path) {
      if (segment === null || typeof value !== 'object' || value === null) break
      if (!Object.hasOwn(value, String(segment))) {
        value = undefined
        break
      }
      value = (value as Record<string, unknown>)[String(segment)]
      segments.push(segment)
    }
    if (value !== undefined && segments.length > 0)
      pointers.add(segments.map((s) => `/${String(s).replaceAll('~', '~0').replaceAll('/', '~1')}`).join(''))
  }
  return [...pointers]
}

/** How the configuration's credentials are signed: its Data Integrity suite when it named one, the service's bounds. */
function issueOptionsOf(ctx: IssuanceContext, caller: Caller, configuration: ConfigurationRecord): IssueOptions {
  const suite =
    configuration.format === 'ldp_vc' && configuration.signingAlgGiven
      ? /^[a-z0-9]+(-[a-z0-9]+)+$/.test(configuration.signingAlg)
        ? { cryptosuite: configuration.signingAlg }
        : { proofType: configuration.signingAlg as IssueOptions['proofType'] }
      : {}
  return {
    ...suite,
    hasher: jsonLdHasher(ctx, caller),
    undefinedTerms: ctx.config.undefinedTerms,
    // The issuer's key is named as the service's own resolver lists it (did:web documents).
    resolver: ctx.resolvers.get().resolver,
  }
}

/**
 * Stores the signed credentials as records of the tenant, with their audit records and the caller's records: one
 * `insertAll` (`meanwhile` runs while it travels) — or, with `within`, one transaction.
 */
async function store(
  ctx: IssuanceContext,
  caller: Caller,
  by: Pick<IssuanceRequest, 'offerId' | 'alsoInsert' | 'within' | 'meanwhile'> & {
    format: CredentialFormat
    wallet: string
    now: number
  },
  signed: ReadonlyArray<{ encoded: string | Record<string, unknown>; key: HolderKey }>,
): Promise<IssuedRecord[]> {
  const storedBy = [by.wallet]
  const storerKey = sha256(JSON.stringify(storedBy))
  const records: CredentialRecord[] = []
  const acts: AuditAct[] = []
  for (const { encoded, key } of signed) {
    const { disclosures, ...parsed } = await by.format.parse(encoded, ctx.config.limits, { issued: true })
    const id = randomUUID()
    records.push({
      id,
      tenantId: caller.tenantId,
      ...parsed,
      ...sealDisclosures(ctx.custody, { tenantId: caller.tenantId, id }, disclosures),
      storedBy,
      storerKey,
      isPublicAccess: false,
      roles: [],
      createdAt: by.now,
    })
    acts.push({
      action: 'credential.issue',
      target: { type: 'credential', id, holderKey: key.jkt, ...(by.offerId !== undefined && { offer: by.offerId }) },
    })
  }
  // The issuance is the issuing DID's act (the wallet's request only asked for it).
  const actor = { ...caller, dids: [by.wallet] }
  const writes = (): CollectionWrite[] => {
    const also = by.alsoInsert?.() ?? []
    return [{ collection: CREDENTIALS.name, records }, ctx.audit.appends(actor, acts), ...also]
  }
  const issued = signed.map(({ encoded }, i) => ({ credential: encoded, recordId: records[i].id }))
  const { within, meanwhile } = by
  if (within !== undefined)
    await ctx.storage.transaction(async (tx) => {
      await tx.insertAll(writes())
      await within(
        tx,
        records.map((r) => r.id),
      )
    })
  else if (meanwhile === undefined) await ctx.storage.insertAll(writes())
  else await whileWriting(ctx.storage.insertAll(writes()), () => meanwhile(issued))
  return issued
}

const unavailable = (why: string) => new OAuthError('invalid_credential_request', `the credential cannot be issued now: ${why}`)

/** A refusal of the signing code (a 4xx IdentityError: claims that do not fit the format). */
function isRefusal(err: unknown): err is IdentityError {
  return err instanceof IdentityError && err.statusCode >= 400 && err.statusCode < 500
}

function refusalText(err: IdentityError): string {
  return `the granted claims do not fit the credential: ${err.errorMessage}`
}
