/**
 * Credential configurations of a tenant's OID4VCI Credential Issuer (create, replace, list, delete; docs/oid4vci.md).
 *
 * The issuing DID must be a wallet of the caller's tenant whose control the caller proves (`x-did-auth`), checked as
 * Sign Claims checks its `iss` (`assertControlsWallet`), and its key must sign the format. Replacing or deleting a
 * configuration also takes control of the DID it signs with now. A tenant's first configuration claims its issuer slug
 * (unique across tenants; one per tenant, kept when its configurations are deleted). Nothing is written before every
 * check passed; every change is audited in its transaction.
 */
import { randomUUID } from 'node:crypto'
import type { Caller } from '../auth/context.js'
import type { AuditActor } from '../audit/trail.js'
import { conflict, invalid, notFound } from '../errors.js'
import { assertControlsWallet } from '../wallets/access.js'
import { credentialFormatNamed, type FormatName } from '../credentials/formats/index.js'
import type { CredentialsContext } from '../credentials/context.js'
import { ALGORITHMS_OF, type KeyType } from '../keys/key-types.js'
import { suiteToSign, type SuiteRequest } from '../proofs/suites/index.js'
import { principalOf } from '../did/methods/ethr/index.js'
import { uniqueOr } from '../operations/unique.js'
import { signingWallet } from '../wallets/config.js'
import { WALLETS } from '../wallets/records.js'
import { collectionOf, tenantCollections } from '../storage/declaration.js'
import { credentialIssuerOf, requirePublicUrl } from './issuer-url.js'
import {
  configurationOf,
  configurationsOf,
  issuerBySlug,
  issuerIdOf,
  issuerOfTenant,
  OID4VCI_CONFIGURATIONS,
  OID4VCI_ISSUERS,
  type ConfigurationRecord,
} from './records.js'
import {
  MAX_CONFIGURATIONS,
  PROOF_ALGS,
  SD_JWT_FORMATS,
  type CreateCredentialConfigurationInput,
  type CredentialConfiguration,
  type DeleteCredentialConfigurationInput,
  type Oid4vciFormat,
  type UpdateCredentialConfigurationInput,
} from './schemas.js'

/** What the configuration operations use of the service. */
export type ConfigurationsContext = Pick<CredentialsContext, 'audit' | 'callers' | 'now' | 'registries' | 'signers' | 'storage'> & {
  config: { publicUrl?: string }
}

/** The didvault format that signs an OID4VCI format. */
export const FORMAT_OF: Readonly<Record<Oid4vciFormat, FormatName>> = {
  'dc+sd-jwt': 'SD-JWT',
  'vc+sd-jwt': 'SD-JWT',
  jwt_vc_json: 'JWT',
  'jwt_vc_json-ld': 'JWT',
  ldp_vc: 'JSON-LD',
  'vc+jwt': 'VC-JOSE',
}

/** A configuration's fields as given (`id` apart). */
type Fields = Omit<CreateCredentialConfigurationInput, 'id'>

export async function createCredentialConfiguration(
  ctx: ConfigurationsContext,
  caller: Caller,
  input: CreateCredentialConfigurationInput,
): Promise<{ configuration: CredentialConfiguration }> {
  const publicUrl = requirePublicUrl(ctx.config.publicUrl)
  const { id, ...fields } = input
  const keyType = await issuingKeyOf(ctx, caller.tenantId, fields, caller)
  const now = ctx.now()
  const record = recordOf(caller.tenantId, id, fields, keyType, { createdAt: now, updatedAt: now, id: randomUUID() })
  await write(ctx, caller.tenantId, caller, record, 'create')
  return { configuration: viewOf(publicUrl, record) }
}

export async function updateCredentialConfiguration(
  ctx: ConfigurationsContext,
  caller: Caller,
  input: UpdateCredentialConfigurationInput,
): Promise<{ configuration: CredentialConfiguration }> {
  const publicUrl = requirePublicUrl(ctx.config.publicUrl)
  const { configurationId, ...fields } = input
  const existing = await configurationOf(ctx.storage, caller.tenantId, configurationId)
  if (!existing) throw notFound(`configurationId: no credential configuration ${configurationId} in this tenant`)
  const keyType = await issuingKeyOf(ctx, caller.tenantId, fields, caller)
  if (principalOf(existing.issuingDid) !== principalOf(fields.issuingDid)) await assertControlsIssuingDid(ctx, caller, existing.issuingDid)
  const record = recordOf(caller.tenantId, configurationId, fields, keyType, {
    id: existing.id,
    createdAt: existing.createdAt,
    updatedAt: Math.max(ctx.now(), existing.updatedAt + 1),
  })
  await write(ctx, caller.tenantId, caller, record, 'update')
  return { configuration: viewOf(publicUrl, record) }
}

