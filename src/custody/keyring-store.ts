/**
 * Opening the keyring against a database. The `meta/keyring` record holds the scrypt salt
 * (for passphrase master keys) and a check envelope; a master key that does not open it is
 * the wrong key, and start-up fails loudly instead of writing secrets nobody can read.
 */
import { randomBytes } from 'node:crypto'
import type { StorageAdapter } from '../storage/port.js'
import type { MetaRecord } from './records.js'
import { secretContext } from '../keys/secret-context.js'
import { Keyring, KeyringError, masterKeyFrom, type MasterKey } from '../keys/keyring.js'
import { isHsmMasterKey, newWrappedDataKey, unwrapDataKey, type HsmMasterKey, type HsmWrappedKey } from './hsm-master-key.js'

/** A master key: 32 raw bytes, 64 hex characters, or a passphrase. */
export type MasterKeyInput = Uint8Array | string

/** A master key given as such ({@link MasterKeyInput}) or kept in an HSM ({@link HsmMasterKey}). */
export type MasterKeySetting = MasterKeyInput | HsmMasterKey

const CHECK_PLAINTEXT = new TextEncoder().encode('didvault keyring check v1')
export const KEYRING_RECORD = { tenantId: '_system', id: 'keyring' }
export const keyringCheckContext = () => secretContext('meta', KEYRING_RECORD, 'check')

