/**
 * Public keys the service knows by address: the keys of the wallets it holds. A DID-auth
 * signature by a known key is checked directly (fast, native) instead of recovering the
 * signer's address. An address is the hash of its key, so the mapping never goes stale and
 * is cached without invalidation.
 */
import type { KeyObject } from 'node:crypto'
import type { StorageAdapter } from '../storage/port.js'
import type { WalletRecord } from '../storage/collections.js'
import { publicKeyObject } from './es256k.js'
import { addressOf } from './secp256k1.js'

export class PublicKeyDirectory {
  readonly #byAddress = new Map<string, KeyObject>()
  readonly #byHex = new Map<string, KeyObject>()

  constructor(
    private readonly storage: StorageAdapter,
    private readonly maxCached = 10_000,
  ) {}

  /** The key of `address` (EIP-55), if a wallet of any tenant has it. Public keys are public: no tenant scope applies. */
  async keyFor(address: string): Promise<KeyObject | undefined> {
    const hit = this.#byAddress.get(address)
    if (hit) return hit
    const wallet = await this.storage.collection<WalletRecord>('wallets').findOne({ field: 'ethereumAddress', op: 'eq', value: address })
    // A stored row is trusted only as far as its key hashes to the address asked for: a row
    // with a foreign key (a corrupted or forged record, any tenant's) must not vouch for it.
    if (!wallet || !keyHasAddress(wallet.publicKeyHex, address)) return undefined
    return this.#remember(this.#byAddress, address, publicKeyObject(wallet.publicKeyHex))
  }

  /** The key object of a hex public key (parsing one costs more than verifying with it). */
  keyFromHex(publicKeyHex: string): KeyObject {
    return this.#byHex.get(publicKeyHex) ?? this.#remember(this.#byHex, publicKeyHex, publicKeyObject(publicKeyHex))
  }

  #remember(cache: Map<string, KeyObject>, id: string, key: KeyObject): KeyObject {
    if (cache.size >= this.maxCached) cache.delete(cache.keys().next().value!)
    cache.set(id, key)
    return key
  }
}

function keyHasAddress(publicKeyHex: string, address: string): boolean {
  try {
    return addressOf(Buffer.from(publicKeyHex, 'hex')) === address
  } catch {
    return false
  }
}
