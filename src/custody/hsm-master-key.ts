/**
 * The master key in an HSM (docs/keys.md *The master key in an HSM*): the keyring's data key — the 32 random bytes
 * envelopes are sealed with, as with a file master key — is kept in `meta/keyring` only wrapped (AES-256-GCM) by an
 * AES key generated in a PKCS#11 token, which never leaves it. At start the service unwraps it once through the token
 * and keeps it in memory for the life of the process. This module loads no PKCS#11 binding: the token is reached
 * through {@link TokenAesKeys} (`pkcs11(...)` from `didvault/pkcs11`).
 */
import { randomBytes } from 'node:crypto'
import { Keyring, KeyringError, randomMasterKey, type MasterKey } from '../keys/keyring.js'
import type { TokenAesKeys } from '../keys/token-aes-keys.js'

export type { TokenAesKeys } from '../keys/token-aes-keys.js'

/** `masterKey` (or one of `previousMasterKeys`) in a token: `{ hsm: pkcs11({ module, tokenLabel, pin }) }`. */
export interface HsmMasterKey {
  hsm: { masterKeys: TokenAesKeys }
  /**
   * The token key's label. Default: the one the database records; for a new database (or a move to the HSM) a new
   * key `didvault-master-<8 hex>`. When given and missing from the token, a key is generated under it.
   */
  label?: string
}

/** A data key wrapped by a token key, in `meta/keyring.hsmWrapped`. */
export interface HsmWrappedKey {
  /** The token key's CKA_LABEL. */
  label: string
  /** The data key's keyring id (as its envelopes carry it; not secret). */
  keyId: string
  /** Hex: the 12-byte GCM IV and the wrapped key ‖ tag. */
  iv: string
  ciphertext: string
  createdAt: number
}

/** A master-key setting in the HSM (else a file key, hex or passphrase). */
export function isHsmMasterKey(value: unknown): value is HsmMasterKey {
  return typeof value === 'object' && value !== null && !(value instanceof Uint8Array) && 'hsm' in value
}

const aadOf = (label: string) => new TextEncoder().encode(`didvault master data key v1\u0000${label}`)

/** Makes a random data key and wraps it with the token key `setting.label` (generated when missing; a new label by default). */
export async function newWrappedDataKey(setting: HsmMasterKey, now: number): Promise<{ key: MasterKey; wrapped: HsmWrappedKey }> {
  const tokens = setting.hsm.masterKeys
  const label = setting.label ?? `didvault-master-${randomBytes(4).toString('hex')}`
  if (!(await tokens.hasAesKey(label))) await tokens.generateAesKey(label)
  const key = randomMasterKey()
  const iv = randomBytes(12)
  const ciphertext = await tokens.encrypt(label, iv, aadOf(label), key)
  const wrapped = {
    label,
    keyId: Keyring.idOf(key),
    iv: iv.toString('hex'),
    ciphertext: Buffer.from(ciphertext).toString('hex'),
    createdAt: now,
  }
  return { key, wrapped }
}

/**
 * Unwraps a data key through the token. `about` names the setting in errors (`masterKey`, `previousMasterKeys`).
 * @throws {KeyringError} naming the setting and the token key's label
 */
export async function unwrapDataKey(setting: HsmMasterKey, wrapped: HsmWrappedKey, about: string): Promise<MasterKey> {
  if (setting.label !== undefined && setting.label !== wrapped.label)
    throw new KeyringError(`${about}: the database's master key is wrapped by the HSM key labelled ${wrapped.label}, not ${setting.label}`)
  let key: Uint8Array
  try {
    key = await setting.hsm.masterKeys.decrypt(
      wrapped.label,
      Buffer.from(wrapped.iv, 'hex'),
      aadOf(wrapped.label),
      Buffer.from(wrapped.ciphertext, 'hex'),
    )
  } catch (err) {
    const why = err instanceof KeyringError ? err.message : `the token failed (${(err as Error).message})`
    throw new KeyringError(`${about} (the master key in the HSM) does not open this database: ${why}`, { cause: err })
  }
  if (key.length !== 32 || Keyring.idOf(key) !== wrapped.keyId) {
    key.fill(0)
    throw new KeyringError(`${about} (the master key in the HSM): the key unwrapped by ${wrapped.label} is not key ${wrapped.keyId}`)
  }
  return key
}
