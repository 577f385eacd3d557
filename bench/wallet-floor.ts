/**
 * The raw floor of creating an ECS wallet, from the primitives the SDK builds it with: noble
 * secp256k1 key generation and public key, the keccak-256 address, the keyring's AES-256-GCM
 * seal of the private key, and one insert of the record: by default `insert` into the wallets
 * collection of the same storage (on PostgreSQL, one `INSERT` through `pg`: see ./postgres-floors).
 * No schema parsing, no tenant scoping, no DID formatting, no response shaping.
 */
import { randomUUID } from 'node:crypto'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { bytesToHex } from '@noble/hashes/utils.js'
import type { KeyType } from '../src/keys/key-types.js'
import { Keyring, randomMasterKey } from '../src/keys/keyring.js'
import { CURVES } from '../src/keys/types/index.js'
import { secretContext } from '../src/keys/secret-context.js'
import { type WalletRecord } from '../src/wallets/records.js'
import type { StorageAdapter } from '../src/storage/port.js'
import type { Operation } from './measure.js'

/** Tenant of the floor's records: apart from the service's own, so no uniqueness rule couples the two. */
const TENANT = 'bench-floor'

/** Inserts one wallet record. */
export type InsertWallet = (record: WalletRecord) => Promise<unknown>

/** The floor's insert through the adapter's own `insert`. */
export const adapterWalletInsert =
  (storage: StorageAdapter): InsertWallet =>
  (record) =>
    storage.collection<WalletRecord>('wallets').insert(record)

export function rawWalletCreation(label: string, insert: InsertWallet): Operation {
  const keyring = new Keyring(randomMasterKey())
  return {
    label: `${label}: wallet creation raw floor (interleaved)`,
    fn: async () => {
      const id = randomUUID()
      const secretKey = secp256k1.utils.randomSecretKey()
      const publicKey = secp256k1.getPublicKey(secretKey, false)
      const address = `0x${bytesToHex(keccak_256(publicKey.subarray(1)).subarray(12))}`
      const sealed = keyring.seal(secretKey, secretContext('wallets', { tenantId: TENANT, id }, 'privateKey'))
      secretKey.fill(0)
      const now = Date.now()
      await insert({
        id,
        tenantId: TENANT,
        isHDWallet: false,
        privateKey: sealed,
        publicKeyHex: bytesToHex(publicKey),
        ethereumAddress: address,
        did: `did:ethr:${address}`,
        didMethod: 'ethr',
        alias: `did:ethr:${address}`,
        created: new Date(now).toISOString(),
        createdAt: now,
      })
    },
  }
}

/**
 * The raw floor of creating a wallet of `type`: the key port's generation (noble) and public key, the keyring's
 * AES-256-GCM seal of the private key, and one insert of a record holding the sealed key and its DID. No thumbprint, no
 * key record apart from the wallet's, no DID document, no schema parsing, no response shaping.
 */
export function rawKeyWalletCreation(label: string, type: KeyType, insert: InsertWallet): Operation {
  const keyring = new Keyring(randomMasterKey())
  const curve = CURVES[type]
  return {
    label: `${label}: wallet creation raw floor (interleaved)`,
    fn: async () => {
      const id = randomUUID()
      const secretKey = curve.generate()
      const publicJwk = curve.publicJwk(secretKey)
      const sealed = keyring.seal(secretKey, secretContext('wallets', { tenantId: TENANT, id }, 'privateKey'))
      secretKey.fill(0)
      const now = Date.now()
      const did = `did:jwk:${Buffer.from(JSON.stringify(publicJwk)).toString('base64url')}`
      await insert({
        id,
        tenantId: TENANT,
        isHDWallet: false,
        privateKey: sealed,
        publicKeyHex: publicJwk.x,
        publicKeyJwk: publicJwk,
        ethereumAddress: id,
        did,
        didMethod: 'jwk',
        alias: id,
        created: new Date(now).toISOString(),
        createdAt: now,
      })
    },
  }
}
