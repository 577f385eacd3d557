/**
 * A database as didvault 0.1.0 left it, as data: the collections that release declared (its
 * `COLLECTIONS`, at commit f76e20b) and records shaped as it wrote them (from the repository's
 * test/fixtures: release-0.1.0.db, previous-release.db for the API key; sealed secrets and hashes
 * replaced by placeholders). The migrations group
 * writes them through an adapter and upgrades them with the current declarations, so an adapter
 * that cannot open that release's SQLite file still shows it upgrades a database in place.
 */
import type { CollectionSpec, StoredRecord } from '../storage/port.js'

const base = ['tenantId', 'createdAt']

/** The collections of 0.1.0: no roles, MPC custody or stored credentials yet; API keys without `scheme`; DID heads read by id only. */
export const RELEASE_0_1_0_COLLECTIONS: readonly CollectionSpec[] = [
  { name: 'meta', fields: [...base], indexes: [], secretFields: ['check'] },
  { name: 'apiKeys', fields: [...base, 'hash'], indexes: [{ fields: ['hash'], unique: true }, { fields: ['tenantId'] }] },
  {
    name: 'vaults',
    fields: [...base, 'parentID', 'keyManagement', 'mpcAccountID', 'mpcVaultID', 'name'],
    indexes: [
      { fields: ['tenantId', 'createdAt'] },
      { fields: ['tenantId', 'parentID', 'createdAt'] },
      { fields: ['tenantId', 'mpcAccountID', 'createdAt'] },
      { fields: ['tenantId', 'mpcVaultID', 'createdAt'] },
    ],
    secretFields: ['mnemonic', 'accountNode'],
  },
  {
    name: 'wallets',
    fields: [...base, 'vaultId', 'did', 'alias', 'index', 'ethereumAddress'],
    indexes: [
      { fields: ['did'], unique: true },
      { fields: ['ethereumAddress'] },
      { fields: ['tenantId', 'ethereumAddress', 'createdAt'] },
      { fields: ['tenantId', 'alias'], unique: true },
      { fields: ['vaultId', 'index'], unique: true },
      { fields: ['tenantId', 'vaultId', 'createdAt'] },
      { fields: ['tenantId', 'createdAt'] },
    ],
    secretFields: ['privateKey'],
  },
  {
    name: 'delegateKeys',
    fields: [...base, 'walletId', 'ethereumAddress'],
    indexes: [{ fields: ['tenantId', 'walletId', 'createdAt'] }, { fields: ['ethereumAddress'] }],
    secretFields: ['privateKey'],
  },
  {
    name: 'didEvents',
    fields: ['network', 'identity', 'seq', 'createdAt'],
    indexes: [{ fields: ['network', 'identity', 'seq'], unique: true }],
  },
  { name: 'didHeads', fields: ['createdAt'], indexes: [] },
]

const tenantId = 'release'
const vaultId = 'c25685df-c562-4607-ab61-f83259a2aabc'
const root = '0x2FebE358b6e4e0Cf57Ad3337b30a433e9517578c'
const payroll = '0x06C10923abca7166E9772f0bDA6c30df2bAc129A'
const hub = '0x9A58e9E9dbe85C162ee447f2d4062F0bfF3b81b4'
const standalone = '0x0b2f40e048A83b64f149a3dC5aFB3a26Eb9C77A9'
const delegate = '0x2C37437fb6B33332647dBD86fda2C8cEE4f05a76'
const sealed = (what: string): string => `sealed-placeholder:${what}`

function wallet(id: string, address: string, fields: { alias: string; index?: number; createdAt: number }): StoredRecord {
  return {
    id,
    tenantId,
    ...(fields.index !== undefined && { vaultId, index: fields.index }),
    isHDWallet: fields.index !== undefined,
    privateKey: sealed('privateKey'),
    publicKeyHex: `04${'ab'.repeat(64)}`,
    ethereumAddress: address,
    did: `did:ethr:dev:${address}`,
    didMethod: 'ethr',
    alias: fields.alias,
    created: new Date(fields.createdAt).toISOString(),
    createdAt: fields.createdAt,
  }
}

/**
 * Records of 0.1.0 by collection: the keyring's check, an API key, a BIP44 vault with three
 * wallets (one with a delegate key and a service endpoint), a standalone wallet.
 */
export const RELEASE_0_1_0_RECORDS: Readonly<Record<string, readonly StoredRecord[]>> = {
  meta: [{ id: 'keyring', tenantId: '_system', createdAt: 1795445026412, salt: 'b137e0878250a92a', check: sealed('check') }],
  apiKeys: [{ id: 'c4ce7d37ea566e8e', tenantId: 'acme', hash: 'c4ce7d37ea566e8ecfac4807eb0d3f71', createdAt: 1795445015123 }],
  vaults: [
    {
      id: vaultId,
      tenantId,
      name: 'Treasury',
      description: '',
      hierarchy: 'BIP44',
      keyManagement: 'ECS',
      status: 'INITIALIZED',
      rootDid: `did:ethr:dev:${root}`,
      mnemonic: sealed('mnemonic'),
      accountNode: sealed('accountNode'),
      hdIndex: 2,
      createdAt: 1795445026417,
    },
  ],
  wallets: [
    wallet('bd843d7f-8d2b-4651-800c-eacb0f10b163', root, { alias: `did:ethr:dev:${root}`, index: 0, createdAt: 1795445026420 }),
    wallet('3e22f6e4-cd62-4f2d-bb28-781170d07c31', payroll, { alias: 'payroll', index: 1, createdAt: 1795445026638 }),
    wallet('7a9692bf-b3be-4741-bf14-51f569f0d58d', hub, { alias: 'hub', index: 2, createdAt: 1795445026648 }),
    wallet('c2c2a3d4-df7d-450a-b252-8da88e99830b', standalone, { alias: 'standalone', createdAt: 1795445026658 }),
  ],
  delegateKeys: [
    {
      id: '39b845f0-0297-4cad-8998-1e8bf2651446',
      tenantId,
      walletId: '7a9692bf-b3be-4741-bf14-51f569f0d58d',
      did: `did:ethr:dev:${hub}`,
      delegateType: 'veriKey',
      ethereumAddress: delegate,
      publicKeyHex: `04${'cd'.repeat(64)}`,
      privateKey: sealed('privateKey'),
      validTo: 2110805026,
      createdAt: 1795445026652,
    },
  ],
  didEvents: [
    {
      id: `dev/${hub}/1`,
      nonce: '100c2756-2cd4-47b3-837b-8a47736d9612',
      network: 'dev',
      identity: hub,
      seq: 1,
      at: 1795445026,
      owner: hub,
      createdAt: 1795445026650,
      event: 'DIDAttributeChanged',
      name: 'did/svc/Hub',
      value: '0x68747470733a2f2f6875622e6578616d706c652e636f6d',
      validTo: 2110805026,
    },
    {
      id: `dev/${hub}/2`,
      nonce: '19127cad-f5bb-421f-a06b-3b420fb41cec',
      network: 'dev',
      identity: hub,
      seq: 2,
      at: 1795445026,
      owner: hub,
      createdAt: 1795445026654,
      event: 'DIDDelegateChanged',
      delegateType: 'veriKey',
      delegate,
      validTo: 2110805026,
    },
  ],
  didHeads: [{ id: `dev/${hub}`, network: 'dev', identity: hub, seq: 2, owner: hub, at: 1795445026, createdAt: 1795445026650 }],
}
