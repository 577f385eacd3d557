/**
 * Opening the keyring against a database. The `meta/keyring` record holds the scrypt salt
 * (for passphrase master keys) and a check envelope; a master key that does not open it is
 * the wrong key, and start-up fails loudly instead of writing secrets nobody can read.
 */
import { randomBytes } from 'node:crypto'
import type { StorageAdapter } from '../storage/port.js'
import type { MetaRecord } from './records.js'
import { secretContext } from '../keys/secret-context.js'
import { Keyring, KeyringError, masterKeyFrom } from '../keys/keyring.js'

/** A master key: 32 raw bytes, 64 hex characters, or a passphrase. */
export type MasterKeyInput = Uint8Array | string

const CHECK_PLAINTEXT = new TextEncoder().encode('didvault keyring check v1')
export const KEYRING_RECORD = { tenantId: '_system', id: 'keyring' }
export const keyringCheckContext = () => secretContext('meta', KEYRING_RECORD, 'check')

export interface KeyringMeta extends MetaRecord {
  salt: string
  check: string
  /** Set while a master-key rotation runs: the id of the key it rotates to. */
  rotatingTo?: string
}

function toKey(input: MasterKeyInput, salt: string): Uint8Array {
  if (typeof input !== 'string') {
    if (input.length !== 32) throw new KeyringError('master key must be 32 bytes')
    return input
  }
  return masterKeyFrom(input, Buffer.from(salt, 'hex'))
}

/**
 * Opens (or, on a new database, sets up) the keyring. `previous` keys are accepted for
 * opening envelopes during a master-key rotation.
 */
export async function openKeyring(storage: StorageAdapter, current: MasterKeyInput, previous: MasterKeyInput[] = []): Promise<Keyring> {
  const meta = storage.collection<KeyringMeta>('meta')
  let record = await meta.get(KEYRING_RECORD.id)
  if (!record) {
    const salt = randomBytes(16).toString('hex')
    const keyring = new Keyring(toKey(current, salt))
    record = { ...KEYRING_RECORD, createdAt: Date.now(), salt, check: keyring.seal(CHECK_PLAINTEXT, keyringCheckContext()) }
    try {
      await meta.insert(record)
      return keyring
    } catch {
      // Another process set it up first: open against its record.
      record = await meta.get(KEYRING_RECORD.id)
      if (!record) throw new KeyringError('could not set up the keyring record')
    }
  }
  const keyring = new Keyring(
    toKey(current, record.salt),
    previous.map((k) => toKey(k, record.salt)),
  )
  try {
    keyring.open(record.check, keyringCheckContext())
  } catch {
    throw new KeyringError('the master key does not match this database (wrong DIDVAULT_MASTER_KEY?): refusing to start')
  }
  // Mid-rotation, some envelopes are sealed under the new key: without it, reads would fail later, one by one.
  if (record.rotatingTo !== undefined && !keyring.hasKey(record.rotatingTo)) {
    throw new KeyringError(
      `a master-key rotation to key ${record.rotatingTo} is unfinished: start with the new key as masterKey (and this ` +
        `one among previousMasterKeys), then run rotateMasterKey again`,
    )
  }
  return keyring
}

/** The salt passphrase master keys are stretched with in this database. */
export async function keyringSalt(storage: StorageAdapter): Promise<string> {
  const record = await storage.collection<KeyringMeta>('meta').get(KEYRING_RECORD.id)
  if (!record) throw new KeyringError('keyring not set up')
  return record.salt
}

export { toKey as masterKeyOf }
