/**
 * The shipped quorum custody's keys and sealed shares: the records and their collection
 * declarations (fields and indexes checked against the record types by the compiler).
 */
import { declareCollection } from '../storage/declaration.js'
import type { StoredRecord } from '../storage/port.js'
import type { KeyType } from '../keys/key-types.js'
import type { QuorumGroup } from './port.js'

/**
 * The key of an initialized MPC vault in the shipped quorum custody (mpc/shamir-quorum-custody):
 * its public part and the policy its shares were split under. `id` is the vault's id.
 */
export interface MpcKeyRecord extends StoredRecord {
  tenantId: string
  hierarchy: 'NONE' | 'BIP44'
  /** The key type; absent on records made before issue 30, which are all `secp256k1`. */
  keyType?: KeyType
  groups: QuorumGroup[]
  /** Public key, hex (compressed SEC1, or Ed25519's 32 bytes): the key (`NONE`) or the account node (`BIP44`). */
  publicKey: string
  /** Chain code of the account node, hex (`BIP44`). */
  chainCode?: string
  createdAt: number
}

export const MPC_KEYS = declareCollection<MpcKeyRecord>({
  name: 'mpcKeys',
  fields: ['tenantId', 'createdAt'],
  // Read by id only.
  indexes: [],
})

/** One member's Shamir share of an MPC vault's secret, sealed; `id` is `<vaultId>/<group index>/<member DID>`. */
export interface MpcShareRecord extends StoredRecord {
  tenantId: string
  vaultId: string
  /** Index of the quorum group in the vault's policy. */
  group: number
  /** Member DID. */
  member: string
  /** Envelope of the share. */
  share: string
  createdAt: number
}

export const MPC_SHARES = declareCollection<MpcShareRecord>({
  name: 'mpcShares',
  fields: ['tenantId', 'createdAt', 'vaultId'],
  indexes: [{ fields: ['tenantId', 'vaultId', 'createdAt'] }],
  secretFields: ['share'],
})
