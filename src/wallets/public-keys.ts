/**
 * Public keys the service knows by address: the keys of the wallets it holds, of the delegate
 * keys it generated, and of the signers it recovered once. A JWT signature by a known key is
 * checked directly (fast, native) instead of recovering the signer's address. An address is
 * the hash of its key, so the mapping never goes stale and is cached without invalidation.
 *
 * It also remembers, per issuer DID and purpose (the verifier's key, e.g. `"assertionMethod
 * did:ethr:…"`), which verification method last made a valid signature: a verifier tries that
 * one first (the order only: the verdict is the same either way).
 */
import type { KeyObject } from 'node:crypto'
import type { KnownKeys } from '../proofs/known-keys.js'
import type { StorageAdapter } from '../storage/port.js'
import type { DelegateKeyRecord, WalletRecord } from './records.js'
import { publicKeyObject } from '../keys/es256k.js'
import { addressOf } from '../keys/secp256k1.js'

const MISS_TTL_MS = 60_000

export class PublicKeyDirectory implements KnownKeys {
  readonly #byAddress = new Map<string, KeyObject>()
  readonly #hexByAddress = new Map<string, string>()
  /** Addresses looked up and not found, until when (ms): a stranger's key is not read for on every proof. */
  readonly #misses = new Map<string, number>()
  readonly #byHex = new Map<string, KeyObject>()
  readonly #lastSigner = new Map<string, string>()

  constructor(
    private readonly storage: StorageAdapter,
    private readonly maxCached = 10_000,
  ) {}

  /**
   * The key of `address` (EIP-55), if a wallet or a generated delegate key of any tenant has it,
   * or it was learned. Public keys are public: no tenant scope applies.
   */
  async keyFor(address: string): Promise<KeyObject | undefined> {
    const hit = this.#byAddress.get(address)
    if (hit) return hit
    // A miss is remembered for a minute: a key created meanwhile is only found later (its
    // signatures are recovered until then — slower, the same verdict).
    const missedUntil = this.#misses.get(address)
    if (missedUntil !== undefined && missedUntil > Date.now()) return undefined
    const byAddress = { field: 'ethereumAddress', op: 'eq', value: address } as const
    // A stored row is trusted only as far as its key hashes to the address asked for: a row
    // with a foreign key (a corrupted or forged record, any tenant's) must not vouch for it.
    for (const collection of ['wallets', 'delegateKeys'] as const) {
      const row = await this.storage.collection<WalletRecord | DelegateKeyRecord>(collection).findOne(byAddress)
      if (row?.publicKeyHex !== undefined && keyHasAddress(row.publicKeyHex, address)) {
        this.#remember(this.#hexByAddress, address, row.publicKeyHex)
        return this.#remember(this.#byAddress, address, publicKeyObject(row.publicKeyHex))
      }
    }
    this.#remember(this.#misses, address, Date.now() + MISS_TTL_MS)
    return undefined
  }

  /** The public key (hex) of `address`, when {@link keyFor} knows it. */
  async publicKeyHexFor(address: string): Promise<string | undefined> {
    if (!this.#hexByAddress.has(address)) await this.keyFor(address)
    return this.#hexByAddress.get(address)
  }

  /**
   * Remembers the key of `address` found by recovering a signature (a signer outside the
   * service): the next signature by it is checked natively. Ignored unless the key hashes to
   * the address.
   */
  learn(address: string, publicKey: Uint8Array): void {
    if (this.#byAddress.has(address)) return
    let hashes: boolean
    try {
      hashes = addressOf(publicKey) === address
    } catch {
      return
    }
    if (!hashes) return
    this.#misses.delete(address)
    const hex = Buffer.from(publicKey).toString('hex')
    this.#remember(this.#hexByAddress, address, hex)
    this.#remember(this.#byAddress, address, publicKeyObject(hex))
  }

  /** The verification method that last made a valid signature for `hint` (an issuer DID and a purpose), if any. */
  lastSigner(hint: string): string | undefined {
    return this.#lastSigner.get(hint)
  }

  /** Notes that `methodId` made a valid signature for `hint`. */
  noteSigner(hint: string, methodId: string): void {
    if (this.#lastSigner.get(hint) !== methodId) this.#remember(this.#lastSigner, hint, methodId)
  }

  /** The key object of a hex public key (parsing one costs more than verifying with it). */
  keyFromHex(publicKeyHex: string): KeyObject {
    return this.#byHex.get(publicKeyHex) ?? this.#remember(this.#byHex, publicKeyHex, publicKeyObject(publicKeyHex))
  }

  #remember<V>(cache: Map<string, V>, id: string, key: V): V {
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
