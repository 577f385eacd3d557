/**
 * Envelope encryption of secrets at rest (DESIGN §5): AES-256-GCM under a 32-byte master
 * key, a random 96-bit nonce per secret, and associated data naming the record the secret
 * belongs to, so a ciphertext copied onto another record does not decrypt.
 *
 * Envelope (hex): `01` ‖ key id (8 bytes) ‖ nonce (12) ‖ ciphertext ‖ tag (16).
 * The key id is the first 8 bytes of sha256("didvault-kid" ‖ key): rotation keeps old keys
 * around to decrypt until every envelope is rewritten under the new one.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes, scryptSync } from 'node:crypto'

const VERSION = 0x01
const KID_BYTES = 8
const NONCE_BYTES = 12
const TAG_BYTES = 16
const HEADER_BYTES = 1 + KID_BYTES + NONCE_BYTES

/** Thrown when an envelope cannot be opened: wrong key, wrong record, or tampered bytes. */
export class KeyringError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options)
    this.name = 'KeyringError'
  }
}

/** A master key, as 32 raw bytes. */
export type MasterKey = Uint8Array

/**
 * Turns configuration into a master key: 64 hex characters are the raw key; anything else is
 * a passphrase stretched with scrypt (N=2^17, r=8, p=1) and the given salt.
 */
export function masterKeyFrom(secret: string, salt: Uint8Array | string): MasterKey {
  if (/^[0-9a-fA-F]{64}$/.test(secret)) return Buffer.from(secret, 'hex')
  if (secret.length === 0) throw new KeyringError('master key passphrase is empty')
  return scryptSync(secret, salt, 32, { N: 1 << 17, r: 8, p: 1, maxmem: 256 * 1024 * 1024 })
}

/** Generates a random master key. */
export function randomMasterKey(): MasterKey {
  return randomBytes(32)
}

function keyId(key: MasterKey): string {
  return createHash('sha256').update('didvault-kid').update(key).digest().subarray(0, KID_BYTES).toString('hex')
}

/** Encrypts and decrypts secrets. Holds the current key and, during rotation, older ones. */
export class Keyring {
  #current: { id: string; key: Buffer }
  readonly #keys = new Map<string, Buffer>()
  /** Set while sealing is refused: why. */
  #fence: string | undefined

  constructor(current: MasterKey, previous: MasterKey[] = []) {
    if (current.length !== 32) throw new KeyringError('master key must be 32 bytes')
    for (const k of previous) this.#keys.set(keyId(k), Buffer.from(k))
    this.#current = { id: keyId(current), key: Buffer.from(current) }
    this.#keys.set(this.#current.id, this.#current.key)
  }

  /** The key id of a master key (as envelopes carry it). */
  static idOf(key: MasterKey): string {
    return keyId(key)
  }

  /** Whether the keyring holds the key with this id. */
  hasKey(id: string): boolean {
    return this.#keys.has(id)
  }

  /** Ids of every key it opens envelopes with (the current one included). */
  get keyIds(): string[] {
    return [...this.#keys.keys()]
  }

  /**
   * Refuses every {@link seal} from now on, with `reason` as the error (a master-key rotation to
   * a key this process lacks has begun: what it sealed would be lost), or, with `undefined`, seals again.
   */
  fence(reason: string | undefined): void {
    this.#fence = reason
  }

  /** Why sealing is refused, when it is (see {@link fence}). */
  get fenced(): string | undefined {
    return this.#fence
  }

  /** Id of the key new envelopes are sealed with. */
  get currentKeyId(): string {
    return this.#current.id
  }

  /** Makes `key` the current key; the old current key stays available for opening. */
  useKey(key: MasterKey): void {
    if (key.length !== 32) throw new KeyringError('master key must be 32 bytes')
    this.#current = { id: keyId(key), key: Buffer.from(key) }
    this.#keys.set(this.#current.id, this.#current.key)
  }

  /** Forgets every key but the current one (after a finished rotation). */
  dropOldKeys(): void {
    for (const id of [...this.#keys.keys()]) if (id !== this.#current.id) this.#keys.delete(id)
  }

  /** Seals `plaintext` for the record described by `context` (e.g. `tenant/wallets/<id>/privateKey`). */
  seal(plaintext: Uint8Array, context: string): string {
    if (this.#fence !== undefined) throw new KeyringError(this.#fence)
    const nonce = randomBytes(NONCE_BYTES)
    const cipher = createCipheriv('aes-256-gcm', this.#current.key, nonce)
    cipher.setAAD(Buffer.from(context, 'utf8'))
    const body = Buffer.concat([cipher.update(plaintext), cipher.final()])
    return Buffer.concat([Buffer.from([VERSION]), Buffer.from(this.#current.id, 'hex'), nonce, body, cipher.getAuthTag()]).toString('hex')
  }

  /** Opens an envelope made by {@link seal} with the same context. */
  open(envelope: string, context: string): Uint8Array {
    const bytes = Buffer.from(envelope, 'hex')
    if (bytes.length < HEADER_BYTES + TAG_BYTES || bytes[0] !== VERSION || bytes.toString('hex') !== envelope.toLowerCase()) {
      throw new KeyringError('not a didvault envelope')
    }
    const kid = bytes.subarray(1, 1 + KID_BYTES).toString('hex')
    const key = this.#keys.get(kid)
    if (!key) throw new KeyringError(`envelope sealed with unknown master key ${kid}`)
    const nonce = bytes.subarray(1 + KID_BYTES, HEADER_BYTES)
    const decipher = createDecipheriv('aes-256-gcm', key, nonce)
    decipher.setAAD(Buffer.from(context, 'utf8'))
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES))
    try {
      return new Uint8Array(Buffer.concat([decipher.update(bytes.subarray(HEADER_BYTES, bytes.length - TAG_BYTES)), decipher.final()]))
    } catch {
      throw new KeyringError('envelope does not open: wrong master key, wrong record or tampered data')
    }
  }

  /** Key id an envelope was sealed with. */
  static keyIdOf(envelope: string): string {
    return envelope.slice(2, 2 + KID_BYTES * 2)
  }

  /** Seals the same plaintext under the current key (rotation). */
  reseal(envelope: string, context: string): string {
    const plain = this.open(envelope, context)
    try {
      return this.seal(plain, context)
    } finally {
      plain.fill(0)
    }
  }
}
