/**
 * The collections the service stores, with the fields it queries and the indexes behind
 * those queries. Every record carries `tenantId` and `createdAt` (ms).
 */
import type { CollectionSpec, StoredRecord } from './port.js'
import type { WalletConfig } from '../schemas/wallet-config.js'

export interface ApiKeyRecord extends StoredRecord {
  tenantId: string
  /** sha256 of the key, hex. The key itself is never stored. */
  hash: string
  createdAt: number
}

export interface MetaRecord extends StoredRecord {
  tenantId: string
  createdAt: number
  [field: string]: unknown
}

export interface VaultRecord extends StoredRecord {
  tenantId: string
  name: string
  description: string
  parentID?: string
  hierarchy: 'NONE' | 'BIP44'
  keyManagement: 'ECS' | 'MPC'
  status: 'INITIALIZED' | 'NOT_INITIALIZED'
  walletConfig?: WalletConfig
  /** Envelope of the BIP39 mnemonic (ECS + BIP44). */
  mnemonic?: string
  /** Envelope of the packed account node m/44'/60'/0'/0 (ECS + BIP44; see keys/hd). */
  accountNode?: string
  /** Last HD index handed out (ECS + BIP44). */
  hdIndex?: number
  mpcAccountID?: string
  mpcVaultID?: string
  mpcGroups?: unknown
  createdAt: number
}

export interface WalletRecord extends StoredRecord {
  tenantId: string
  vaultId?: string
  isHDWallet: boolean
  index?: number
  /** Envelope of the private key (ECS). */
  privateKey?: string
  publicKeyHex: string
  publicKeyDER?: string
  ethereumAddress: string
  did: string
  didMethod: string
  alias: string
  walletConfig?: WalletConfig
  /** ISO creation date, as the spec's `created`. */
  created: string
  createdAt: number
}

const base = ['tenantId', 'createdAt']

/** Every collection of the service. */
export const COLLECTIONS: CollectionSpec[] = [
  {
    name: 'meta',
    fields: [...base],
    indexes: [],
    secretFields: ['check'],
  },
  {
    name: 'apiKeys',
    fields: [...base, 'hash'],
    indexes: [{ fields: ['hash'], unique: true }, { fields: ['tenantId'] }],
  },
  {
    name: 'vaults',
    fields: [...base, 'parentID', 'keyManagement', 'mpcAccountID', 'mpcVaultID', 'name'],
    indexes: [
      // Each filter's index ends in createdAt, the default order, so one index serves filter and order.
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
      { fields: ['tenantId', 'alias'], unique: true },
      { fields: ['vaultId', 'index'], unique: true },
      { fields: ['tenantId', 'vaultId', 'createdAt'] },
      { fields: ['tenantId', 'createdAt'] },
    ],
    secretFields: ['privateKey'],
  },
]

/** Context bound into a secret's envelope: the record it belongs to. */
export function secretContext(collection: string, record: { tenantId: string; id: string }, field: string): string {
  return `${record.tenantId}/${collection}/${record.id}/${field}`
}
