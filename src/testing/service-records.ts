/**
 * A representative record of every collection the service declares, shaped as the service writes
 * it (typed by the domain's record type): what the conformance suite stores in the service's real
 * collections. Sealed secrets are placeholders (storage never opens them).
 */
import type { ApiKeyRecord } from '../auth/records.js'
import {
  AUDIT_APPENDS,
  AUDIT_HEADS,
  AUDIT_RECORDS,
  type AuditAppendRecord,
  type AuditHeadRecord,
  type AuditRecord,
} from '../audit/records.js'
import { API_KEYS } from '../auth/records.js'
import { CREDENTIALS, type CredentialRecord } from '../credentials/records.js'
import { META, type MetaRecord } from '../custody/records.js'
import { DID_EVENTS, DID_HEADS, type DidEventRecord, type DidHeadRecord } from '../did/methods/ethr/index.js'
import { DID_WEB_CHANGES, type DidWebChangeRecord } from '../did/methods/index.js'
import { MPC_KEYS, MPC_SHARES, type MpcKeyRecord, type MpcShareRecord } from '../mpc/records.js'
import {
  OID4VCI_CONFIGURATIONS,
  OID4VCI_DEFERRED,
  OID4VCI_ISSUERS,
  OID4VCI_OFFERS,
  type ConfigurationRecord,
  type DeferredRecord,
  type IssuerRecord,
  type OfferRecord,
} from '../oid4vci/records.js'
import { OID4VP_REQUESTS, type PresentationRequestRecord } from '../oid4vp/records.js'
import { ROLE_ASSIGNMENTS, ROLES, type RoleAssignmentRecord, type RoleRecord } from '../roles/records.js'
import type { CollectionDeclaration, ScalarField } from '../storage/declaration.js'
import type { CollectionSpec, StoredRecord } from '../storage/port.js'
import {
  STATUS_CHANGES,
  STATUS_ENTRIES,
  STATUS_LISTS,
  type StatusChangeRecord,
  type StatusEntryRecord,
  type StatusListRecord,
} from '../status/records.js'
import { VAULTS, type VaultRecord } from '../vaults/records.js'
import { DELEGATE_KEYS, WALLETS, type DelegateKeyRecord, type WalletRecord } from '../wallets/records.js'
import { SEALED_KEYS, sealedKeyId, type SealedKeyRecord } from '../keys/backends/sealed/index.js'
import { ONE_TIME, type OneTimeRecord } from '../one-time/records.js'

/** How to make records of one declared collection. */
export interface SampleCollection {
  declaration: CollectionSpec
  /** The field a test's records share and no other test's do: `tenantId`, or `network` in the public DID registry. */
  scopeField: string
  /**
   * The `n`th record of `scope`: records of one scope differ in every unique field, their
   * `createdAt` grows with `n`, and the last element of each array field names `n`.
   */
  record(scope: string, n: number): StoredRecord
}

/** A {@link SampleCollection} whose field names and records the compiler checks against the record type `T`. */
function sample<T extends StoredRecord>(collection: {
  declaration: CollectionDeclaration<T>
  scopeField: ScalarField<T>
  record(scope: string, n: number): T
}): SampleCollection {
  return collection
}

const createdAt = (n: number): number => Date.UTC(2025, 0, 1) + n * 1000
const sealed = (what: string): string => `sealed-placeholder:${what}`
/** A 40-hex-digit address unique to (scope, n). */
const address = (scope: string, n: number): string => {
  let hash = 0
  for (const char of `${scope}/${n}`) hash = (hash * 31 + char.charCodeAt(0)) >>> 0
  return `0x${hash.toString(16).padStart(8, '0')}${n.toString(16).padStart(32, '0')}`
}
const did = (scope: string, n: number): string => `did:ethr:dev:${address(scope, n)}`