export async function getCredentialConfigurations(
  ctx: ConfigurationsContext,
  caller: Caller,
): Promise<{ issuer?: string; configurations: CredentialConfiguration[] }> {
  const publicUrl = requirePublicUrl(ctx.config.publicUrl)
  const issuer = await issuerOfTenant(ctx.storage, caller.tenantId)
  const records = await configurationsOf(ctx.storage, caller.tenantId)
  return { ...(issuer && { issuer: issuer.slug }), configurations: records.map((r) => viewOf(publicUrl, r)) }
}

export async function deleteCredentialConfiguration(
  ctx: ConfigurationsContext,
  caller: Caller,
  input: DeleteCredentialConfigurationInput,
): Promise<{ deleted: string }> {
  requirePublicUrl(ctx.config.publicUrl)
  const existing = await configurationOf(ctx.storage, caller.tenantId, input.configurationId)
  if (!existing) throw notFound(`configurationId: no credential configuration ${input.configurationId} in this tenant`)
  await assertControlsIssuingDid(ctx, caller, existing.issuingDid)
  await ctx.storage.transaction(async (tx) => {
    await collectionOf(tx, OID4VCI_CONFIGURATIONS).delete(existing.id)
    await ctx.audit.append(tx, caller, [act('delete', existing.configurationId)])
  })
  return { deleted: existing.configurationId }
}

/** A configuration the operator declares in the config file (`oid4vci.issuers[].configurations[]`), applied at start. */
export interface DeclaredConfiguration extends Omit<Fields, 'issuer'> {
  id: string
}

/**
 * Creates or replaces the configurations the config file declares for a tenant (`serve` at start), as the operator:
 * no DID control is asked (the operator holds the service), but the issuing DID must be a wallet of the tenant whose key
 * signs the format, and the slug must be the tenant's (or free). Audited with actor `{ system: "config" }`.
 * @throws {IdentityError} 422 naming the configuration's field, nothing written for it
 */
export async function applyDeclaredConfigurations(
  ctx: ConfigurationsContext,
  tenantId: string,
  slug: string,
  configurations: readonly DeclaredConfiguration[],
): Promise<{ created: string[]; updated: string[] }> {
  requirePublicUrl(ctx.config.publicUrl)
  const actor: AuditActor = { tenantId, dids: [], system: 'config' }
  const out = { created: [] as string[], updated: [] as string[] }
  for (const { id, ...declared } of configurations) {
    const fields = { ...declared, issuer: slug }
    const keyType = await issuingKeyOf(ctx, tenantId, fields)
    const existing = await configurationOf(ctx.storage, tenantId, id)
    const now = ctx.now()
    const record = recordOf(tenantId, id, fields, keyType, {
      id: existing?.id ?? randomUUID(),
      createdAt: existing?.createdAt ?? now,
      updatedAt: existing ? Math.max(now, existing.updatedAt + 1) : now,
    })
    await write(ctx, tenantId, actor, record, existing ? 'update' : 'create')
    out[existing ? 'updated' : 'created'].push(id)
  }
  return out
}

/**
 * The key type of the issuing DID's current owner key, once the fields fit each other and the key, the DID is a wallet of
 * the tenant (422 NOT_FOUND) owned by a key the service holds, not an MPC key (whose quorum no wallet's request can
 * gather; 422), and — with a `caller` — the caller controls that wallet (403; `assertControlsWallet`, as Sign Claims
 * checks its `iss`). No signer is taken: nothing is signed here. Without a caller: the operator's declarations.
 */
async function issuingKeyOf(ctx: ConfigurationsContext, tenantId: string, fields: Fields, caller?: Caller): Promise<KeyType> {
  const format = checkFields(fields)
  const { wallets } = tenantCollections(ctx.storage, tenantId, { wallets: WALLETS })
  const wallet = await wallets.findOne({ field: 'did', op: 'eq', value: principalOf(fields.issuingDid) })
  if (!wallet) throw notFound(`issuingDid: no wallet of this tenant has DID ${fields.issuingDid}`)
  const proved = caller?.owners !== undefined && Object.hasOwn(caller.owners, wallet.did) ? caller.owners[wallet.did] : undefined
  const owner = await signingWallet(ctx, wallet, proved)
  const keyType = owner.keyType ?? 'secp256k1'
  credentialFormatNamed(format).assertSigns(keyType, suiteRequestOf(fields))
  checkSigningAlg(fields, keyType)
  if (owner.keyManagement === 'MPC')
    throw invalid(`issuingDid: ${fields.issuingDid} is owned by an MPC key, whose quorum no wallet's request can gather`)
  if (caller) await assertControlsWallet(ctx, caller, wallet)
  return keyType
}