export interface KeyringMeta extends MetaRecord {
  salt: string
  check: string
  /** Set while a master-key rotation runs: the id of the key it rotates to. */
  rotatingTo?: string
  /**
   * With the master key in an HSM: the data keys, wrapped by token keys (docs/keys.md *The master key in an HSM*). The
   * one envelopes are sealed with, and during a move to (or within) the HSM the one it moves to, last; a finished
   * rotation keeps only the current one.
   */
  hsmWrapped?: HsmWrappedKey[]
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
 * opening envelopes during a master-key rotation. A `current` key in an HSM unwraps the database's
 * data key through the token ({@link hsmCurrentKey}).
 */
export async function openKeyring(
  storage: StorageAdapter,
  current: MasterKeySetting,
  previous: MasterKeySetting[] = [],
  now: () => number = Date.now,
): Promise<Keyring> {
  const meta = storage.collection<KeyringMeta>('meta')
  let record = await meta.get(KEYRING_RECORD.id)
  if (!record) {
    const salt = randomBytes(16).toString('hex')
    const made = isHsmMasterKey(current) ? await newWrappedDataKey(current, now()) : undefined
    const keyring = new Keyring(made?.key ?? toKey(current as MasterKeyInput, salt))
    made?.key.fill(0)
    record = {
      ...KEYRING_RECORD,
      createdAt: now(),
      salt,
      check: keyring.seal(CHECK_PLAINTEXT, keyringCheckContext()),
      ...(made && { hsmWrapped: [made.wrapped] }),
    }
    try {
      await meta.insert(record)
      return keyring
    } catch {
      // Another process set it up first: open against its record.
      record = await meta.get(KEYRING_RECORD.id)
      if (!record) throw new KeyringError('could not set up the keyring record')
    }
  }
  const previousKeys: MasterKey[] = []
  for (const setting of previous) previousKeys.push(...(await previousKeysOf(record, setting)))
  const currentKey = isHsmMasterKey(current)
    ? await hsmCurrentKey(storage, record, current, previousKeys, now)
    : toKey(current, record.salt)
  const keyring = new Keyring(currentKey, previousKeys)
  if (isHsmMasterKey(current)) currentKey.fill(0)
  for (const key of previousKeys) if (key !== currentKey) wipeIfUnwrapped(key, previous)
  try {
    keyring.open(record.check, keyringCheckContext())
  } catch {
    const which = isHsmMasterKey(current) ? 'the master key in the HSM (and the previous master keys)' : 'the master key'
    throw new KeyringError(`${which} does not match this database (wrong DIDVAULT_MASTER_KEY?): refusing to start`)
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

/** Unwrapped copies are the keyring's only: wiped once it holds them (keys given as bytes are the caller's). */
function wipeIfUnwrapped(key: MasterKey, given: MasterKeySetting[]): void {
  if (!given.includes(key)) key.fill(0)
}

/** The keys a previous-master-key setting opens: a given key, or every data key the HSM wraps. */
async function previousKeysOf(record: KeyringMeta, setting: MasterKeySetting): Promise<MasterKey[]> {
  if (!isHsmMasterKey(setting)) return [toKey(setting, record.salt)]
  const entries = record.hsmWrapped ?? []
  if (entries.length === 0) throw new KeyringError('previousMasterKeys: this database has no master key in the HSM')
  const keys: MasterKey[] = []
  for (const entry of entries) keys.push(await unwrapDataKey(setting, entry, 'previousMasterKeys'))
  return keys
}

/**
 * The data key a master key in the HSM seals with: the one a rotation under way moves to, else the last one recorded.
 * A database whose master key is not in the HSM yet, opened with the current key among `previous`, is being moved
 * there: a data key is made and wrapped in the token, recorded last (the first process to do so wins), and
 * `rotateMasterKey({ hsm })` reseals everything under it.
 */
async function hsmCurrentKey(
  storage: StorageAdapter,
  record: KeyringMeta,
  setting: HsmMasterKey,
  previous: MasterKey[],
  now: () => number,
): Promise<MasterKey> {
  const entries = record.hsmWrapped ?? []
  const chosen = entries.find((entry) => entry.keyId === record.rotatingTo) ?? entries.at(-1)
  if (chosen !== undefined) return unwrapDataKey(setting, chosen, 'masterKey')
  if (previous.length === 0 || !opensCheck(record, previous)) {
    throw new KeyringError(
      "masterKey is the HSM but this database's master key is not in it: start with the current master key among the " +
        'previous master keys to move it there (didvault master-key rotate --to-hsm)',
    )
  }
  return pendingHsmKey(storage, setting, now)
}

function opensCheck(record: KeyringMeta, keys: MasterKey[]): boolean {
  try {
    new Keyring(keys[0], keys.slice(1)).open(record.check, keyringCheckContext())
    return true
  } catch {
    return false
  }
}

/**
 * The data key a rotation to the HSM moves to: the one a rotation under way moves to, else one recorded but not yet
 * sealed with (a move begun), else a new one, wrapped in the token and recorded.
 * @throws {KeyringError} while a rotation to a key outside the HSM is unfinished
 */
export async function pendingHsmKey(storage: StorageAdapter, setting: HsmMasterKey, now: () => number = Date.now): Promise<MasterKey> {
  const meta = storage.collection<KeyringMeta>('meta')
  const record = await meta.get(KEYRING_RECORD.id)
  if (!record) throw new KeyringError('keyring not set up')
  const pending = pendingEntry(record)
  if (pending !== undefined) return unwrapDataKey(setting, pending, 'masterKey')
  if (record.rotatingTo !== undefined)
    throw new KeyringError(`a master-key rotation to key ${record.rotatingTo} is unfinished: finish it (rotate to that key) before another`)
  const made = await newWrappedDataKey(setting, now())
  let other: HsmWrappedKey | undefined
  await storage.transaction(async (tx) => {
    const fresh = await tx.collection<KeyringMeta>('meta').get(KEYRING_RECORD.id)
    if (!fresh) throw new KeyringError('keyring not set up')
    other = pendingEntry(fresh)
    if (other === undefined)
      await tx.collection<KeyringMeta>('meta').update(KEYRING_RECORD.id, { hsmWrapped: [...(fresh.hsmWrapped ?? []), made.wrapped] })
  })
  if (other === undefined) return made.key
  made.key.fill(0)
  return unwrapDataKey(setting, other, 'masterKey')
}

/** The wrapped data key a rotation moves (or is about to move) to, when there is one. */
function pendingEntry(record: KeyringMeta): HsmWrappedKey | undefined {
  const entries = record.hsmWrapped ?? []
  if (record.rotatingTo !== undefined) return entries.find((entry) => entry.keyId === record.rotatingTo)
  return entries.find((entry) => entry.keyId !== Keyring.keyIdOf(record.check))
}

/** The salt passphrase master keys are stretched with in this database. */
export async function keyringSalt(storage: StorageAdapter): Promise<string> {
  const record = await storage.collection<KeyringMeta>('meta').get(KEYRING_RECORD.id)
  if (!record) throw new KeyringError('keyring not set up')
  return record.salt
}

export { toKey as masterKeyOf }