/** Every collection of the service, in the order of `COLLECTIONS`. */
export const SAMPLE_COLLECTIONS: readonly SampleCollection[] = [
  sample<MetaRecord>({
    declaration: META,
    scopeField: 'tenantId',
    record: (scope, n) => ({ id: `${scope}-setting-${n}`, tenantId: scope, createdAt: createdAt(n), check: sealed('check') }),
  }),
  sample<ApiKeyRecord>({
    declaration: API_KEYS,
    scopeField: 'tenantId',
    record: (scope, n) => ({
      id: `${scope}-key-${n}`,
      tenantId: scope,
      hash: `${scope}-hash-${n}`,
      scheme: 'hmac-sha256',
      label: `key ${n}`,
      createdAt: createdAt(n),
      lastUsedAt: createdAt(n) + 60_000,
    }),
  }),
  sample<SealedKeyRecord>({
    declaration: SEALED_KEYS,
    scopeField: 'tenantId',
    record: (scope, n) => {
      const thumbprint = `thumbprint-${n}`.padEnd(43, 'A')
      return {
        id: sealedKeyId(scope, thumbprint),
        tenantId: scope,
        thumbprint,
        type: 'P-256',
        publicJwk: { kty: 'EC', crv: 'P-256', x: 'x'.repeat(43), y: `y-${n}`.padEnd(43, 'y') },
        privateKey: sealed('privateKey'),
        createdAt: createdAt(n),
      }
    },
  }),
  sample<VaultRecord>({
    declaration: VAULTS,
    scopeField: 'tenantId',
    record: (scope, n) => ({
      id: `${scope}-vault-${n}`,
      tenantId: scope,
      name: `vault ${n}`,
      description: '',
      parentID: `${scope}-vault-0`,
      hierarchy: 'BIP44',
      keyManagement: 'ECS',
      status: 'INITIALIZED',
      rootDid: did(scope, n),
      mnemonic: sealed('mnemonic'),
      accountNode: sealed('accountNode'),
      ed25519AccountNode: sealed('ed25519AccountNode'),
      p256AccountNode: sealed('p256AccountNode'),
      hdIndex: n,
      createdAt: createdAt(n),
    }),
  }),
  sample<WalletRecord>({
    declaration: WALLETS,
    scopeField: 'tenantId',
    record: (scope, n) => ({
      id: `${scope}-wallet-${n}`,
      tenantId: scope,
      vaultId: `${scope}-vault-1`,
      isHDWallet: true,
      index: n,
      privateKey: sealed('privateKey'),
      publicKeyHex: `04${'ab'.repeat(64)}`,
      ethereumAddress: address(scope, n),
      did: did(scope, n),
      didMethod: 'ethr',
      alias: `wallet ${n}`,
      walletConfig: { txsInput: [{ service: { name: 'Hub', value: 'https://hub.example.com', validity: 86_400_000 } }] },
      created: new Date(createdAt(n)).toISOString(),
      createdAt: createdAt(n),
    }),
  }),
  sample<DelegateKeyRecord>({
    declaration: DELEGATE_KEYS,
    scopeField: 'tenantId',
    record: (scope, n) => ({
      id: `${scope}-delegate-${n}`,
      tenantId: scope,
      walletId: `${scope}-wallet-1`,
      did: did(scope, 1),
      delegateType: 'veriKey',
      ethereumAddress: address(`${scope}/delegate`, n),
      publicKeyHex: `04${'cd'.repeat(64)}`,
      privateKey: sealed('privateKey'),
      validTo: 2_000_000_000 + n,
      createdAt: createdAt(n),
    }),
  }),
  sample<RoleRecord>({
    declaration: ROLES,
    scopeField: 'tenantId',
    record: (scope, n) => ({
      id: `${scope}-role-${n}`,
      tenantId: scope,
      did: did(`${scope}/role`, n),
      walletId: `${scope}-role-wallet-${n}`,
      creator: did(scope, 1),
      permissions: ['Read', 'Write'],
      access: 'Write',
      description: `role ${n}`,
      createdAt: createdAt(n),
      updatedAt: createdAt(n),
    }),
  }),
  sample<RoleAssignmentRecord>({
    declaration: ROLE_ASSIGNMENTS,
    scopeField: 'tenantId',
    record: (scope, n) => ({
      id: `${scope}-assignment-${n}`,
      tenantId: scope,
      role: did(`${scope}/role`, 1),
      did: did(scope, n),
      roleCreator: did(scope, 1),
      governsCredentials: n % 2 === 0,
      createdAt: createdAt(n),
    }),
  }),
  sample<MpcKeyRecord>({
    declaration: MPC_KEYS,
    scopeField: 'tenantId',
    record: (scope, n) => ({
      id: `${scope}-mpc-vault-${n}`,
      tenantId: scope,
      hierarchy: 'BIP44',
      groups: [{ name: 'board', requiredApprovals: 2, members: [did(scope, 1), did(scope, 2), did(scope, 3)] }],
      publicKey: `02${'ef'.repeat(32)}`,
      chainCode: '01'.repeat(32),
      createdAt: createdAt(n),
    }),
  }),
  sample<MpcShareRecord>({
    declaration: MPC_SHARES,
    scopeField: 'tenantId',
    record: (scope, n) => ({
      id: `${scope}-mpc-vault-1/0/${did(scope, n)}`,
      tenantId: scope,
      vaultId: `${scope}-mpc-vault-1`,
      group: 0,
      member: did(scope, n),
      share: sealed('share'),
      createdAt: createdAt(n),
    }),
  }),
  sample<CredentialRecord>({
    declaration: CREDENTIALS,
    scopeField: 'tenantId',
    record: (scope, n) => ({
      id: `${scope}-credential-${n}`,
      tenantId: scope,
      vcId: did(`${scope}/vc`, n),
      did: did(`${scope}/vc`, n),
      format: 'JSON-LD',
      encoded: {
        '@context': ['https://www.w3.org/2018/credentials/v1'],
        type: ['VerifiableCredential', `Sample${n}`],
        issuer: did(scope, 1),
        credentialSubject: { id: did(scope, 2), degree: { name: `degree ${n}` } },
      },
      issuer: address(scope, 1),
      subject: address(scope, 2),
      spelled: { issuer: did(scope, 1) },
      types: ['VerifiableCredential', `Sample${n}`],
      issuanceDate: new Date(createdAt(n)).toISOString(),
      storedBy: [did(scope, 1), did(scope, 10 + n)],
      isPublicAccess: n % 2 === 0,
      roles: [did(`${scope}/role`, 1), did(`${scope}/role`, 10 + n)],
      hash: `${scope}-content-${n}`,
      storerKey: `${scope}-storer-1`,
      createdAt: createdAt(n),
    }),
  }),
  sample<DidEventRecord>({
    declaration: DID_EVENTS,
    scopeField: 'network',
    record: (scope, n) => ({
      id: `${scope}/${address(scope, 1)}/${n}`,
      nonce: `${scope}-nonce-${n}`,
      network: scope,
      identity: address(scope, 1),
      seq: n,
      event: 'DIDAttributeChanged',
      owner: address(scope, 1),
      name: 'did/svc/Hub',
      value: '0x68747470733a2f2f6875622e6578616d706c652e636f6d',
      validTo: 2_000_000_000,
      at: 1_700_000_000 + n,
      createdAt: createdAt(n),
    }),
  }),
  sample<DidHeadRecord>({
    declaration: DID_HEADS,
    scopeField: 'network',
    record: (scope, n) => ({
      id: `${scope}/${address(scope, n)}`,
      network: scope,
      identity: address(scope, n),
      seq: n,
      owner: address(scope, 1),
      at: 1_700_000_000 + n,
      createdAt: createdAt(n),
    }),
  }),
  sample<DidWebChangeRecord>({
    declaration: DID_WEB_CHANGES,
    scopeField: 'tenantId',
    record: (scope, n) => ({
      id: `did:web:example.com:dids:${scope}/${n}`,
      did: `did:web:example.com:dids:${scope}`,
      version: n,
      tenantId: scope,
      walletId: scope,
      change: { kind: 'service', type: 'LinkedDomains', serviceEndpoint: `https://example.com/${n}`, validTo: 2_000_000_000 },
      createdAt: createdAt(n),
    }),
  }),
  sample<StatusListRecord>({
    declaration: STATUS_LISTS,
    scopeField: 'tenantId',
    record: (scope, n) => ({
      id: `${scope}-list-${n}`,
      tenantId: scope,
      issuer: did(scope, 1),
      purpose: n % 2 === 0 ? 'revocation' : 'suspension',
      format: 'JWT',
      size: 131_072,
      baseUrl: 'https://status.example.com',
      full: n % 3 === 0,
      allocated: n,
      version: n,
      signedVersion: n,
      credential: `eyJhbGciOiJFUzI1NksiLCJ0eXAiOiJKV1QifQ.eyJ2YyI6e319.${n}`,
      encodedList: 'uH4sIAAAAAAAAA-3BMQEAAADCoPVPbQwfoAAAAAAAAAAAAAAAAAAAAIC3AYbSVKsAQAAA',
      etag: `"${scope}-${n}"`,
      signedAt: createdAt(n),
      changedAt: createdAt(n),
      createdAt: createdAt(n),
    }),
  }),
  sample<StatusEntryRecord>({
    declaration: STATUS_ENTRIES,
    scopeField: 'tenantId',
    record: (scope, n) => ({
      id: `${scope}-entry-${n}`,
      tenantId: scope,
      listId: `${scope}-list-1`,
      index: n,
      purpose: 'revocation',
      credentialId: `urn:uuid:${scope}-${n}`,
      value: n % 2 === 0,
      createdAt: createdAt(n),
    }),
  }),
  sample<StatusChangeRecord>({
    declaration: STATUS_CHANGES,
    scopeField: 'tenantId',
    record: (scope, n) => ({
      id: `${scope}-change-${n}`,
      tenantId: scope,
      listId: `${scope}-list-1`,
      index: n,
      purpose: 'revocation',
      value: true,
      byDids: [did(scope, 1), did(scope, 10 + n)],
      byKeys: [address(scope, 1), address(scope, 10 + n)],
      createdAt: createdAt(n),
    }),
  }),
  sample<AuditRecord>({
    declaration: AUDIT_RECORDS,
    scopeField: 'tenantId',
    record: (scope, n) => ({
      id: `${scope}:${n}`,
      tenantId: scope,
      seq: n,
      time: createdAt(n),
      apiKeyId: 'key_sample',
      actorDids: [did(scope, 1), did(scope, 10 + n)],
      action: 'credential.status',
      targetType: 'credential',
      targetId: `urn:uuid:${scope}-${n}`,
      outcome: 'ok',
      requestId: `request-${n}`,
      prevHash: '0'.repeat(64),
      hash: n.toString(16).padStart(64, '0'),
      createdAt: createdAt(n),
    }),
  }),
  sample<AuditHeadRecord>({
    declaration: AUDIT_HEADS,
    scopeField: 'tenantId',
    record: (scope, n) => ({
      id: `${scope}-chain-${n}`,
      tenantId: scope,
      seq: n,
      hash: n.toString(16).padStart(64, '0'),
      createdAt: createdAt(n),
    }),
  }),
  sample<AuditAppendRecord>({
    declaration: AUDIT_APPENDS,
    scopeField: 'tenantId',
    record: (scope, n) => ({
      id: `${String(createdAt(n)).padStart(15, '0')}-${scope}-${n}`,
      tenantId: scope,
      state: 'appended',
      time: createdAt(n),
      apiKeyId: 'key_sample',
      actorDids: [did(scope, 1)],
      action: 'wallet.create',
      targetType: 'wallet',
      targetId: did(scope, 10 + n),
      outcome: 'ok',
      requestId: `request-${n}`,
      createdAt: createdAt(n),
    }),
  }),
  sample<OneTimeRecord>({
    declaration: ONE_TIME,
    scopeField: 'tenantId',
    record: (scope, n) => ({
      id: `${scope}-hash-${n}`.padEnd(43, 'A'),
      tenantId: scope,
      kind: 'pre-auth-code',
      expiresAt: createdAt(n) + 300_000,
      attempts: n - 1,
      data: { offerId: `offer-${n}`, configurationIds: ['UniversityDegree'] },
      createdAt: createdAt(n),
    }),
  }),
  sample<IssuerRecord>({
    declaration: OID4VCI_ISSUERS,
    scopeField: 'tenantId',
    record: (scope, n) => ({ id: `${scope}-issuer-${n}`, tenantId: scope, slug: `${scope}-slug-${n}`, createdAt: createdAt(n) }),
  }),
  sample<ConfigurationRecord>({
    declaration: OID4VCI_CONFIGURATIONS,
    scopeField: 'tenantId',
    record: (scope, n) => ({
      id: `${scope}-configuration-${n}`,
      tenantId: scope,
      configurationId: `Identity-${n}`,
      issuer: `${scope}-slug-1`,
      format: 'dc+sd-jwt',
      vct: 'https://credentials.example.com/identity',
      issuingDid: did(scope, 1),
      keyType: 'secp256k1',
      proofAlgs: ['ES256', 'ES256K', 'EdDSA'],
      signingAlg: 'ES256K',
      signingAlgGiven: false,
      proofTypesGiven: false,
      display: [{ name: 'Identity', locale: 'en' }],
      claims: [{ path: ['given_name'] }],
      batchSize: 2,
      createdAt: createdAt(n),
      updatedAt: createdAt(n),
    }),
  }),
  sample<OfferRecord>({
    declaration: OID4VCI_OFFERS,
    scopeField: 'tenantId',
    record: (scope, n) => ({
      // Stored under a keyed hash of the offer id (the id is a bearer secret of the wallet's).
      id: `${scope}-offer-${n}`.padEnd(43, 'A'),
      tenantId: scope,
      issuer: `${scope}-slug-1`,
      configurationIds: [`Identity-${n}`],
      claims: { [`Identity-${n}`]: { given_name: 'Ada' } },
      txCode: { hash: 'B'.repeat(43), length: 6, inputMode: 'numeric' },
      expiresAt: createdAt(n) + 600_000,
      createdBy: { dids: [did(scope, 1)] },
      state: n === 1 ? 'offered' : 'redeemed',
      createdAt: createdAt(n),
      updatedAt: createdAt(n),
    }),
  }),
  sample<DeferredRecord>({
    declaration: OID4VCI_DEFERRED,
    scopeField: 'tenantId',
    record: (scope, n) => ({
      // Stored under a keyed hash of the wallet's transaction id; `reference` is the backend's own handle.
      id: `${scope}-deferred-${n}`.padEnd(43, 'A'),
      tenantId: scope,
      issuer: `${scope}-slug-1`,
      reference: `${scope}-reference-${n}`,
      configurationId: `Identity-${n}`,
      holderKeys: [{ jwk: { kty: 'EC', crv: 'P-256', x: 'x', y: 'y' }, jkt: 'C'.repeat(43) }],
      claims: { given_name: 'Ada' },
      binding: 'D'.repeat(43),
      state: n === 1 ? 'pending' : 'ready',
      expiresAt: createdAt(n) + 604_800_000,
      createdAt: createdAt(n),
      updatedAt: createdAt(n),
    }),
  }),
  sample<PresentationRequestRecord>({
    declaration: OID4VP_REQUESTS,
    scopeField: 'tenantId',
    record: (scope, n) => ({
      // Stored under a keyed hash of the request id (the request_uri's and response_uri's handle).
      id: `${scope}-vp-request-${n}`.padEnd(43, 'A'),
      tenantId: scope,
      clientId: `decentralized_identifier:${did(scope, 1)}`,
      clientIdPrefix: 'decentralized_identifier',
      signingKid: `${did(scope, 1)}#controller`,
      dcqlQuery: { credentials: [{ id: 'pid', format: 'dc+sd-jwt', meta: { vct_values: ['https://example.com/pid'] } }] },
      responseMode: n === 1 ? 'direct_post' : 'direct_post.jwt',
      nonce: `nonce-${n}`.padEnd(43, 'N'),
      state: `state-${n}`.padEnd(43, 'S'),
      ...(n !== 1 && {
        encryption: { publicJwk: { kty: 'EC', crv: 'P-256', x: 'x', y: 'y', kid: 'k' }, sealedPrivateJwk: 'sealed', enc: ['A128GCM'] },
      }),
      requestObject: 'eyJhbGciOiJFUzI1NiJ9.e30.c2ln',
      status: n === 1 ? 'pending' : 'failed',
      ...(n !== 1 && { outcome: { status: 'failed', error: 'access_denied' }, answeredAt: createdAt(n) + 1000 }),
      createdBy: { dids: [did(scope, 1)] },
      createdAt: createdAt(n),
      expiresAt: createdAt(n) + 300_000,
      deleteAt: createdAt(n) + 3_600_000,
      updatedAt: createdAt(n),
    }),
  }),
]