/** Control of a configuration's current issuing DID (403 otherwise), for replacing or deleting it. */
async function assertControlsIssuingDid(ctx: ConfigurationsContext, caller: Caller, issuingDid: string): Promise<void> {
  const { wallets } = tenantCollections(ctx.storage, caller.tenantId, { wallets: WALLETS })
  const wallet = await wallets.findOne({ field: 'did', op: 'eq', value: principalOf(issuingDid) })
  // Its wallet deleted since: whoever the tenant trusts with the configurations may replace or delete it.
  if (wallet) await assertControlsWallet(ctx, caller, wallet)
}

/** The didvault format of the fields, once `vct`/`types`/`context` fit the format. */
function checkFields(fields: Fields): FormatName {
  const sdJwt = SD_JWT_FORMATS.includes(fields.format)
  if (sdJwt && fields.vct === undefined) throw invalid(`vct: required for format ${fields.format}`)
  if (sdJwt && fields.types !== undefined) throw invalid(`types: not for format ${fields.format} (it takes vct)`)
  if (!sdJwt && fields.types === undefined) throw invalid(`types: required for format ${fields.format}`)
  if (!sdJwt && fields.vct !== undefined) throw invalid(`vct: only for SD-JWT VC formats (dc+sd-jwt), not ${fields.format}`)
  if (fields.context !== undefined && fields.format !== 'ldp_vc' && fields.format !== 'jwt_vc_json-ld' && fields.format !== 'vc+jwt')
    throw invalid(`context: not for format ${fields.format}`)
  return FORMAT_OF[fields.format]
}

/** For `ldp_vc`, the suite `credentialSigningAlg` names: a cryptosuite (`ecdsa-rdfc-2019`) or a proof type. */
function suiteRequestOf(fields: Fields): SuiteRequest | undefined {
  if (fields.format !== 'ldp_vc' || fields.credentialSigningAlg === undefined) return undefined
  const alg = fields.credentialSigningAlg
  return /^[a-z0-9]+(-[a-z0-9]+)+$/.test(alg) ? { cryptosuite: alg } : { proofType: alg }
}

/** The JOSE algorithms a key type signs credentials with (ES256K-R is a DID-auth form, not a credential's). */
const josesOf = (keyType: KeyType) => ALGORITHMS_OF[keyType].filter((alg) => alg !== 'ES256K-R')

function checkSigningAlg(fields: Fields, keyType: KeyType): void {
  if (fields.format === 'ldp_vc' || fields.credentialSigningAlg === undefined) return
  const algs = josesOf(keyType)
  if (!(algs as readonly string[]).includes(fields.credentialSigningAlg))
    throw invalid(`credentialSigningAlg: a ${keyType} key of ${fields.issuingDid} signs with ${algs.join(' or ')}`)
}

/** The algorithm (or Data Integrity suite) the credentials are signed with. */
function signingAlgOf(fields: Fields, keyType: KeyType): string {
  if (fields.format !== 'ldp_vc') return fields.credentialSigningAlg ?? josesOf(keyType)[0]
  const suite = suiteToSign(keyType, suiteRequestOf(fields))
  return suite.cryptosuite ?? suite.type
}

function recordOf(
  tenantId: string,
  configurationId: string,
  fields: Fields,
  keyType: KeyType,
  times: { id: string; createdAt: number; updatedAt: number },
): ConfigurationRecord {
  const types = fields.types && (fields.types.includes('VerifiableCredential') ? fields.types : ['VerifiableCredential', ...fields.types])
  return {
    id: times.id,
    tenantId,
    configurationId,
    issuer: fields.issuer,
    format: fields.format,
    ...(fields.vct !== undefined && { vct: fields.vct }),
    ...(types !== undefined && { types }),
    ...(fields.context !== undefined && { context: fields.context }),
    issuingDid: fields.issuingDid,
    keyType,
    proofAlgs: [...(fields.proofTypes?.jwt.algs ?? PROOF_ALGS)],
    proofTypesGiven: fields.proofTypes !== undefined,
    signingAlg: signingAlgOf(fields, keyType),
    signingAlgGiven: fields.credentialSigningAlg !== undefined,
    ...(fields.display !== undefined && { display: fields.display }),
    ...(fields.claims !== undefined && { claims: fields.claims }),
    ...(fields.batchSize !== undefined && { batchSize: fields.batchSize }),
    ...(fields.deferred !== undefined && { deferred: fields.deferred }),
    ...(fields.dpopRequired !== undefined && { dpopRequired: fields.dpopRequired }),
    ...(fields.status !== undefined && { status: fields.status }),
    ...(fields.acceptUntypedProofs !== undefined && { acceptUntypedProofs: fields.acceptUntypedProofs }),
    ...(fields.expiresInSeconds !== undefined && { expiresInSeconds: fields.expiresInSeconds }),
    createdAt: times.createdAt,
    updatedAt: times.updatedAt,
  }
}

/** A record as the operations answer it. */
function viewOf(publicUrl: string, r: ConfigurationRecord): CredentialConfiguration {
  return {
    id: r.configurationId,
    issuer: r.issuer,
    format: r.format,
    ...(r.vct !== undefined && { vct: r.vct }),
    ...(r.types !== undefined && { types: r.types }),
    ...(r.context !== undefined && { context: r.context }),
    issuingDid: r.issuingDid,
    ...(r.proofTypesGiven && { proofTypes: { jwt: { algs: r.proofAlgs as Array<(typeof PROOF_ALGS)[number]> } } }),
    credentialSigningAlg: r.signingAlg,
    ...(r.display !== undefined && { display: r.display }),
    ...(r.claims !== undefined && { claims: r.claims }),
    batchSize: r.batchSize ?? 1,
    ...(r.deferred !== undefined && { deferred: r.deferred }),
    ...(r.dpopRequired !== undefined && { dpopRequired: r.dpopRequired }),
    ...(r.status !== undefined && { status: r.status }),
    ...(r.acceptUntypedProofs !== undefined && { acceptUntypedProofs: r.acceptUntypedProofs }),
    ...(r.expiresInSeconds !== undefined && { expiresInSeconds: r.expiresInSeconds }),
    credentialIssuer: credentialIssuerOf(publicUrl, r.issuer),
    createdAt: new Date(r.createdAt).toISOString(),
    updatedAt: new Date(r.updatedAt).toISOString(),
  }
}

/** The optional fields of a record, each `undefined`: what a replacement without them removes. */
const CLEARED: Partial<ConfigurationRecord> = Object.fromEntries(
  [
    'vct',
    'types',
    'context',
    'display',
    'claims',
    'batchSize',
    'deferred',
    'dpopRequired',
    'status',
    'acceptUntypedProofs',
    'expiresInSeconds',
  ].map((k) => [k, undefined]),
)

const act = (kind: 'create' | 'update' | 'delete', configurationId: string) => ({
  action: `credentialConfiguration.${kind}` as const,
  target: { type: 'credentialConfiguration', id: configurationId },
})

/**
 * Writes the configuration in one transaction with its audit record, claiming the tenant's slug when it has none:
 * a slug another tenant holds, or another slug than the tenant's, is 422 CONFLICT; so is a configuration id taken
 * (create) or the tenant's limit reached.
 */
async function write(
  { storage, audit }: Pick<ConfigurationsContext, 'audit' | 'storage'>,
  tenantId: string,
  actor: AuditActor | Caller,
  record: ConfigurationRecord,
  kind: 'create' | 'update',
): Promise<void> {
  const mine = await issuerOfTenant(storage, tenantId)
  if (mine && mine.slug !== record.issuer)
    throw conflict(`issuer: this tenant's Credential Issuer is ${mine.slug}; a tenant has one issuer slug`)
  if (!mine) {
    const holder = await issuerBySlug(storage, record.issuer)
    if (holder) throw conflict(`issuer: the slug ${record.issuer} is taken`)
  }
  if (kind === 'create') {
    const { configurations } = tenantCollections(storage, tenantId, { configurations: OID4VCI_CONFIGURATIONS })
    if ((await configurations.count({ and: [] })) >= MAX_CONFIGURATIONS)
      throw invalid(`id: a tenant has at most ${MAX_CONFIGURATIONS} credential configurations`)
  }
  await uniqueOr(
    () =>
      storage.transaction(async (tx) => {
        if (!mine)
          await collectionOf(tx, OID4VCI_ISSUERS).insert({
            id: issuerIdOf(tenantId),
            tenantId,
            slug: record.issuer,
            createdAt: record.createdAt,
          })
        const configurations = collectionOf(tx, OID4VCI_CONFIGURATIONS)
        if (kind === 'create') await configurations.insert(record)
        // A replacement: optional fields it lacks are removed (`undefined` removes a field).
        else await configurations.update(record.id, { ...CLEARED, ...record })
        await audit.append(tx, actor, [act(kind, record.configurationId)])
      }),
    (fields) =>
      fields.includes('configurationId')
        ? `id: a credential configuration ${record.configurationId} exists in this tenant`
        : fields.includes('slug')
          ? `issuer: the slug ${record.issuer} is taken`
          : `issuer: this tenant claimed an issuer slug meanwhile; list the configurations to see it`,
  )
}
